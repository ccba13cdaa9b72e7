package fact_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/fact"
)

func metricTable(t *testing.T, rows ...[]fact.Cell) *fact.Table {
	t.Helper()
	tb, err := fact.NewTable([]fact.Column{
		{Name: "zone", Type: fact.CellText},
		{Name: "bucket", Type: fact.CellInstant},
		{Name: "value", Type: fact.CellNumber, Unit: "share"},
	}, rows)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestTable_MarshalJSON(t *testing.T) {
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	tb := metricTable(t,
		[]fact.Cell{fact.TextCell("zone-01"), fact.InstantCell(day), fact.NumberCell(0.65625)},
		[]fact.Cell{fact.NullCell(), fact.InstantCell(day.In(time.FixedZone("x", 3600))), fact.NullCell()},
		[]fact.Cell{fact.TextCell("zone-02"), fact.InstantCell(day), fact.NumberCell(math.Copysign(0, -1))},
	)
	b, err := json.Marshal(fact.TableValue(tb))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"columns":[{"name":"zone","type":"text"},{"name":"bucket","type":"instant"},{"name":"value","type":"number","unit":"share"}],` +
		`"rows":[["zone-01","2026-01-05T00:00:00Z",0.65625],[null,"2026-01-05T00:00:00Z",null],["zone-02","2026-01-05T00:00:00Z",0]]}`
	if string(b) != want {
		t.Errorf("MarshalJSON\n%s\nwant\n%s", b, want)
	}
	empty, _ := json.Marshal(fact.TableValue(metricTable(t)))
	if got := `{"columns":[{"name":"zone","type":"text"},{"name":"bucket","type":"instant"},{"name":"value","type":"number","unit":"share"}],"rows":[]}`; string(empty) != got {
		t.Errorf("empty table = %s", empty)
	}
}

func TestNewTable_Refuses(t *testing.T) {
	num := fact.Column{Name: "v", Type: fact.CellNumber}
	tests := []struct {
		name string
		cols []fact.Column
		rows [][]fact.Cell
		want error
	}{
		{"no column", nil, nil, fact.ErrBadTable},
		{"unnamed column", []fact.Column{{Type: fact.CellText}}, nil, fact.ErrBadTable},
		{"repeated column", []fact.Column{num, num}, nil, fact.ErrBadTable},
		{"unknown type", []fact.Column{{Name: "v", Type: "blob"}}, nil, fact.ErrBadTable},
		{"short row", []fact.Column{num, {Name: "w", Type: fact.CellText}}, [][]fact.Cell{{fact.NumberCell(1)}}, fact.ErrBadTable},
		{"NaN", []fact.Column{num}, [][]fact.Cell{{fact.NumberCell(math.NaN())}}, fact.ErrNotFinite},
		{"infinity", []fact.Column{num}, [][]fact.Cell{{fact.NumberCell(math.Inf(1))}}, fact.ErrNotFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := fact.NewTable(tt.cols, tt.rows); !errors.Is(err, tt.want) {
				t.Errorf("NewTable = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestTable_ZeroEqualAndResult(t *testing.T) {
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	zeros := metricTable(t, []fact.Cell{fact.TextCell("zone-01"), fact.InstantCell(day), fact.NumberCell(0)},
		[]fact.Cell{fact.TextCell("zone-02"), fact.InstantCell(day), fact.NullCell()})
	some := metricTable(t, []fact.Cell{fact.TextCell("zone-01"), fact.InstantCell(day), fact.NumberCell(0.5)})
	if !fact.TableValue(zeros).IsZero() || !fact.TableValue(metricTable(t)).IsZero() || fact.TableValue(some).IsZero() {
		t.Error("IsZero: want true for zeros and nulls and for no rows, false for a non-zero number")
	}
	other := metricTable(t, []fact.Cell{fact.TextCell("zone-01"), fact.InstantCell(day), fact.NumberCell(0.5000001)})
	if !fact.TableValue(some).Equal(fact.TableValue(metricTable(t, []fact.Cell{fact.TextCell("zone-01"), fact.InstantCell(day), fact.NumberCell(0.5)}))) ||
		fact.TableValue(some).Equal(fact.TableValue(other)) || fact.TableValue(some).Equal(fact.TableValue(zeros)) {
		t.Error("Equal: want equal cells equal and any other difference unequal")
	}
	events, _ := fact.Events([]string{"e1"})
	absent := fact.Absent(fact.Attest("query_metric", nil, "v1"))
	// A table of zeros may rest on rows or on none; any other number needs rows.
	for _, c := range []struct {
		name string
		v    *fact.Table
		p    fact.Provenance
		ok   bool
	}{
		{"zeros over rows", zeros, events, true},
		{"zeros over none", zeros, absent, true},
		{"a value over rows", some, events, true},
		{"a value over none", some, absent, false},
	} {
		if _, err := fact.NewResult("query_metric", nil, fact.TableValue(c.v), c.p); (err == nil) != c.ok {
			t.Errorf("%s: NewResult = %v, want ok=%t", c.name, err, c.ok)
		}
	}
}

func TestRan(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	p, err := fact.Ran(fact.Statement{SQLHash: hash, Tables: []string{"events"}, RowsProcessed: 12, ReExecuted: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"statement":{"sql_sha256":"` + hash + `","tables":["events"],"rows_processed":12,"re_executed":true,"independently_rederived":false}}`
	if string(b) != want {
		t.Errorf("JSON = %s, want %s", b, want)
	}
	if _, absent := p.Absence(); absent || p.NumEvents() != 0 || p.EventDigest() != "" {
		t.Errorf("statement provenance reads as events or an absence")
	}
	tab, _ := fact.NewTable([]fact.Column{{Name: "n", Type: fact.CellNumber}}, [][]fact.Cell{{fact.NumberCell(3)}})
	if _, err := fact.NewResult("query_sql", nil, fact.TableValue(tab), p); err != nil {
		t.Errorf("NewResult(table, statement) = %v", err)
	}
	if _, err := fact.NewResult("query_sql", nil, fact.Integer(3, ""), p); err == nil {
		t.Error("NewResult accepted a scalar resting on a statement")
	}
	for _, bad := range []fact.Statement{{SQLHash: "x", Tables: []string{"events"}}, {SQLHash: hash}, {SQLHash: strings.ToUpper(hash), Tables: []string{"e"}}} {
		if _, err := fact.Ran(bad); !errors.Is(err, fact.ErrBadStatement) {
			t.Errorf("Ran(%+v) = %v, want ErrBadStatement", bad, err)
		}
	}
}
