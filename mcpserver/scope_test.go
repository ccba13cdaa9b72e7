package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// countingRecords counts the reads that reach the database.
type countingRecords struct {
	Records
	lookups int
}

func (c *countingRecords) Record(ctx context.Context, key string, scope tool.Scope) (shape.Record, bool, error) {
	c.lookups++
	return c.Records.Record(ctx, key, scope)
}

// limitedTo is the request extra of a principal whose token allows stores.
func limitedTo(stores ...string) *mcp.RequestExtra {
	return &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{Extra: map[string]any{pipeline.TokenInfoScopeKey: tool.StoresOnly(stores...)}}}
}

func demoHandlers(t testing.TB) (*handlers, *countingRecords, *retail.Dataset) {
	t.Helper()
	e := enginetest.OpenDemo(t, engine.Options{})
	ev := &countingRecords{Records: e}
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	return &handlers{p: e.Pipeline, records: ev}, ev, d
}

func firstEventOf(t testing.TB, d *retail.Dataset, store string) string {
	t.Helper()
	for _, e := range d.Events {
		if e.StoreID == store {
			return e.ID
		}
	}
	t.Fatalf("no event at %s", store)
	return ""
}

func readEventReq(id string, extra *mcp.RequestExtra) *mcp.ReadResourceRequest {
	return &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: eventURIPrefix + id}, Extra: extra}
}

// TestReadEvent_OutOfScopeIsMissing: for a caller limited to some stores,
// an event of another store and an id that does not exist take the same
// path: one query with the caller's scope in it, which finds nothing, and
// the same error. Structural, not timed.
func TestReadEvent_OutOfScopeIsMissing(t *testing.T) {
	h, ev, d := demoHandlers(t)
	extra := limitedTo("st-003")
	tests := []struct {
		name        string
		id          string
		wantFound   bool
		wantLookups int
	}{
		{"another store's event", firstEventOf(t, d, "st-004"), false, 1},
		{"an id that does not exist", "evt-999999", false, 1},
		{"an id past the last", "evt-" + "004001", false, 1},
		{"an event in scope", firstEventOf(t, d, "st-003"), true, 1},
		{"an empty key", "", false, 0},
		{"a key with a path", "evt-000001/x", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := ev.lookups
			res, err := h.readEvent(t.Context(), readEventReq(tt.id, extra))
			if got := ev.lookups - before; got != tt.wantLookups {
				t.Errorf("%d store lookups, want %d", got, tt.wantLookups)
			}
			if tt.wantFound {
				if err != nil || res == nil {
					t.Fatalf("readEvent = %v, %v", res, err)
				}
				return
			}
			if err != errNotFound {
				t.Errorf("readEvent error = %v, want the one not-found error", err)
			}
		})
	}
	t.Run("the local user reads any store", func(t *testing.T) {
		if _, err := h.readEvent(t.Context(), readEventReq(firstEventOf(t, d, "st-004"), nil)); err != nil {
			t.Errorf("readEvent = %v", err)
		}
	})
}

// TestReadDataset_Scoped: everything a limited caller sees is computed
// over its own stores: the event count and the time span.
func TestReadDataset_Scoped(t *testing.T) {
	h, _, d := demoHandlers(t)
	span := func(stores ...string) (n int, first, last string, seen int) {
		at := map[string]bool{}
		for _, e := range d.Events {
			for _, s := range stores {
				if e.StoreID == s {
					if !at[s] {
						at[s] = true
						seen++
					}
					n++
					if first == "" || e.Timestamp < first {
						first = e.Timestamp
					}
					if e.Timestamp > last {
						last = e.Timestamp
					}
				}
			}
		}
		return n, first, last, seen
	}
	tests := []struct {
		name   string
		stores []string
	}{
		{"one store", []string{"st-003"}},
		{"two stores", []string{"st-001", "st-004"}},
		{"no store", nil},
		{"an unknown store", []string{"st-999"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := h.readDataset(t.Context(), &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: DatasetURI}, Extra: limitedTo(tt.stores...)})
			if err != nil {
				t.Fatal(err)
			}
			var env struct {
				Data json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal([]byte(res.Contents[0].Text), &env); err != nil {
				t.Fatal(err)
			}
			n, first, last, stores := span(tt.stores...)
			var sum shape.Summary
			if err := json.Unmarshal(env.Data, &sum); err != nil {
				t.Fatal(err)
			}
			if len(sum.Datasets) != 1 {
				t.Fatalf("dataset = %s, want one dataset", env.Data)
			}
			got := sum.Datasets[0]
			if got.Rows != int64(n) || got.First != first || got.Last != last || got.Entities["store"] != stores {
				t.Errorf("dataset = %s, want %d events from %q to %q at %d stores", env.Data, n, first, last, stores)
			}
			if want := len(tt.stores); sum.Scope == nil || len(*sum.Scope) != want {
				t.Errorf("scope = %v, want the caller's %d stores", sum.Scope, want)
			}
		})
	}
}

// BenchmarkReadEvent_Scoped compares the two paths a limited caller
// cannot tell apart: another store's event and an id that does not exist.
//
//	go test -run XXX -bench ReadEvent_Scoped ./mcpserver/
func BenchmarkReadEvent_Scoped(b *testing.B) {
	h, _, d := demoHandlers(b)
	extra := limitedTo("st-003")
	for _, bb := range []struct{ name, id string }{
		{"another_store", firstEventOf(b, d, "st-004")},
		{"missing", "evt-999999"},
	} {
		b.Run(bb.name, func(b *testing.B) {
			req := readEventReq(bb.id, extra)
			for b.Loop() {
				if _, err := h.readEvent(b.Context(), req); err != errNotFound {
					b.Fatal(err)
				}
			}
		})
	}
}
