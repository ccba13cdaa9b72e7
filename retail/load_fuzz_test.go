package retail_test

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
)

// fuzzEvent is a valid event record; fuzzDoc wraps records in a document
// declaring st-001, st-002, pr-001 and pr-002.
const fuzzEvent = `{"event_id": "evt-000001", "store_id": "st-001", "product_id": "pr-001", "timestamp": "2026-01-01T08:00:00Z", "state": "IN_STOCK", "price_cents": 299, "compliance_flag": "COMPLIANT"}`

func fuzzDoc(events ...string) string {
	return `{"dataset_version": "retail-demo-v1",
 "stores": [{"store_id": "st-001", "name": "Downtown"}, {"store_id": "st-002", "name": "Harbor"}],
 "products": [{"product_id": "pr-001", "name": "Oat milk 1L", "category": "dairy"}, {"product_id": "pr-002", "name": "Rye bread", "category": "bakery"}],
 "events": [` + strings.Join(events, ",\n  ") + "]}\n"
}

// fuzzEventWith returns fuzzEvent with one field's JSON value replaced.
func fuzzEventWith(field, value string) string {
	i := strings.Index(fuzzEvent, `"`+field+`": `)
	j := i + len(field) + 4
	k := j + strings.IndexAny(fuzzEvent[j:], ",}")
	return fuzzEvent[:j] + value + fuzzEvent[k:]
}

// generatedFile writes a small generated store.
func generatedFile(tb testing.TB, o demo.Options) []byte {
	tb.Helper()
	d, err := demo.Generate(o)
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	if err := retail.Write(&buf, d); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func smallOptions(seed uint64, stores, products, events, days int) demo.Options {
	return demo.Options{
		Seed: seed, Version: "retail-test-v1",
		Stores: stores, Products: products, Events: events,
		Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Days: days,
	}
}

// FuzzLoad feeds the loader arbitrary bytes. It must never panic; what it
// accepts must be a valid dataset that survives Write and Load unchanged;
// what it refuses must be a *LoadError with a short message.
func FuzzLoad(f *testing.F) {
	seeds := []string{
		// Valid documents.
		fuzzDoc(fuzzEvent),
		fuzzDoc(),
		fuzzDoc(fuzzEvent, strings.Replace(fuzzEvent, "evt-000001", "evt-000002", 1)),
		`{"events": [], "products": [], "stores": [], "dataset_version": "v"}`,
		string(generatedFile(f, smallOptions(1, 2, 3, 12, 1))),
		// The document.
		``,
		`null`,
		`[]`,
		`{`,
		`{"dataset_version": "v", "stores": [], "products": []}`,
		`{"dataset_version": "v", "stores": [], "products": [], "events": [], "extra": 1}`,
		`{"dataset_version": "v", "stores": [], "products": [], "events": [], "events": []}`,
		`{"dataset_version": "has space", "stores": [], "products": [], "events": []}`,
		`{"dataset_version": 1, "stores": [], "products": [], "events": []}`,
		`{"dataset_version": "v", "stores": {}, "products": [], "events": []}`,
		fuzzDoc(fuzzEvent) + `{}`,
		fuzzDoc(fuzzEvent)[:60],
		// Records.
		fuzzDoc(`[]`),
		fuzzDoc(`"evt-000001"`),
		fuzzDoc(strings.Replace(fuzzEvent, `"state"`, `"colour": "red", "state"`, 1)),
		fuzzDoc(strings.Replace(fuzzEvent, `"price_cents": 299, `, "", 1)),
		fuzzDoc(fuzzEvent, fuzzEvent),
		`{"dataset_version": "v", "stores": [{"store_id": "st-001", "name": "a"}, {"store_id": "st-001", "name": "b"}], "products": [], "events": []}`,
		`{"dataset_version": "v", "stores": [{"store_id": "st-001", "name": " "}], "products": [], "events": []}`,
		`{"dataset_version": "v", "stores": [], "products": [{"product_id": "pr-001", "name": "a"}], "events": []}`,
		// Fields.
		fuzzDoc(fuzzEventWith("event_id", `"evt-1"`)),
		fuzzDoc(fuzzEventWith("store_id", `"st-003"`)),
		fuzzDoc(fuzzEventWith("store_id", `"store-1"`)),
		fuzzDoc(fuzzEventWith("product_id", `"pr-003"`)),
		fuzzDoc(fuzzEventWith("state", `"on_fire"`)),
		fuzzDoc(fuzzEventWith("state", `3`)),
		fuzzDoc(fuzzEventWith("compliance_flag", `"OK"`)),
		fuzzDoc(fuzzEventWith("timestamp", `"2026-01-01T08:00:00"`)),
		fuzzDoc(fuzzEventWith("timestamp", `"2026-01-01T08:00:00+00:00"`)),
		fuzzDoc(fuzzEventWith("timestamp", `"2026-02-30T08:00:00Z"`)),
		fuzzDoc(fuzzEventWith("price_cents", `"299"`)),
		fuzzDoc(fuzzEventWith("price_cents", `2.99`)),
		fuzzDoc(fuzzEventWith("price_cents", `-1`)),
		fuzzDoc(fuzzEventWith("price_cents", `3e2`)),
		fuzzDoc(fuzzEventWith("price_cents", `007`)),
		fuzzDoc(fuzzEventWith("price_cents", `true`)),
		fuzzDoc(fuzzEventWith("price_cents", `null`)),
		fuzzDoc(fuzzEventWith("price_cents", `99999999999999999999`)),
		fuzzDoc(fuzzEventWith("state", `"Robert'); DROP TABLE events;--"`)),
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := retail.Load(bytes.NewReader(data))
		if err != nil {
			if d != nil {
				t.Errorf("Load() returned a dataset with error %v", err)
			}
			if _, ok := err.(*retail.LoadError); !ok {
				t.Fatalf("Load() error = %T %v, want *retail.LoadError", err, err)
			}
			if !errors.Is(err, retail.ErrInvalidStore) {
				t.Errorf("errors.Is(%v, ErrInvalidStore) = false", err)
			}
			// Record names, sanitised field names and fixed reasons: a long
			// message means a value was echoed.
			if n := len(err.Error()); n > 256 {
				t.Errorf("Load() error is %d bytes long, want a short message: %.300q", n, err.Error())
			}
			return
		}
		checkDataset(t, d)

		var buf bytes.Buffer
		if err := retail.Write(&buf, d); err != nil {
			t.Fatalf("Write() error = %v", err)
		}
		written := buf.String()
		d2, err := retail.Load(&buf)
		if err != nil {
			t.Fatalf("Load(Write(d)) error = %v\nwritten:\n%s", err, written)
		}
		if !sameDataset(d, d2) || !reflect.DeepEqual(d, d2) {
			t.Fatalf("Load(Write(d)) differs from d:\n got %+v\nwant %+v", d2, d)
		}
		var buf2 bytes.Buffer
		if err := retail.Write(&buf2, d2); err != nil {
			t.Fatalf("Write() error = %v", err)
		}
		if buf2.String() != written {
			t.Errorf("Write is not stable across a round trip:\n%s\n---\n%s", written, buf2.String())
		}
	})
}

// sameDataset reports whether two datasets hold the same records in the
// same order (a nil and an empty list are the same).
func sameDataset(a, b *retail.Dataset) bool {
	return a.Version == b.Version && slices.Equal(a.Stores, b.Stores) &&
		slices.Equal(a.Products, b.Products) && slices.Equal(a.Events, b.Events)
}

// checkDataset checks everything a loaded dataset promises, written out
// independently of the loader.
func checkDataset(tb testing.TB, d *retail.Dataset) {
	tb.Helper()
	if d == nil {
		tb.Fatal("Load() returned nil dataset and nil error")
	}
	if d.Version == "" || len(d.Version) > 64 || strings.Trim(d.Version, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != "" {
		tb.Errorf("dataset_version %q is not 1-64 letters, digits, '-', '_', '.'", d.Version)
	}
	stores := map[string]bool{}
	for i, s := range d.Stores {
		if !retail.IsStoreID(s.ID) || stores[s.ID] {
			tb.Errorf("stores[%d]: id %q malformed or duplicate", i, s.ID)
		}
		stores[s.ID] = true
		if strings.TrimSpace(s.Name) == "" {
			tb.Errorf("stores[%d]: empty name", i)
		}
	}
	products := map[string]bool{}
	for i, p := range d.Products {
		if !retail.IsProductID(p.ID) || products[p.ID] {
			tb.Errorf("products[%d]: id %q malformed or duplicate", i, p.ID)
		}
		products[p.ID] = true
		if strings.TrimSpace(p.Name) == "" || strings.TrimSpace(p.Category) == "" {
			tb.Errorf("products[%d]: empty name or category", i)
		}
	}
	events := map[string]bool{}
	for i, e := range d.Events {
		if !retail.IsEventID(e.ID) || events[e.ID] {
			tb.Errorf("events[%d]: id %q malformed or duplicate", i, e.ID)
		}
		events[e.ID] = true
		if !stores[e.StoreID] {
			tb.Errorf("events[%d]: store %q not declared", i, e.StoreID)
		}
		if !products[e.ProductID] {
			tb.Errorf("events[%d]: product %q not declared", i, e.ProductID)
		}
		if _, err := time.Parse(time.RFC3339, e.Timestamp); err != nil || !retail.IsTimestamp(e.Timestamp) ||
			!strings.HasSuffix(e.Timestamp, "Z") || len(e.Timestamp) != 20 {
			tb.Errorf("events[%d]: timestamp %q is not UTC to the second", i, e.Timestamp)
		}
		if !e.State.Valid() || !e.Flag.Valid() {
			tb.Errorf("events[%d]: state %q or flag %q invalid", i, e.State, e.Flag)
		}
		if e.PriceCents < 0 {
			tb.Errorf("events[%d]: negative price %d", i, e.PriceCents)
		}
	}
}

func TestWriteLoad_RoundTripsGenerated(t *testing.T) {
	tests := []struct {
		name string
		o    demo.Options
	}{
		{"no events", smallOptions(7, 1, 1, 0, 1)},
		{"one event", smallOptions(7, 1, 1, 1, 1)},
		{"small", smallOptions(42, 3, 4, 200, 2)},
		{"dense ties", smallOptions(3, 2, 2, 500, 1)},
		{"many stores few events", smallOptions(9, 30, 2, 25, 3)},
		{"default sizes, other seed", func() demo.Options { o := demo.DefaultOptions(); o.Seed = 99; return o }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := demo.Generate(tt.o)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := retail.Write(&buf, d); err != nil {
				t.Fatalf("Write() error = %v", err)
			}
			got, err := retail.Load(&buf)
			if err != nil {
				t.Fatalf("Load(Write(d)) error = %v", err)
			}
			checkDataset(t, got)
			if !sameDataset(got, d) {
				t.Errorf("Load(Write(d)) differs from the generated dataset")
			}
			if len(got.Events) != tt.o.Events || len(got.Stores) != tt.o.Stores || len(got.Products) != tt.o.Products {
				t.Errorf("Load(Write(d)) sizes = %d stores, %d products, %d events; want %d, %d, %d",
					len(got.Stores), len(got.Products), len(got.Events), tt.o.Stores, tt.o.Products, tt.o.Events)
			}
		})
	}
}

// TestLoad_FieldNamesAreExact pins that record field names match exactly:
// a case variant of a known field is an unknown field, and a field given
// twice is refused rather than silently resolved.
func TestLoad_FieldNamesAreExact(t *testing.T) {
	tests := []struct {
		name  string
		input string
	}{
		{"upper-case event field", fuzzDoc(strings.Replace(fuzzEvent, `"state"`, `"STATE"`, 1))},
		{"title-case store field", `{"dataset_version": "v", "stores": [{"Store_Id": "st-001", "name": "a"}], "products": [], "events": []}`},
		{"duplicate event field", fuzzDoc(strings.Replace(fuzzEvent, `"price_cents": 299`, `"price_cents": 299, "price_cents": 1`, 1))},
		{"duplicate store field", `{"dataset_version": "v", "stores": [{"store_id": "st-001", "store_id": "st-002", "name": "a"}], "products": [], "events": []}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := retail.Load(strings.NewReader(tt.input))
			if _, ok := err.(*retail.LoadError); !ok {
				t.Errorf("Load() = %+v, %v; want a *LoadError", d, err)
			}
		})
	}
}
