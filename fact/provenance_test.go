package fact_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/fact"
)

func TestEventsInPart(t *testing.T) {
	hex := strings.Repeat("0a", 32)
	for _, tt := range []struct {
		name   string
		first  []string
		total  int
		digest string
		ok     bool
	}{
		{"sha-256", []string{"a", "b"}, 3, hex, true},
		{"lthash", []string{"a", "b"}, 3, fact.LtHashScheme + hex, true},
		{"other scheme", []string{"a", "b"}, 3, "sum64:" + hex, false},
		{"short", []string{"a", "b"}, 3, fact.LtHashScheme + hex[:62], false},
		{"upper case", []string{"a", "b"}, 3, strings.ToUpper(hex), false},
		{"no more than listed", []string{"a", "b"}, 2, hex, false},
		{"unsorted", []string{"b", "a"}, 3, hex, false},
		{"repeated", []string{"a", "a"}, 3, hex, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := fact.EventsInPart(tt.first, tt.total, tt.digest)
			if tt.ok {
				if err != nil || p.EventDigest() != tt.digest || p.NumEvents() != tt.total {
					t.Errorf("EventsInPart: %v, digest %s, count %d", err, p.EventDigest(), p.NumEvents())
				}
			} else if !errors.Is(err, fact.ErrBadPage) {
				t.Errorf("EventsInPart: %v, want ErrBadPage", err)
			}
		})
	}
}

func TestProvenance_WithQuery(t *testing.T) {
	hash := strings.Repeat("0a", 32)
	events, err := fact.Events([]string{"b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	part, err := fact.EventsInPart([]string{"a", "b"}, 3, hash)
	if err != nil {
		t.Fatal(err)
	}
	absent := fact.Absent(fact.Absence{Tool: "query_metric", DatasetVersion: "seq:9"})
	ran, err := fact.Ran(fact.Statement{SQLHash: hash, Tables: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	q := fact.Query{SQLHash: hash, Tables: []string{"devices", "status_events"}}
	for _, tt := range []struct {
		name string
		p    fact.Provenance
		q    fact.Query
		json string // "" when refused
	}{
		{"events", events, q, `{"event_ids":["a","b"],"query":{"sql_sha256":"` + hash + `","tables":["devices","status_events"]}}`},
		{"in part", part, q, `{"event_ids":["a","b"],"event_count":3,"event_digest":"` + hash + `","query":{"sql_sha256":"` + hash + `","tables":["devices","status_events"]}}`},
		{"absence", absent, q, `{"absence":{"tool":"query_metric","filter":null,"window":null,"dataset_version":"seq:9","enumerated_count":0},"query":{"sql_sha256":"` + hash + `","tables":["devices","status_events"]}}`},
		{"a statement", ran, q, ""},
		{"no table", events, fact.Query{SQLHash: hash}, ""},
		{"short hash", events, fact.Query{SQLHash: hash[:62], Tables: q.Tables}, ""},
		{"upper case", events, fact.Query{SQLHash: strings.ToUpper(hash), Tables: q.Tables}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.p.WithQuery(tt.q)
			if tt.json == "" {
				if !errors.Is(err, fact.ErrBadQuery) {
					t.Errorf("WithQuery: %v, want ErrBadQuery", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.json {
				t.Errorf("JSON %s\nwant %s", b, tt.json)
			}
			back, ok := got.Query()
			if !ok || back.SQLHash != tt.q.SQLHash || !slices.Equal(back.Tables, tt.q.Tables) {
				t.Errorf("Query() = %+v, %t", back, ok)
			}
			// The caller's slice is not shared.
			back.Tables[0] = "x"
			if again, _ := got.Query(); again.Tables[0] != tt.q.Tables[0] {
				t.Error("Query() shares its tables")
			}
			if _, ok := tt.p.Query(); ok {
				t.Error("WithQuery changed its receiver")
			}
		})
	}
	// An absence's enumerated count keeps the query.
	p, err := absent.WithQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.WithEnumeratedCount(2).Query(); !ok {
		t.Error("WithEnumeratedCount dropped the query")
	}
}
