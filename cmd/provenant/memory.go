package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/internal/strictjson"
	"github.com/provenant/provenant/memory"
	memduckdb "github.com/provenant/provenant/memory/duckdb"
	"github.com/provenant/provenant/memory/enginecheck"
	"github.com/provenant/provenant/memory/memapi"
	mempostgres "github.com/provenant/provenant/memory/postgres"
)

// runMemory dispatches the memory subcommands: add, annotate, recall.
func runMemory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const usage = `Usage: provenant memory add|annotate|recall [flags] [arguments]

  add       remember a claim, an observation or a note
  annotate  confirm, retract or supersede a remembered record
  recall    print what an agent should currently believe, each claim with
            provenance checked against the data (current, outdated,
            unverifiable)

The journal is a DuckDB file (--journal; by default memory.duckdb in the
user configuration directory) or a PostgreSQL database (--journal-postgres).
Run "provenant memory SUBCOMMAND -h" for its flags and an example.

Example:
  provenant memory add --agent stock-bot --subject pr-007@st-003 "pr-007 is out of stock at st-003"
`
	return runGroup(ctx, "memory", usage, []subcommand{{"add", runMemoryAdd}, {"annotate", runMemoryAnnotate}, {"recall", runMemoryRecall}}, args, stdout, stderr)
}

// journalFlags choose the journal and the agent.
type journalFlags struct {
	path  string
	dsn   string
	agent string
}

func (f *journalFlags) register(fs *flag.FlagSet) {
	fs.Var((*dbFile)(&f.path), "journal", "the DuckDB journal `FILE` (default: memory.duckdb under the user configuration directory, created if missing)")
	fs.StringVar(&f.dsn, "journal-postgres", "", "the PostgreSQL `DSN` holding the journal, instead of a DuckDB file")
	fs.StringVar(&f.agent, "agent", "local", "the agent `ID` that writes or reads")
}

// defaultJournal is the journal file when --journal names none.
func defaultJournal() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the memory journal: %w", err)
	}
	dir = filepath.Join(dir, "provenant")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create the memory journal's directory: %w", err)
	}
	return filepath.Join(dir, "memory.duckdb"), nil
}

func (f *journalFlags) open(ctx context.Context) (memory.Journal, func() error, error) {
	if f.path != "" && f.dsn != "" {
		return nil, nil, usagef("want at most one of --journal and --journal-postgres")
	}
	if f.dsn != "" {
		st, err := mempostgres.Open(ctx, f.dsn)
		if err != nil {
			return nil, nil, err
		}
		return st, st.Close, nil
	}
	path := f.path
	if path == "" {
		var err error
		if path, err = defaultJournal(); err != nil {
			return nil, nil, err
		}
	}
	st, err := memduckdb.Open(ctx, path, nil)
	if err != nil {
		// DuckDB's own message names the file, and for a file another
		// process holds, that process's executable and PID.
		if de := (*duckdb.Error)(nil); errors.As(err, &de) {
			return nil, nil, fmt.Errorf("open memory journal: %s", duckdbOpenReason(err, de))
		}
		return nil, nil, err
	}
	return st, st.Close, nil
}

// listFlag is a comma-separated list of identifiers.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	*l = nil
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			*l = append(*l, x)
		}
	}
	return nil
}

// optFloat is a float flag that knows whether it was given: --relevance
// had -1 for "not given", so a negative or NaN score given was dropped
// as none.
type optFloat struct {
	v   float64
	set bool
}

func (o *optFloat) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}

// Get makes a bad value "want a number" (valueKind).
func (o *optFloat) Get() any { return o.v }

func (o *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("want a number")
	}
	o.v, o.set = v, true
	return nil
}

// writeFlags are what add and annotate share.
type writeFlags struct {
	key        string
	subject    string
	tags       listFlag
	relevance  optFloat
	halfLife   int64
	provenance string
	private    bool
	asJSON     bool
}

func (f *writeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.key, "key", "", "the record's `KEY` (default: a fresh m-<hex> key)")
	fs.StringVar(&f.subject, "subject", "", "what it is about (`TEXT`): recall matches it case-insensitively")
	fs.Var(&f.tags, "tags", "comma-separated `TAGS` recall can match")
	fs.Var(&f.relevance, "relevance", "relevance `SCORE` from 0 to 1 (default: none)")
	fs.Int64Var(&f.halfLife, "half-life", 0, "with --relevance: its half-life in `SECONDS` (0: no decay)")
	fs.StringVar(&f.provenance, "provenance", "", "the claim's provenance as a JSON `OBJECT`: tool_call {tool, arguments}, value, row_keys, result_ids, data_version")
	fs.BoolVar(&f.private, "private", false, "only --agent may read it")
	fs.BoolVar(&f.asJSON, "json", false, "print the result as one JSON object")
}

func (f *writeFlags) parts() (*memapi.Relevance, *memory.Provenance, *memapi.Visibility, error) {
	var rel *memapi.Relevance
	if f.relevance.set {
		if v := f.relevance.v; math.IsNaN(v) || v < 0 || v > 1 {
			return nil, nil, nil, usagef("--relevance: want a number from 0 to 1")
		}
		rel = &memapi.Relevance{Score: &f.relevance.v, HalfLife: f.halfLife}
	} else if f.halfLife != 0 {
		return nil, nil, nil, usagef("--half-life needs --relevance")
	}
	var prov *memory.Provenance
	if f.provenance != "" {
		if err := strictjson.Decode([]byte(f.provenance), &prov, nil); err != nil || prov == nil {
			return nil, nil, nil, usagef("--provenance: want a JSON object with tool_call, value, row_keys, result_ids, data_version (%s)",
				strictjson.Message(err, "not an object"))
		}
	}
	var vis *memapi.Visibility
	if f.private {
		vis = &memapi.Visibility{Private: true}
	}
	return rel, prov, vis, nil
}

func printWritten(w io.Writer, what string, out memapi.Written, asJSON bool) error {
	if asJSON {
		b, _ := json.Marshal(out)
		_, err := fmt.Fprintf(w, "%s\n", b)
		return err
	}
	_, err := fmt.Fprintf(w, "%s %s (time %d)\n", what, out.Key, out.Time)
	return err
}

// memoryFailure turns a caller's mistake into a message naming fields.
func memoryFailure(verb string, err error) error {
	var e *memapi.Error
	if errors.As(err, &e) {
		return fmt.Errorf("%s: %s: %s", verb, e.Code, e.Message)
	}
	return fmt.Errorf("%s: %w", verb, err)
}

func runMemoryAdd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("memory add", "memory add [flags] TEXT",
		`provenant memory add --agent stock-bot --subject pr-007@st-003 --tags pr-007,stock --relevance 0.9 --half-life 86400 "pr-007 is out of stock at st-003"`, stderr)
	var jf journalFlags
	jf.register(fs)
	var wf writeFlags
	wf.register(fs)
	kind := fs.String("kind", "claim", "the record's `KIND`: claim, observation or note")
	class := fs.String("class", "", "a class `ID`: records sharing it are alternatives of one question")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	text := strings.Join(fs.Args(), " ")
	if text == "" {
		return usagef("missing TEXT")
	}
	rel, prov, vis, err := wf.parts()
	if err != nil {
		return err
	}
	j, closeJournal, err := jf.open(ctx)
	if err != nil {
		return err
	}
	defer closeJournal()
	svc := &memapi.Service{Journal: j}
	out, err := svc.Remember(ctx, jf.agent, memapi.RememberRequest{Key: wf.key, Kind: memory.Kind(*kind), Text: text,
		Subject: wf.subject, Tags: wf.tags, Class: *class, Relevance: rel, Provenance: prov, Visibility: vis})
	if err != nil {
		return memoryFailure("remember", err)
	}
	return printWritten(stdout, "remembered", out, wf.asJSON)
}

func runMemoryAnnotate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("memory annotate", "memory annotate [flags] confirm|retract|supersede TARGET [TEXT]",
		`provenant memory annotate --agent stock-bot --stated --subject pr-007@st-003 supersede m-0001 "pr-007 was restocked at st-003 at 10:00"`, stderr)
	var jf journalFlags
	jf.register(fs)
	var wf writeFlags
	wf.register(fs)
	stated := fs.Bool("stated", false, "assert the correction outright (a supersede that wins under prefer self-stated)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	pos := fs.Args()
	if len(pos) < 2 {
		return usagef("want a KIND (confirm, retract or supersede) and a TARGET key")
	}
	kind := memory.Kind(pos[0])
	if !kind.Targeted() {
		return usagef("KIND: want confirm, retract or supersede")
	}
	rel, prov, vis, err := wf.parts()
	if err != nil {
		return err
	}
	j, closeJournal, err := jf.open(ctx)
	if err != nil {
		return err
	}
	defer closeJournal()
	svc := &memapi.Service{Journal: j}
	out, err := svc.Annotate(ctx, jf.agent, memapi.AnnotateRequest{Key: wf.key, Kind: kind, Target: pos[1],
		Text: strings.Join(pos[2:], " "), Subject: wf.subject, Tags: wf.tags, Stated: *stated, Relevance: rel,
		Provenance: prov, Visibility: vis})
	if err != nil {
		return memoryFailure("annotate", err)
	}
	return printWritten(stdout, "annotated as", out, wf.asJSON)
}

func runMemoryRecall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("memory recall", "memory recall [flags]",
		`provenant memory recall --agent stock-bot --subject pr-007@st-003 --max-items 20`, stderr)
	var jf journalFlags
	jf.register(fs)
	var ef engineFlags
	ef.register(fs)
	subject := fs.String("subject", "", "recall records about this `SUBJECT` (case-insensitive)")
	var tags, partition, exclude listFlag
	fs.Var(&tags, "tags", "recall records sharing one of these comma-separated `TAGS`")
	text := fs.String("text", "", "recall records holding every one of these `WORDS`")
	fs.Var(&partition, "partition", "only records written by these comma-separated `AGENTS`")
	fs.Var(&exclude, "exclude", "leave out these comma-separated `KEYS`")
	asOf := fs.Int64("as-of", -1, "the logical time to read at, in Unix `SECONDS` (default: now)")
	maxItems := fs.Int("max-items", memapi.DefaultMaxItems, "the most `N` claims on the sheet")
	policyPath := fs.String("policy", "", "a policy `FILE` (JSON: prefer, staleness_threshold, gate_overfetch_multiplier, max_backfill_pulls)")
	check := fs.Bool("check", true, "check each claim carrying provenance against the data (opens the engine of --store, --catalog ...)")
	asJSON := fs.Bool("json", false, "print the sheet as canonical JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) > 0 {
		return usagef("unexpected argument (recall takes only flags)")
	}
	req := memapi.RecallRequest{Subject: *subject, Tags: tags, Text: *text, Partition: partition, Exclude: exclude, MaxItems: *maxItems}
	if *maxItems < 1 {
		return usagef("--max-items: want at least 1")
	}
	if *asOf >= 0 {
		req.AsOf = asOf
	} else if flagSet(fs, "as-of") {
		return usagef("--as-of: want a time in Unix seconds, at least 0")
	}
	if *policyPath != "" {
		f, err := openStream(ctx, *policyPath)
		if err != nil {
			return fmt.Errorf("open policy: %w", err)
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("read policy: %w", err)
		}
		req.Policy = b
	}
	j, closeJournal, err := jf.open(ctx)
	if err != nil {
		return err
	}
	defer closeJournal()
	svc := &memapi.Service{Journal: j}
	if *check {
		_, e, err := ef.start(ctx, stderr)
		if err != nil {
			return err
		}
		defer e.Close()
		svc.Rerunner = enginecheck.New(e.Pipeline)
	}
	sheet, err := svc.Recall(ctx, memory.Reader{Agent: jf.agent}, req)
	if err != nil {
		return memoryFailure("recall", err)
	}
	if *asJSON {
		b, err := sheet.Canonical()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	return printSheet(stdout, sheet)
}

// printSheet writes a sheet for a person, as the README's worked example
// shows it.
func printSheet(w io.Writer, s *memory.Sheet) error {
	for _, c := range s.Claims {
		fmt.Fprintf(w, "%d. %s %s by %s: %q\n", c.Rank, c.Key, c.Kind, c.Agent, c.Text)
		var parts []string
		if c.Staleness != nil {
			parts = append(parts, fmt.Sprintf("staleness %.3f", *c.Staleness))
		}
		if c.Stale {
			parts = append(parts, "STALE")
		}
		if c.Confirmations > 0 {
			parts = append(parts, fmt.Sprintf("confirmations %d", c.Confirmations))
		}
		if len(c.Supersedes) > 0 {
			parts = append(parts, "supersedes "+strings.Join(c.Supersedes, ", "))
		}
		if len(c.DisjunctWith) > 0 {
			parts = append(parts, "disjunct_with "+strings.Join(c.DisjunctWith, ", "))
		}
		if c.Check != nil {
			parts = append(parts, c.Check.String())
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "   %s\n", strings.Join(parts, "; "))
		}
	}
	for _, wr := range s.Warnings {
		fmt.Fprintf(w, "warning %s: %s\n", wr.Code, wr.Message)
	}
	ct := s.Counts
	_, err := fmt.Fprintf(w, "counts: candidates %d, gate_rejected %d, selected %d, retracted %d, superseded %d, corrupt %d, contradictions %d, claims %d\n",
		ct.Candidates, ct.GateRejected, ct.Selected, ct.Retracted, ct.Superseded, ct.Corrupt, ct.Contradictions, ct.Claims)
	return err
}

// servedMemory is the memory flags of serve and mcp: off unless --memory
// is given.
type servedMemory struct {
	on    bool
	jf    journalFlags
	close func() error
}

func (m *servedMemory) register(fs *flag.FlagSet) {
	fs.BoolVar(&m.on, "memory", false, "offer the memory tools remember, annotate and recall (the writer and reader: the authenticated principal, or --memory-agent)")
	fs.Var((*dbFile)(&m.jf.path), "journal", "with --memory: the DuckDB journal `FILE` (default: the --postgres database when that is the source, else memory.duckdb under the user configuration directory)")
	fs.StringVar(&m.jf.dsn, "journal-postgres", "", "with --memory: the PostgreSQL `DSN` holding the journal")
	fs.StringVar(&m.jf.agent, "memory-agent", "local", "with --memory: the agent `ID` of a caller no principal names (stdio, or a server without --principals)")
}

// service opens the journal when --memory is on; nil when off. With
// neither --journal nor --journal-postgres, the journal is in the
// engine's PostgreSQL database when that is the source (source, the
// --postgres DSN), and in the default DuckDB file otherwise.
func (m *servedMemory) service(ctx context.Context, source string) (*memapi.Service, error) {
	if !m.on {
		if m.jf.path != "" || m.jf.dsn != "" {
			return nil, usagef("--journal and --journal-postgres need --memory")
		}
		return nil, nil
	}
	if err := memory.CheckAgent(m.jf.agent); err != nil {
		return nil, usagef("--memory-agent: %v", err) // the field and the problem, not the id
	}
	if m.jf.path == "" && m.jf.dsn == "" {
		m.jf.dsn = source
	}
	j, closeJournal, err := m.jf.open(ctx)
	if err != nil {
		return nil, err
	}
	m.close = closeJournal
	return &memapi.Service{Journal: j}, nil
}

// Close closes the journal, if one was opened.
func (m *servedMemory) Close() error {
	if m.close == nil {
		return nil
	}
	return m.close()
}
