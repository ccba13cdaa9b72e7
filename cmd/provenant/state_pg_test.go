package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/provenant/provenant/eventlog"
	evpostgres "github.com/provenant/provenant/eventlog/postgres"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// statePlace returns a DSN of the test PostgreSQL and a throwaway schema
// on it (pgtest.Schema: dropped when the test ends), for --state-db and
// --state-schema. Outside CI without PROVENANT_POSTGRES_DSN the test is
// skipped, naming the variable; in CI (CI=true) it is required.
func statePlace(t *testing.T) (dsn, schema string) {
	t.Helper()
	return pgtest.SchemaNamed(t)
}

// stateQuestions are answerable and unanswerable questions over the demo
// store.
var stateQuestions = []string{
	"How many stores have condition OUT_OF_STOCK as of 2026-01-06T08:00:00Z?",
	"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
	"What is the stock state of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
	"What will the weather be tomorrow?",
}

// askStatus asks one question: the HTTP status, and for a 200 the
// answer's outcome and result ids. err is a transport failure (the
// server died).
func askStatus(base, question string) (status int, outcome string, ids []string, err error) {
	body, _ := json.Marshal(map[string]string{"question": question})
	resp, err := http.Post(base+"/v1/ask", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	var a struct {
		Outcome   string   `json:"outcome"`
		ResultIDs []string `json:"result_ids"`
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, "", nil, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return resp.StatusCode, "", nil, err
	}
	return resp.StatusCode, a.Outcome, a.ResultIDs, nil
}

// readStateLog reads every event of the schema's log, in store order.
func readStateLog(t *testing.T, dsn, schema string) []eventlog.Event {
	t.Helper()
	s, err := evpostgres.Open(t.Context(), dsn, &evpostgres.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	events, err := eventlog.ReadAll(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// checkDense fails unless every (run, producer) of events counts 1, 2,
// 3, … with no gap or repeat, whatever the order events are in.
func checkDense(t *testing.T, events []eventlog.Event) {
	t.Helper()
	type rp struct{ run, producer string }
	seqs := map[rp]map[int64]bool{}
	for _, e := range events {
		k := rp{e.Run, e.Producer}
		if seqs[k] == nil {
			seqs[k] = map[int64]bool{}
		}
		if seqs[k][e.Seq] {
			t.Errorf("run %s, producer %s: seq %d twice", e.Run, e.Producer, e.Seq)
		}
		seqs[k][e.Seq] = true
	}
	for k, s := range seqs {
		for i := int64(1); i <= int64(len(s)); i++ {
			if !s[i] {
				t.Errorf("run %s, producer %s: seq %d missing of %d", k.run, k.producer, i, len(s))
				break
			}
		}
	}
}

// emitted returns, per result id, how many answer.emitted events name
// it, and how many answer.emitted events there are.
func emitted(t *testing.T, events []eventlog.Event) (byResult map[string]int, n int) {
	t.Helper()
	byResult = map[string]int{}
	for _, e := range events {
		if e.Type != eventlog.TypeAnswerEmitted {
			continue
		}
		n++
		p, err := e.Decoded()
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range p.(eventlog.AnswerEmitted).ResultIDs {
			byResult[id]++
		}
	}
	return byResult, n
}

// TestServeStateDB_TwoProcesses is issue 11's shared deployment: two
// `serve` processes on one PostgreSQL schema (--state-db), each hammered
// by four HTTP clients at once. Afterwards `log verify --state-db`
// passes, every (run, producer)'s seqs are dense with no repeat, the log
// holds exactly one answer.emitted per answer the clients received (and
// each received result id in exactly one), and `register verify
// --state-db` passes on the register both processes opened.
func TestServeStateDB_TwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two serve processes")
	}
	dsn, schema := statePlace(t)
	deadline := time.After(replicaStartTimeout)
	r1, cmd1 := startServe(t, "--state-db", dsn, "--state-schema", schema)
	r2, cmd2 := startServe(t, "--state-db", dsn, "--state-schema", schema)
	bases := []string{r1.ready(t, deadline), r2.ready(t, deadline)}

	const clientsPerServer, questionsPerClient = 4, 15
	var (
		mu       sync.Mutex
		received int
		results  = map[string]int{}
		wg       sync.WaitGroup
	)
	for s, base := range bases {
		for c := range clientsPerServer {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range questionsPerClient {
					status, outcome, ids, err := askStatus(base, stateQuestions[(s+c+i)%len(stateQuestions)])
					if err != nil || status != http.StatusOK || outcome == "" {
						t.Errorf("server %d, client %d: status %d, outcome %q, %v", s, c, status, outcome, err)
						return
					}
					mu.Lock()
					received++
					for _, id := range ids {
						results[id]++
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// Every answer was acknowledged before it was sent: stop both servers
	// (SIGKILL: nothing is left to flush) and read what they stored.
	for _, c := range []*exec.Cmd{cmd1, cmd2} {
		c.Process.Kill()
		c.Wait()
	}

	out, _, err := runCLI(t, "log", "verify", "--state-db", dsn, "--state-schema", schema)
	if err != nil {
		t.Fatalf("log verify --state-db: %v", err)
	}
	if !strings.Contains(out, " 2 runs") {
		t.Errorf("log verify: %q, want the two processes' runs", out)
	}
	events := readStateLog(t, dsn, schema)
	checkDense(t, events)
	byResult, n := emitted(t, events)
	if want := 2 * clientsPerServer * questionsPerClient; received != want {
		t.Fatalf("received %d answers, want %d", received, want)
	}
	if n != received {
		t.Errorf("the log holds %d answer.emitted, the clients received %d answers", n, received)
	}
	if len(results) == 0 {
		t.Fatal("no answer carried a result id")
	}
	for id, k := range results {
		if k != 1 || byResult[id] != 1 {
			t.Errorf("result %s: received %d times, in %d answer.emitted events; want 1 and 1", id, k, byResult[id])
		}
	}
	out, _, err = runCLI(t, "register", "verify", "--state-db", dsn, "--state-schema", schema)
	if err != nil || !strings.HasPrefix(out, "ok: ") {
		t.Fatalf("register verify --state-db: %q, %v", out, err)
	}
	t.Logf("%d answers over two processes, %d events, one log; %s", received, len(events), strings.TrimSpace(out))
}

// TestServeStateDB_CrashKeepsAcknowledgedEvents is
// TestServeLog_CrashKeepsAcknowledgedEvents on PostgreSQL: SIGKILL a
// `serve --state-db` while four clients keep asking, restart it on the
// same schema, and check that `log verify` and `register verify` pass and
// that every answer a client received has its answer.emitted in the log
// (an answer is sent only after its events were committed).
func TestServeStateDB_CrashKeepsAcknowledgedEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two serve processes")
	}
	dsn, schema := statePlace(t)
	r, cmd := startServe(t, "--state-db", dsn, "--state-schema", schema)
	base := r.ready(t, time.After(replicaStartTimeout))

	acked := killUnderLoad(t, cmd, base, stateQuestions[:3])

	r2, _ := startServe(t, "--state-db", dsn, "--state-schema", schema)
	base2 := r2.ready(t, time.After(replicaStartTimeout))
	if status, outcome, _, err := askStatus(base2, stateQuestions[0]); err != nil || status != http.StatusOK || outcome != "answered" {
		t.Fatalf("after the restart: %d %q, %v", status, outcome, err)
	}

	out, _, err := runCLI(t, "log", "verify", "--state-db", dsn, "--state-schema", schema)
	if err != nil {
		t.Fatalf("log verify after the crash: %v", err)
	}
	if !strings.Contains(out, " 2 runs") {
		t.Errorf("log verify: %q, want the two processes' runs", out)
	}
	if _, _, err := runCLI(t, "register", "verify", "--state-db", dsn, "--state-schema", schema); err != nil {
		t.Fatalf("register verify after the crash: %v", err)
	}
	events := readStateLog(t, dsn, schema)
	checkDense(t, events)
	byResult, _ := emitted(t, events)
	if len(acked) == 0 {
		t.Fatal("no answer was received before the kill")
	}
	for id := range acked {
		if byResult[id] != 1 {
			t.Errorf("answer with result %s was received; answer.emitted events naming it: %d, want 1", id, byResult[id])
		}
	}
	t.Logf("%d answers received before the kill, all in the log (%d events)", len(acked), len(events))
}

// stateTables counts the tables of schema in the database dsn names.
func stateTables(t *testing.T, dsn, schema string) int {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var n int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1", schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStateDB_PostgresDefault: over a catalog whose source is PostgreSQL
// (--postgres), ask keeps its audit state in that database, schema
// provenant, without being asked; --state-schema moves it, --state-db
// none, --log FILE and eval keep none there. The database is a throwaway
// one (pgtest.Database), so schema provenant is the test's own.
func TestStateDB_PostgresDefault(t *testing.T) {
	dsn := pgtest.Database(t, "")
	in := writeFile(t, t.TempDir(), "events.jsonl", string(ingesttest.DemoJSONL(t, 200)))
	if _, stderr, err := runCLI(t, "import", "--catalog", ingesttest.WarehouseCatalogFile(t), "--dataset", "status_events", "--postgres", dsn, in); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	const question = "How many devices have condition LOW_BATTERY as of 2026-01-09T00:00:00Z?"
	ask := func(extra ...string) {
		t.Helper()
		args := append([]string{"ask", "--log-level", "error", "--catalog", "warehouse", "--postgres", dsn}, extra...)
		if _, stderr, err := runCLI(t, append(args, question)...); err != nil {
			t.Fatalf("%v: %v\n%s", extra, err, stderr)
		}
	}
	questions := func(schema string) int {
		t.Helper()
		n := 0
		for _, e := range readStateLog(t, dsn, schema) {
			if e.Type == eventlog.TypeQuestionReceived {
				n++
			}
		}
		return n
	}

	ask()
	if got := stateTables(t, dsn, "provenant"); got != 7 {
		t.Fatalf("after ask --postgres: schema provenant holds %d tables, want the 7 state tables (4 audit, 3 autonomy: the autonomy_clock view, autonomy_sessions, autonomy_grants)", got)
	}
	if got := questions("provenant"); got != 1 {
		t.Fatalf("schema provenant's log holds %d questions, want 1", got)
	}
	ask("--state-db", "none")
	ask("--log", filepath.Join(t.TempDir(), "events.jsonl"))
	if _, stderr, err := runCLI(t, "eval", "--catalog", "warehouse", "--postgres", dsn, "--json"); err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	if got := questions("provenant"); got != 1 {
		t.Errorf("after --state-db none, --log and eval: schema provenant's log holds %d questions, want still 1", got)
	}
	ask("--state-schema", "audit")
	if got := questions("audit"); got != 1 {
		t.Errorf("--state-schema audit: its log holds %d questions, want 1", got)
	}
	if out, _, err := runCLI(t, "log", "verify", "--state-db", dsn); err != nil || !strings.Contains(out, " 1 runs") {
		t.Errorf("log verify --state-db (schema provenant) = %q, %v", out, err)
	}
	// Verifying a schema that holds nothing fails and creates nothing.
	for _, cmd := range []string{"log", "register"} {
		if out, _, err := runCLI(t, cmd, "verify", "--state-db", dsn, "--state-schema", "nosuch"); !errors.Is(err, errNoState) {
			t.Errorf("%s verify over an empty schema = %q, %v; want errNoState", cmd, out, err)
		}
	}
	if got := stateTables(t, dsn, "nosuch"); got != 0 {
		t.Errorf("verify created %d tables in schema nosuch", got)
	}
}
