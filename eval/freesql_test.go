package eval_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/eval"
	"github.com/provenant/provenant/fact"
	sqlscript "github.com/provenant/provenant/provider/scripted"
	sandboxdb "github.com/provenant/provenant/sandbox/duckdb"
)

// workerEnv makes this test binary, re-executed, the sandbox worker: the
// path cmd/provenant takes with its hidden sql-worker subcommand.
const workerEnv = "PROVENANT_EVAL_TEST_WORKER=1"

func TestMain(m *testing.M) {
	if os.Getenv("PROVENANT_EVAL_TEST_WORKER") == "1" {
		if err := sandboxdb.ServeWorker(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	enginetest.CloseDemoSnapshot()
	os.Exit(code)
}

// TestRunFreeSQL_RetailGolden runs the retail free SQL suite as `eval
// --free-sql` does, over the real sandbox: the governed gold set on the
// engine with free SQL on, the suite with free SQL off (the governed menu
// answers none of it) and on (every item answered, tagged ungoverned,
// with the table the Go loops computed), and pins the report's table.
func TestRunFreeSQL_RetailGolden(t *testing.T) {
	suite, err := eval.LoadFreeSQLSuite("retail")
	if err != nil {
		t.Fatal(err)
	}
	gold, err := eval.DefaultGold()
	if err != nil {
		t.Fatal(err)
	}
	off := enginetest.OpenDemo(t, engine.Options{})
	on := enginetest.OpenDemo(t, engine.Options{
		Provider: sqlscript.New(sqlscript.Script{SQL: suite.Script()}, nil),
		FreeSQL:  enginetest.DemoFreeSQL(t, []string{os.Args[0]}, []string{workerEnv}, nil),
	})
	governed, err := eval.Run(t.Context(), on.Pipeline, gold, on)
	if err != nil {
		t.Fatal(err)
	}
	r, err := eval.RunFreeSQL(t.Context(), off.Pipeline, on.Pipeline, suite, governed)
	if err != nil {
		t.Fatal(err)
	}
	if r.Governed.Correct != r.Governed.Items || r.Ungoverned.Correct != len(suite.Items) || r.GovernedOnly.Correct != 0 || r.WrongAnswers != 0 {
		t.Errorf("report: governed %+v, governed only %+v, ungoverned %+v, wrong %d", r.Governed, r.GovernedOnly, r.Ungoverned, r.WrongAnswers)
	}
	for _, row := range r.Items {
		if row.Off != answer.Abstained || row.Governance != answer.Ungoverned {
			t.Errorf("%s: off %s, governance %q; want abstained with free SQL off and ungoverned with it on", row.ID, row.Off, row.Governance)
		}
	}
	var buf bytes.Buffer
	if err := eval.WriteFreeSQLTable(&buf, r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "freesql-retail.golden")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("report table differs from %s (-update to rewrite):\n%s", path, buf.String())
	}
}

// fixedAsker answers every question with one answer.
type fixedAsker struct{ a answer.Answer }

func (f fixedAsker) Ask(context.Context, string) answer.Answer { return f.a }

// TestRunFreeSQL_Scoring: an answer counts only when it is tagged
// ungoverned and carries the expected table; a wrong table is a wrong
// answer shipped; a rejection carries its class.
func TestRunFreeSQL_Scoring(t *testing.T) {
	suite, err := eval.ParseFreeSQL(strings.NewReader(`suite_version: "t.1"
catalog: retail
dataset_version: v
items:
  - id: n
    question: "How many?"
    sql: "SELECT 7 AS n"
    expect: {columns: [n], rows: [[7]]}
`))
	if err != nil {
		t.Fatal(err)
	}
	table := func(x float64) *fact.Table {
		tb, err := fact.NewTable([]fact.Column{{Name: "n", Type: fact.CellNumber}}, [][]fact.Cell{{fact.NumberCell(x)}})
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	staple := func(x float64, prov fact.Provenance) answer.Answer {
		r, err := fact.NewResult("query_sql", nil, fact.TableValue(table(x)), prov)
		if err != nil {
			t.Fatal(err)
		}
		s := "n"
		a, err := answer.Staple(r, fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true}, &s, "res-1")
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	ran, err := fact.Ran(fact.Statement{SQLHash: strings.Repeat("a", 64), Tables: []string{"events"}, ReExecuted: true})
	if err != nil {
		t.Fatal(err)
	}
	events, err := fact.Events([]string{"ev-1"})
	if err != nil {
		t.Fatal(err)
	}
	abstain := fixedAsker{answer.Abstain(answer.ReasonNoTool, "")}
	tests := []struct {
		name    string
		on      answer.Answer
		correct bool
		wrong   int
		class   string
	}{
		{"right table, ungoverned", staple(7, ran), true, 0, ""},
		{"within tolerance", staple(7+1e-12, ran), true, 0, ""},
		{"wrong table", staple(8, ran), false, 1, ""},
		{"right table, but governed", staple(7, events), false, 0, ""},
		{"rejected", answer.RejectStatement("query_sql", answer.ReasonBudgetExceeded, "x"), false, 0, "budget_exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := eval.RunFreeSQL(t.Context(), abstain, fixedAsker{tt.on}, suite, eval.Report{})
			if err != nil {
				t.Fatal(err)
			}
			row := r.Items[0]
			if row.Correct != tt.correct || r.WrongAnswers != tt.wrong || row.Class != tt.class {
				t.Errorf("row %+v, wrong answers %d; want correct %t, wrong %d, class %q", row, r.WrongAnswers, tt.correct, tt.wrong, tt.class)
			}
		})
	}
}

func TestParseFreeSQL_Errors(t *testing.T) {
	head := "suite_version: \"t.1\"\ncatalog: retail\ndataset_version: v\nitems:\n"
	for name, src := range map[string]string{
		"unknown key":    head + "  - {id: a, question: q, sql: SELECT 1, expect: {columns: [n], rows: [[1]]}, sq: x}\n",
		"duplicate id":   head + "  - {id: a, question: q, sql: SELECT 1, expect: {columns: [n], rows: [[1]]}}\n  - {id: a, question: q, sql: SELECT 1, expect: {columns: [n], rows: [[1]]}}\n",
		"no sql":         head + "  - {id: a, question: q, expect: {columns: [n], rows: [[1]]}}\n",
		"ragged row":     head + "  - {id: a, question: q, sql: SELECT 1, expect: {columns: [n], rows: [[1, 2]]}}\n",
		"no items":       "suite_version: \"t.1\"\ncatalog: retail\ndataset_version: v\n",
		"sql over bound": head + "  - {id: a, question: q, sql: \"SELECT " + strings.Repeat("1", 8200) + "\", expect: {columns: [n], rows: [[1]]}}\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := eval.ParseFreeSQL(strings.NewReader(src)); err == nil {
				t.Error("ParseFreeSQL accepted it")
			}
		})
	}
}
