package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/sandbox"
	"github.com/provenant/provenant/tool"
)

// fakeRunner is a sandbox runner over scripted outcomes: a statement it
// knows gives its result; any other is a sql_error.
type fakeRunner map[string]sandbox.Result

func (f fakeRunner) Run(_ context.Context, stmt string) (sandbox.Result, error) {
	if r, ok := f[stmt]; ok {
		return r, nil
	}
	return sandbox.Result{Outcome: sandbox.OutcomeError, Rejection: &sandbox.Rejection{Layer: sandbox.LayerSandbox, Class: sandbox.ClassSQLError, Kind: "execution", Position: sandbox.NoPosition}}, nil
}

// A free SQL statement the sandbox stops is repaired like a metric call:
// the message carries the failing SQL, the repaired statement runs in the
// sandbox, and the answer, tagged ungoverned, lists the attempt; the log
// line has its class.
func TestRepair_FreeSQL(t *testing.T) {
	const (
		bad  = "SELECT count(*) FROM stores WHERE password='hunter2xyz'"
		good = "SELECT count(*) AS n FROM stores"
	)
	reg, err := tool.NewRegistry([]tool.Def{{Name: "query_sql", Description: "free SQL", Value: fact.KindTable, Class: "free_sql",
		Params: []tool.Param{{Name: "sql", Kind: tool.Statement, MaxBytes: 8192}}}}, "store")
	if err != nil {
		t.Fatal(err)
	}
	runner := fakeRunner{
		good:                   {Outcome: sandbox.OutcomeOK, Columns: []string{"n"}, Types: []string{"BIGINT"}, Rows: [][]any{{float64(7)}}, RowsProcessed: 7},
		"SELECT 1 WHERE false": {Outcome: sandbox.OutcomeOK, Columns: []string{"x"}, Types: []string{"INTEGER"}},
	}
	tests := []struct {
		name      string
		first     string
		repairs   []string
		wantClass []answer.ReasonKind
		wantOut   answer.Outcome
	}{
		{"sql_error repaired", bad, []string{good}, []answer.ReasonKind{answer.ReasonSQLError}, answer.Answered},
		{"empty_result repaired", "SELECT 1 WHERE false", []string{good}, []answer.ReasonKind{answer.ReasonEmptyResult}, answer.Answered},
		{"exhausted", bad, []string{bad + " ", bad + "  "}, []answer.ReasonKind{answer.ReasonSQLError, answer.ReasonSQLError}, answer.Rejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sqlProp := func(s string) tool.Proposal {
				return tool.Proposal{Tool: "query_sql", Params: map[string]any{"sql": s}}
			}
			prov := &repairing{first: sqlProp(tt.first)}
			for _, r := range tt.repairs {
				prov.repairs = append(prov.repairs, sqlProp(r))
			}
			var logs bytes.Buffer
			p := pipeline.New(prov, tool.NewWall(reg, nil), metricExec{}, okResolver{}, &pipeline.Options{
				ResultIDs: &ledger.Sequence{}, Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
				FreeSQL: &pipeline.FreeSQL{Tool: "query_sql", Runner: runner, Tables: []string{"stores"}},
				Repair:  &pipeline.Repair{Retries: 2},
			})
			a := p.Ask(t.Context(), "how many stores?")
			if a.Outcome() != tt.wantOut {
				t.Fatalf("outcome %s %q", a.Outcome(), a.Reason())
			}
			if got := classes(a); len(got) != len(tt.wantClass) || got[0] != tt.wantClass[0] {
				t.Errorf("attempts %v, want %v", got, tt.wantClass)
			}
			if tt.wantOut == answer.Answered && a.Governance() != answer.Ungoverned {
				t.Errorf("a repaired free SQL answer is not tagged ungoverned")
			}
			msg := prov.seen[0].Message
			if !strings.Contains(msg, "Failing SQL:\n"+strings.ReplaceAll(tt.first, "hunter2xyz", "")[:20]) {
				t.Errorf("message lacks the failing SQL:\n%s", msg)
			}
			if strings.Contains(msg, "hunter2xyz") {
				t.Errorf("message holds a secret:\n%s", msg)
			}
			var line map[string]any
			if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			got, _ := line[pipeline.KeyRepairAttempts].([]any)
			if len(got) != len(tt.wantClass) || got[0] != string(tt.wantClass[0]) {
				t.Errorf("log line's %s = %v, want %v", pipeline.KeyRepairAttempts, line[pipeline.KeyRepairAttempts], tt.wantClass)
			}
		})
	}
}

// A client's own free SQL statement the sandbox stops, or one that
// returns no row, is a rejection with its class and the repair advice:
// the allowlisted tables as the catalog, the tool as the selection, and
// never the statement.
func TestRepair_FreeSQLClientCall(t *testing.T) {
	reg, err := tool.NewRegistry([]tool.Def{{Name: "query_sql", Description: "free SQL", Value: fact.KindTable, Class: "free_sql",
		Params: []tool.Param{{Name: "sql", Kind: tool.Statement, MaxBytes: 8192}}}}, "store")
	if err != nil {
		t.Fatal(err)
	}
	denied := sandbox.Result{Outcome: sandbox.OutcomeRejected, Rejection: &sandbox.Rejection{Layer: sandbox.LayerAllowlist, Class: sandbox.ClassPermissionDenied, Kind: "table_function", Position: 14}}
	runner := fakeRunner{
		"SELECT * FROM read_csv('/etc/passwd')": denied,
		"SELECT 1 WHERE false":                  {Outcome: sandbox.OutcomeOK, Columns: []string{"x"}, Types: []string{"INTEGER"}},
	}
	p := pipeline.New(fakeProvider{}, tool.NewWall(reg, nil), metricExec{}, okResolver{}, &pipeline.Options{
		ResultIDs: &ledger.Sequence{},
		FreeSQL:   &pipeline.FreeSQL{Tool: "query_sql", Runner: runner, Tables: []string{"events", "stores"}},
		Repair:    &pipeline.Repair{Retries: 2},
	})
	for _, tt := range []struct {
		stmt  string
		class answer.ReasonKind
	}{
		{"SELECT * FROM read_csv('/etc/passwd')", answer.ReasonPermissionDenied},
		{"SELECT 1 WHERE false", answer.ReasonEmptyResult},
		{"SELECT nonsense_column_q FROM stores", answer.ReasonSQLError},
	} {
		a := p.Call(t.Context(), tool.Proposal{Tool: "query_sql", Params: map[string]any{"sql": tt.stmt}})
		adv, ok := a.Advice()
		if a.Outcome() != answer.Rejected || a.Reason().Kind != tt.class || !ok || adv.Class != tt.class ||
			adv.Selection.Tool != "query_sql" || adv.Catalog != "allowlisted tables: events, stores" {
			t.Errorf("%q: %s %q, advice %+v", tt.stmt, a.Outcome(), a.Reason(), adv)
		}
		raw, _ := json.Marshal(a)
		for _, never := range []string{"passwd", "read_csv", "nonsense_column_q", "WHERE false"} {
			if strings.Contains(string(raw), never) {
				t.Errorf("%q: the answer repeats %q: %s", tt.stmt, never, raw)
			}
		}
	}
}
