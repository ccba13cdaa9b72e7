package retail_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/provenant/provenant/retail"
)

const validEvent = `{"event_id": "evt-000001", "store_id": "st-001", "product_id": "pr-001",
	"timestamp": "2026-01-01T08:00:00Z", "state": "IN_STOCK", "price_cents": 299, "compliance_flag": "COMPLIANT"}`

func doc(events ...string) string {
	return `{"dataset_version": "retail-demo-v1",
	"stores": [{"store_id": "st-001", "name": "Downtown"}],
	"products": [{"product_id": "pr-001", "name": "Oat milk 1L", "category": "dairy"}],
	"events": [` + strings.Join(events, ",") + `]}`
}

func withField(field, value string) string {
	// Replace one field's JSON value in validEvent.
	i := strings.Index(validEvent, `"`+field+`": `)
	if i < 0 {
		panic(field)
	}
	j := i + len(field) + 4
	k := j
	for k < len(validEvent) && validEvent[k] != ',' && validEvent[k] != '}' {
		k++
	}
	return validEvent[:j] + value + validEvent[k:]
}

func TestLoad_Valid(t *testing.T) {
	d, err := retail.Load(strings.NewReader(doc(validEvent)))
	if err != nil {
		t.Fatal(err)
	}
	want := retail.Event{ID: "evt-000001", StoreID: "st-001", ProductID: "pr-001", Timestamp: "2026-01-01T08:00:00Z",
		State: retail.InStock, PriceCents: 299, Flag: retail.Compliant}
	if d.Version != "retail-demo-v1" || len(d.Events) != 1 || d.Events[0] != want {
		t.Fatalf("got %+v", d)
	}
}

func TestLoad_Rejects(t *testing.T) {
	tests := []struct {
		name       string
		input      string
		wantRecord string
		wantField  string
	}{
		{"unknown event field", doc(strings.Replace(validEvent, `"state"`, `"colour": "red", "state"`, 1)), "events[0]", ""},
		{"unknown top-level field", `{"dataset_version": "v", "extra": 1}`, "", ""},
		{"invalid UTF-8 in a name", strings.Replace(doc(validEvent), `"name": "`, "\"name\": \"\xff", 1), "stores[0]", ""},
		{"lone surrogate in a name", strings.Replace(doc(validEvent), `"name": "`, `"name": "\ud800`, 1), "stores[0]", ""},
		{"nested value", doc(withField("state", `{"a": 1}`)), "events[0]", "state"},
		{"bad event id", doc(withField("event_id", `"evt-1"`)), "events[0]", "event_id"},
		{"bad store id", doc(withField("store_id", `"store-1"`)), "events[0] (evt-000001)", "store_id"},
		{"bad product id", doc(withField("product_id", `"pr-01"`)), "events[0] (evt-000001)", "product_id"},
		{"duplicate event id", doc(validEvent, validEvent), "events[1] (evt-000001)", "event_id"},
		{"undeclared store", doc(withField("store_id", `"st-002"`)), "events[0] (evt-000001)", "store_id"},
		{"undeclared product", doc(withField("product_id", `"pr-002"`)), "events[0] (evt-000001)", "product_id"},
		{"bad state", doc(withField("state", `"on_fire"`)), "events[0] (evt-000001)", "state"},
		{"bad flag", doc(withField("compliance_flag", `"OK"`)), "events[0] (evt-000001)", "compliance_flag"},
		{"timestamp without Z", doc(withField("timestamp", `"2026-01-01T08:00:00"`)), "events[0] (evt-000001)", "timestamp"},
		{"timestamp with offset", doc(withField("timestamp", `"2026-01-01T08:00:00+00:00"`)), "events[0] (evt-000001)", "timestamp"},
		{"impossible date", doc(withField("timestamp", `"2026-02-30T08:00:00Z"`)), "events[0] (evt-000001)", "timestamp"},
		{"fractional seconds", doc(withField("timestamp", `"2026-01-01T08:00:00.5Z"`)), "events[0] (evt-000001)", "timestamp"},
		{"price as string", doc(withField("price_cents", `"299"`)), "events[0] (evt-000001)", "price_cents"},
		{"price as float", doc(withField("price_cents", `2.99`)), "events[0] (evt-000001)", "price_cents"},
		{"price as bool", doc(withField("price_cents", `true`)), "events[0] (evt-000001)", "price_cents"},
		{"negative price", doc(withField("price_cents", `-1`)), "events[0] (evt-000001)", "price_cents"},
		{"price with exponent", doc(withField("price_cents", `3e2`)), "events[0] (evt-000001)", "price_cents"},
		{"missing price", doc(strings.Replace(validEvent, `"price_cents": 299, `, "", 1)), "events[0] (evt-000001)", "price_cents"},
		{"state as number", doc(withField("state", `3`)), "events[0]", "state"},
		{"missing events", `{"dataset_version": "v", "stores": [], "products": []}`, "", "events"},
		{"events not an array", `{"dataset_version": "v", "stores": [], "products": [], "events": {}}`, "", "events"},
		{"event not an object", doc(`[]`), "events[0]", ""},
		{"trailing data", doc(validEvent) + `{}`, "", ""},
		{"not an object", `[]`, "", ""},
		{"truncated", doc(validEvent)[:40], "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := retail.Load(strings.NewReader(tt.input))
			var le *retail.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Load() error = %v, want *LoadError", err)
			}
			if !errors.Is(err, retail.ErrInvalidStore) {
				t.Errorf("errors.Is(err, ErrInvalidStore) = false")
			}
			if le.Record != tt.wantRecord || le.Field != tt.wantField {
				t.Errorf("Load() error names (%q, %q), want (%q, %q): %v", le.Record, le.Field, tt.wantRecord, tt.wantField, err)
			}
		})
	}
}

// TestLoad_DoesNotEchoKeys keeps the file's own keys out of error
// messages: an unknown key is named by its position.
func TestLoad_DoesNotEchoKeys(t *testing.T) {
	const secret = "zz-secret-key"
	for _, in := range []string{
		doc(strings.Replace(validEvent, `"state"`, `"`+secret+`": 1, "state"`, 1)),
		`{"dataset_version": "v", "` + secret + `": 1}`,
		doc(strings.Replace(validEvent, `"state"`, `"`+secret+`": 1, "`+secret+`": 2, "state"`, 1)),
	} {
		_, err := retail.Load(strings.NewReader(in))
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("error %v echoes the key or is nil", err)
		}
	}
}

// TestLoad_DoesNotEchoValues keeps rejected values out of error messages.
func TestLoad_DoesNotEchoValues(t *testing.T) {
	const secret = "Robert'); DROP TABLE events;--"
	for _, field := range []string{"event_id", "store_id", "state", "timestamp", "compliance_flag"} {
		_, err := retail.Load(strings.NewReader(doc(withField(field, `"`+secret+`"`))))
		if err == nil || strings.Contains(err.Error(), "DROP") {
			t.Errorf("%s: error %v echoes the value or is nil", field, err)
		}
	}
}

// TestLoad_NameReasons: a name or category is refused with the reason that
// applies. Before, one over 200 bytes was "must be a non-empty string".
func TestLoad_NameReasons(t *testing.T) {
	long := `"` + strings.Repeat("n", 201) + `"`
	tests := []struct {
		name, input, wantReason string
	}{
		{"blank store name", strings.Replace(doc(validEvent), `"name": "Downtown"`, `"name": " "`, 1), "must be a non-empty string of at most 200 bytes"},
		{"long store name", strings.Replace(doc(validEvent), `"name": "Downtown"`, `"name": `+long, 1), "must be a non-empty string of at most 200 bytes"},
		{"long product name", strings.Replace(doc(validEvent), `"name": "Oat milk 1L"`, `"name": `+long, 1), "must be a non-empty string of at most 200 bytes"},
		{"long category", strings.Replace(doc(validEvent), `"category": "dairy"`, `"category": `+long, 1), "must be a non-empty string of at most 200 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := retail.Load(strings.NewReader(tt.input))
			var le *retail.LoadError
			if !errors.As(err, &le) || le.Reason != tt.wantReason {
				t.Errorf("Load() = %v, want a LoadError with reason %q", err, tt.wantReason)
			}
		})
	}
}
