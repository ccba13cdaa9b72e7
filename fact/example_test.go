package fact_test

import (
	"encoding/json"
	"fmt"

	"github.com/provenant/provenant/fact"
)

// A positive answer must name its events; a grounded zero carries an
// absence attestation instead. The constructors refuse anything else.
func ExampleNewResult() {
	events, _ := fact.Events([]string{"evt-000012", "evt-000003"})
	r, err := fact.NewResult("count_stores_with_condition", nil, fact.EntityCount("store_ids", []string{"st-002", "st-001"}), events)
	fmt.Println(err)
	b, _ := json.Marshal(r.Value)
	p, _ := json.Marshal(r.Provenance)
	fmt.Println(string(b), string(p))

	_, err = fact.Events(nil)
	fmt.Println(err)

	absent := fact.Absent(fact.Absence{Tool: "get_price", DatasetVersion: "v1"})
	_, err = fact.NewResult("get_price", nil, fact.Integer(299, "cents"), absent)
	fmt.Println(err)
	// Output:
	// <nil>
	// {"count":2,"store_ids":["st-001","st-002"]} {"event_ids":["evt-000003","evt-000012"]}
	// provenance needs at least one event
	// value and provenance disagree
}

func ExampleVerdict_OK() {
	v := fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: false}
	fmt.Println(v.OK())
	// Output: false
}

func ExampleNewTable() {
	tb, err := fact.NewTable([]fact.Column{
		{Name: "zone", Type: fact.CellText},
		{Name: "value", Type: fact.CellNumber, Unit: "share"},
	}, [][]fact.Cell{
		{fact.TextCell("zone-01"), fact.NumberCell(0.65625)},
		{fact.TextCell("zone-02"), fact.NullCell()},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := json.Marshal(fact.TableValue(tb))
	fmt.Println(string(b))
	// Output:
	// {"columns":[{"name":"zone","type":"text"},{"name":"value","type":"number","unit":"share"}],"rows":[["zone-01",0.65625],["zone-02",null]]}
}

// A governed metric's provenance names the compiled query its table came
// from, by the SQL's hash (never its text) and the tables it read, beside
// the events that contributed.
func ExampleProvenance_WithQuery() {
	events, _ := fact.Events([]string{"wh-evt-2", "wh-evt-1"})
	p, err := events.WithQuery(fact.Query{
		SQLHash: "7728b128108ef9d8983d8798c265a75926b142b5233dd105688dfb817f6328e9",
		Tables:  []string{"status_events"},
	})
	fmt.Println(err)
	b, _ := json.Marshal(p)
	fmt.Println(string(b))

	_, err = events.WithQuery(fact.Query{SQLHash: "not a hash", Tables: []string{"status_events"}})
	fmt.Println(err)
	// Output:
	// <nil>
	// {"event_ids":["wh-evt-1","wh-evt-2"],"query":{"sql_sha256":"7728b128108ef9d8983d8798c265a75926b142b5233dd105688dfb817f6328e9","tables":["status_events"]}}
	// query provenance needs a hash, a table and event or absence provenance
}
