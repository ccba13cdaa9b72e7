package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider/scripted"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/sandbox"
	sandboxdb "github.com/provenant/provenant/sandbox/duckdb"
	"github.com/provenant/provenant/shape"
)

// workerEnv makes this test binary, re-executed, the sandbox worker: the
// path cmd/provenant takes with its hidden sql-worker subcommand.
const workerEnv = "PROVENANT_PIPELINE_TEST_WORKER=1"

func TestMain(m *testing.M) {
	if os.Getenv("PROVENANT_PIPELINE_TEST_WORKER") == "1" {
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

// freeSQLEngine opens the demo engine with free SQL on: the scripted
// instrument proposes script's statements, the real sandbox runs them in
// worker processes (this binary), two kept warm.
func freeSQLEngine(t *testing.T, script scripted.Script, limits sandbox.Limits, logs *bytes.Buffer, obs pipeline.Observer) *engine.Engine {
	t.Helper()
	return enginetest.OpenDemo(t, engine.Options{
		Provider:  scripted.New(script, nil),
		Logger:    slog.New(slog.NewJSONHandler(logs, nil)),
		Observer:  obs,
		ResultIDs: &ledger.Sequence{},
		FreeSQL: enginetest.DemoFreeSQL(t, []string{os.Args[0]}, []string{workerEnv},
			&sandboxdb.Options{Limits: limits, Logger: slog.New(slog.NewJSONHandler(logs, nil))}),
	})
}

// The questions of this file, none of which a governed tool covers.
const (
	qBusiest   = "Which store had the most distinct products scanned, and how many?"
	qMaxPrice  = "What is the highest price ever scanned, in cents?"
	qFabricate = "What is the highest price ever scanned, in cents, please?"
)

// TestFreeSQL_DemoAnswers runs scripted statements through the real
// sandbox on the demo data and checks every answer against a plain Go
// computation over the demo store: the value, the ungoverned tag, the
// statement provenance, and that the statement's text is in no answer.
func TestFreeSQL_DemoAnswers(t *testing.T) {
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	// The expected values, computed independently of any SQL.
	distinct := map[string]map[string]bool{}
	var maxPrice int64
	for _, e := range d.Events {
		if distinct[e.StoreID] == nil {
			distinct[e.StoreID] = map[string]bool{}
		}
		distinct[e.StoreID][e.ProductID] = true
		maxPrice = max(maxPrice, e.PriceCents)
	}
	bestStore, best := "", 0
	for s, ps := range distinct {
		if len(ps) > best || len(ps) == best && s < bestStore {
			bestStore, best = s, len(ps)
		}
	}

	script := scripted.Script{SQL: map[string]string{
		qBusiest:  "SELECT store_id, count(DISTINCT product_id) AS products FROM events GROUP BY store_id ORDER BY products DESC, store_id LIMIT 1",
		qMaxPrice: "SELECT max(price_cents) AS max_price FROM events",
	}}
	var logs bytes.Buffer
	e := freeSQLEngine(t, script, sandbox.Limits{}, &logs, nil)
	if _, ok := e.Registry.Lookup(shape.QuerySQL); !ok {
		t.Fatal("query_sql is not on the menu of an engine with free SQL")
	}
	tests := []struct {
		question string
		want     [][]any // the table's rows: text or float64 cells
	}{
		{qBusiest, [][]any{{bestStore, float64(best)}}},
		{qMaxPrice, [][]any{{float64(maxPrice)}}},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			a := e.Pipeline.Ask(t.Context(), tt.question)
			if a.Outcome() != answer.Answered {
				t.Fatalf("outcome = %s (%s), want answered", a.Outcome(), a.Reason())
			}
			if a.Governance() != answer.Ungoverned {
				t.Errorf("governance = %q, want ungoverned", a.Governance())
			}
			v, _ := a.Value()
			if v.Kind != fact.KindTable || len(v.Table.Rows) != len(tt.want) {
				t.Fatalf("value = %+v, want a table of %d rows", v, len(tt.want))
			}
			for i, row := range tt.want {
				for j, want := range row {
					c := v.Table.Rows[i][j]
					var got any = c.Text
					if v.Table.Columns[j].Type == fact.CellNumber {
						got = c.Num
					}
					if got != want {
						t.Errorf("cell [%d][%d] = %v, want %v", i, j, got, want)
					}
				}
			}
			p, _ := a.Provenance()
			st, ok := p.Statement()
			if !ok || !st.ReExecuted || st.IndependentlyRederived || st.SQLHash != sandboxdb.Hash(script.SQL[tt.question]) {
				t.Errorf("provenance = %+v, want the statement's hash, re-executed, not independently re-derived", st)
			}
			b, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"governance":"ungoverned"`, `"re_executed":true`, `"independently_rederived":false`} {
				if !strings.Contains(string(b), want) {
					t.Errorf("answer JSON lacks %s: %s", want, b)
				}
			}
			if strings.Contains(string(b), "FROM events") {
				t.Errorf("answer JSON carries the statement: %s", b)
			}
		})
	}
	// A governed question on the same engine is governed: no tag.
	a := e.Pipeline.Ask(t.Context(), "How many stores have condition OUT_OF_STOCK as of 2026-01-06T08:00:00Z?")
	if a.Outcome() != answer.Answered && a.Outcome() != answer.Absence || a.Governance() != "" {
		t.Errorf("governed question: outcome %s governance %q", a.Outcome(), a.Governance())
	}
	if b, _ := json.Marshal(a); strings.Contains(string(b), "governance") {
		t.Errorf("a governed answer carries a governance key: %s", b)
	}
}

// TestFreeSQL_StoppedStatements: a statement a provider proposes that the
// sandbox stops, or that returns nothing, is a rejection with its failure
// class, recorded in the pipeline's record; neither the answer nor the
// log line carries its text, and the log keeps its hash.
func TestFreeSQL_StoppedStatements(t *testing.T) {
	tests := []struct {
		name, stmt string
		class      answer.ReasonKind
	}{
		{"file reader", "SELECT * FROM read_csv('/etc/passwd')", answer.ReasonPermissionDenied},
		{"a table outside the allowlist", "SELECT * FROM duckdb_settings()", answer.ReasonPermissionDenied},
		{"a write", "DROP TABLE events", answer.ReasonPermissionDenied},
		{"two statements", "SELECT 1; DELETE FROM events", answer.ReasonPermissionDenied},
		{"not SQL", "SELEC store_id FROM stores", answer.ReasonSchemaViolation},
		{"an unknown column", "SELECT secret_column FROM events", answer.ReasonSchemaViolation},
		{"a failing cast", "SELECT CAST(store_id AS INTEGER) AS n FROM stores", answer.ReasonSQLError},
		{"no row", "SELECT store_id FROM stores WHERE store_id = 'st-999'", answer.ReasonEmptyResult},
		{"over the row budget", "SELECT count(*) AS n FROM events a, events b", answer.ReasonBudgetExceeded},
	}
	script := scripted.Script{SQL: map[string]string{}}
	for i, tt := range tests {
		script.SQL[fmt.Sprintf("free question %d", i)] = tt.stmt
	}
	var logs bytes.Buffer
	rec := &recorder{}
	e := freeSQLEngine(t, script, sandbox.Limits{}, &logs, rec)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs.Reset()
			a := e.Pipeline.Ask(t.Context(), fmt.Sprintf("free question %d", i))
			if a.Outcome() != answer.Rejected || a.Reason().Kind != tt.class {
				t.Fatalf("answer = %s %q, want rejected %s", a.Outcome(), a.Reason(), tt.class)
			}
			last := rec.recs[len(rec.recs)-1]
			if last.FailureClass != string(tt.class) || last.Tool != shape.QuerySQL {
				t.Errorf("record = %+v, want failure class %s of %s", last, tt.class, shape.QuerySQL)
			}
			b, _ := json.Marshal(a)
			if strings.Contains(string(b), tt.stmt) || strings.Contains(logs.String(), tt.stmt) {
				t.Errorf("the statement is echoed:\nanswer %s\nlog %s", b, logs.String())
			}
			if !strings.Contains(logs.String(), sandboxdb.Hash(tt.stmt)) {
				t.Errorf("the log lacks the statement's hash:\n%s", logs.String())
			}
			if !strings.Contains(logs.String(), `"failure_class":"`+string(tt.class)+`"`) {
				t.Errorf("the log line lacks the failure class:\n%s", logs.String())
			}
		})
	}
}

// TestFreeSQL_Grounding: an ungoverned table enters the ledger like any
// other result, so a sentence citing a number the statement did not
// return is refused (and replaced by the code's sentence), and one citing
// the returned number passes.
func TestFreeSQL_Grounding(t *testing.T) {
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	var maxPrice int64
	for _, e := range d.Events {
		maxPrice = max(maxPrice, e.PriceCents)
	}
	stmt := "SELECT max(price_cents) AS max_price FROM events"
	script := scripted.Script{
		SQL: map[string]string{qMaxPrice: stmt, qFabricate: stmt},
		Sentences: map[string]string{
			// A statement's numbers carry no unit (nothing but the
			// statement says what they measure): cited bare.
			qMaxPrice:  fmt.Sprintf("The highest price scanned was %d.", maxPrice),
			qFabricate: fmt.Sprintf("The highest price scanned was %d.", maxPrice+1),
		},
	}
	var logs bytes.Buffer
	rec := &recorder{}
	e := freeSQLEngine(t, script, sandbox.Limits{}, &logs, rec)
	for _, tt := range []struct {
		question, grounding string
		kept                bool
	}{
		{qMaxPrice, "pass", true},
		{qFabricate, "refused", false},
	} {
		t.Run(tt.grounding, func(t *testing.T) {
			a := e.Pipeline.Ask(t.Context(), tt.question)
			if a.Outcome() != answer.Answered {
				t.Fatalf("outcome = %s (%s)", a.Outcome(), a.Reason())
			}
			if got := rec.recs[len(rec.recs)-1].Grounding; got != tt.grounding {
				t.Errorf("grounding = %q, want %q", got, tt.grounding)
			}
			kept := a.Text() == script.Sentences[tt.question]
			if kept != tt.kept {
				t.Errorf("text %q: model sentence kept = %t, want %t", a.Text(), kept, tt.kept)
			}
			if !strings.Contains(a.Text(), fmt.Sprint(maxPrice)) {
				t.Errorf("text %q does not cite the result %d", a.Text(), maxPrice)
			}
		})
	}
}
