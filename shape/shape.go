// Package shape implements the catalog's tool shapes once, generically, as
// SQL pushed into the database that holds the data: DuckDB (a database
// file, or views over Parquet and CSV files) or PostgreSQL, through
// database/sql.
//
// Every call is answered twice, by two formulations that share only the
// catalog's meaning of a condition:
//
//   - the executor (Snapshot.Execute) picks each series' latest row with a
//     window function (ROW_NUMBER over the series, newest first) or, where
//     the database runs it faster (DuckDB), by aggregation (each series'
//     greatest time, then its greatest key there, joined back: see
//     Options.Latest), or reads the half-open window [start, end)
//     directly;
//   - the resolver (Snapshot.Resolve) finds the latest rows as those whose
//     validity interval [time, _valid_to) contains the instant, counted
//     against the census of series (without derived structures: the rows
//     equal to their series' last up to the instant, by LAST_VALUE over
//     the whole series), and a window by one read of its rows in the whole
//     hours covering it, its bounds (start, end) judged in Go on each
//     row's time (with a Digester, which counts and digests in SQL:
//     as the difference of two prefixes, rows before end except rows
//     before start); it then looks every asserted key up and judges its
//     row in Go.
//
// A dataset small enough (Options.MemoryRows) and that does not change
// while served, such as an imported store file, is read into memory once
// and answered there by two formulations of the same independence: the
// executor through indexes built at load (each series' rows sorted by
// time then key, searched), the resolver by a scan of every row that
// uses none of them (see memory.go).
//
// Both run in one transaction (Engine.Begin): one consistent snapshot,
// REPEATABLE READ on PostgreSQL. The answer names that snapshot with a
// data version: the highest ingestion sequence (_ingest_seq) the snapshot
// holds, read by the executor's own query, or a fixed version for files.
// Each query is prepared once per connection and kept. On PostgreSQL
// (Source.Pipeline) the transaction's BEGIN, the data version, the
// executor's query, the resolver's and COMMIT go in one round trip, and a
// window past the provenance limit has its count and digest computed in
// the database (Digester), by each formulation over its own rows.
//
// Ties go to the greatest time, then the greatest key. A condition or
// state on an empty (null) value is never met. The scope entity's values a
// caller may see are a predicate inside both formulations' SQL.
//
// The SQL is kept to what PostgreSQL-wire distributed engines also run:
// window functions (with ROWS frames), NOT EXISTS, EXCEPT, IN lists, CAST, positional
// parameters ($1); no dialect extensions.
package shape

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/internal/dbtx"
	"github.com/provenant/provenant/internal/sqlcond"
	"github.com/provenant/provenant/metric"
)

// SeqColumn is the ingestion sequence column `provenant import` adds to a
// table: strictly increasing over every import. Its maximum in a snapshot
// is the snapshot's data version.
const SeqColumn = "_ingest_seq"

// DefaultMaxKeys is the number of provenance keys a result lists in full;
// beyond it, a result carries the count, the digest and the first keys.
const DefaultMaxKeys = 1000

// Source is a database the shapes query.
type Source struct {
	DB *sql.DB
	// Snapshot are the options of the one read transaction a call runs
	// in: REPEATABLE READ on PostgreSQL; nil on DuckDB, whose every
	// transaction is a snapshot.
	Snapshot *sql.TxOptions
	// Relations maps a dataset name to the table or view that holds it
	// (unquoted; schema.table allowed), such as a view over files. A
	// dataset not in the map is read from its declared table.
	Relations map[string]string
	// Pipeline, when set, runs a call's executor and resolver queries
	// in one round trip (see Pipeliner); nil: each in its own.
	Pipeline Pipeliner
	// Versions maps a dataset name to a fixed data version, for a dataset
	// without an ingestion sequence (files read in place). A dataset not
	// in the map reads its version from SeqColumn.
	Versions map[string]string
	// Current, when set, gives the version a dataset of Versions is at
	// now (files read in place: a digest of their paths, sizes and
	// modification times). A call's re-derivation checks it after the
	// call's reads: when it differs from the fixed version, the data
	// changed under the engine, an answer would name data it did not
	// read, and the call fails with ErrDataChanged instead.
	Current func(dataset string) (string, error)
	// ReadError, when set, maps the error of a failed read of a dataset
	// to the one a call returns: for files read in place, DuckDB's
	// messages about the files' contents quote them, and the source
	// says instead what is wrong and where.
	ReadError func(dataset string, err error) error
	// References maps an entity name to the table or view that holds its
	// reference, for a reference declared with files: (a view over them).
	// A reference declared with table: is read from that table.
	References map[string]string
	// Sharer, when set, opens a transaction that reads what a snapshot's
	// reads (Snapshot.Share), for reads beside a call's own: a
	// query_metric call's resolver beside its executor. nil: where the
	// data can change, a call's reads stay on its one transaction.
	Sharer SnapshotSharer
}

// SnapshotSharer opens a transaction that reads what another reads: the
// other's snapshot exported, and imported into a new transaction
// (PostgreSQL's pg_export_snapshot and SET TRANSACTION SNAPSHOT,
// store/postgres.SnapshotSharer).
type SnapshotSharer interface {
	// Export names the snapshot of tx, importable while tx is open.
	Export(ctx context.Context, tx *sql.Tx) (string, error)
	// Import begins a read-only transaction on the snapshot Export named.
	Import(ctx context.Context, id string) (*sql.Tx, error)
}

// Options tune an Engine.
type Options struct {
	// MaxKeys is how many provenance keys a result lists in full
	// (DefaultMaxKeys when 0).
	MaxKeys int
	// Latest is how the executor picks every series' latest row for
	// count_entities_where and list_entities_in_state (LatestWindow or
	// LatestAggregate); empty: the cheaper on the database (Auto).
	Latest string
	// MemoryRows: a dataset of at most this many rows is read into
	// memory when the engine is built and answered there, by in-memory
	// formulations of the executor and the resolver (see memory.go); 0
	// reads none. For data that does not change while served: an import
	// after New is not seen.
	MemoryRows int
	// MemoryWindow is which rows the in-memory resolver of a window reads
	// (MemoryWindowHours or MemoryWindowValue); empty: the cheaper, by
	// how many hours the window spans against how many rows the fixed
	// value has.
	MemoryWindow string
	// MemoryTurnRows: calls over a dataset held in memory of at least
	// this many rows take turns (Engine.memTurn); 0 means
	// DefaultMemoryTurnRows.
	MemoryTurnRows int
	// SQLTurns: calls answered by SQL statements take turns too, in the
	// same queue as calls answered in memory (Engine.memTurn): as many
	// at once as processors, the others waiting in arrival order. For an
	// embedded database that runs a statement on the caller's processors
	// with one thread (DuckDB with threads = 1, as serve runs it by
	// default), where more statements at once than processors only share
	// them and lengthen the tail (bench/results/duckdb-turns.md); not for
	// a database server, whose queries wait on another process.
	SQLTurns bool
	// MetricGoRows becomes metric.Options.MaxGoRows for metric requests
	// (see Snapshot.MetricQuerier).
	MetricGoRows int
	// MetricResolveRows becomes metric.Options.ResolveRows for metric
	// requests.
	MetricResolveRows int
	// MetricResolveFrom becomes metric.Options.ResolveFrom for metric
	// requests.
	MetricResolveFrom time.Duration
	// MetricRollups passes each dataset's per-hour key digests
	// (TABLE__rollup_keys, DeriveOptions.RollupKeys), when it has them, to
	// metric requests as metric.Options.Rollups; off, none is read.
	MetricRollups bool
	// MetricValueRollups passes each dataset's per-hour value rollups
	// (TABLE__rollup_values, DeriveOptions.RollupValues), when it has
	// them, to metric requests as metric.Options.ValueRollups; off, none
	// is read.
	MetricValueRollups bool
	// WindowDigests lets a count_rows_in_window call of more rows than
	// MaxKeys take its count and digest (lthash's) from the per-hour
	// window digests (TABLE__window_keys, DeriveOptions.WindowKeys), when
	// the dataset has them, and its first keys from a bounded query; off,
	// none is read and every window lists or digests every key.
	WindowDigests bool
}

// The executor's ways to pick every series' latest row: two portable
// formulations of one question (both independent of the resolver's),
// chosen for cost.
const (
	// LatestWindow: ROW_NUMBER over the series, newest first, greatest
	// key first. PostgreSQL runs it fastest (6.1 ms against 6.8 to 10.9
	// ms for LatestAggregate on 2,000 series at 1M events).
	LatestWindow = "window"
	// LatestAggregate: each series' greatest time (GROUP BY), then its
	// greatest key at that time, joined back. DuckDB runs it in half the
	// time of LatestWindow (1.5 ms against 2.9 ms on 2,000 series at 1M
	// events), whose sort by time and a text key it cannot shortcut.
	LatestAggregate = "aggregate"
)

// The in-memory resolver's ways to read a window's rows (Options.MemoryWindow).
const (
	// MemoryWindowHours: the fixed value's rows in each hour the window
	// touches, an hour at a time.
	MemoryWindowHours = "hours"
	// MemoryWindowValue: every row of the fixed value.
	MemoryWindowValue = "value"
)

// Auto returns the Latest formulation for a database: LatestAggregate
// for DuckDB's driver, LatestWindow for any other.
func Auto(db *sql.DB) string {
	if isDuckDB(db) {
		return LatestAggregate
	}
	return LatestWindow
}

// isDuckDB reports whether db's driver is DuckDB's.
func isDuckDB(db *sql.DB) bool {
	t := reflect.TypeOf(db.Driver())
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return strings.HasPrefix(t.PkgPath(), "github.com/duckdb/")
}

// Engine answers a catalog's tools over a Source.
type Engine struct {
	cat     *catalog.Catalog
	src     Source
	plans   map[string]*plan
	maxKeys int
	latest  string // LatestWindow or LatestAggregate
	// countLive: a store-wide re-derivation counts the live rows apart
	// from the rows it returns (resolveLive), on any database but DuckDB,
	// which answers the one-window form in less time (bench/results/pgwide.md).
	countLive bool
	// validTo maps a derived dataset's name to ValidToColumn (for
	// metric.Options).
	validTo           map[string]string
	metricGoRows      int
	metricResolveRows int
	metricResolveFrom time.Duration
	// rollups maps a dataset's name to its key digests (MetricRollups).
	rollups map[string]metric.Rollup
	// valueRollups maps a dataset's name to its value rollups
	// (MetricValueRollups).
	valueRollups map[string]metric.ValueRollup
	// edges maps a derived dataset's name to its checkpoints
	// (MetricEdges), on PostgreSQL only.
	edges map[string]metric.EdgeBound
	// sums are the digests' running sums by dataset (under mu).
	sums map[string]*digestSums
	// totals: the resolver's per-hour digest totals per dataset, one
	// data version each (checkSums).
	totals map[string]*hourTotals
	// floors are the key floors by dataset, the executor's and the
	// resolver's apart (under mu; DuckDB only).
	floors map[floorsKey]*versionFloors
	// floorsBuild serialises the reads of key floors, so that calls that
	// find none wait for one read instead of each making its own.
	floorsBuild sync.Mutex
	// wcounts are the window digests' running counts by relation (under
	// mu).
	wcounts map[string]*windowCounts

	mu  sync.Mutex
	cps map[string]*checkpoints // by checkpoint index relation

	mems map[string]*memData // datasets held in memory, by name
	// memTurns admits calls to the datasets in memory, as many at once as
	// there are processors, in arrival order (memTurn).
	memTurns chan struct{}
	// memTurnRows: the least rows of a dataset whose calls take turns.
	memTurnRows int
	// sqlTurns: calls answered by SQL take turns too (Options.SQLTurns).
	sqlTurns bool

	texts texts // formulations' SQL texts (text)

	stmtMu      sync.Mutex
	stmts       map[string]*sql.Stmt // prepared, by SQL text (see stmt)
	preparing   map[string]bool      // being prepared in the background
	stmtsClosed bool                 // Close: prepare nothing more
	// prepare: the driver needs statements prepared to keep their plans
	// (DuckDB's); pgx keeps a cache of its own on every connection.
	prepare bool
	// prepCtx ends the background preparations (Close); prepWG waits
	// for them.
	prepCtx    context.Context
	prepCancel context.CancelFunc
	prepWG     sync.WaitGroup
}

// ErrUnknownTool is returned for a call of a tool the catalog does not
// declare.
var ErrUnknownTool = errors.New("tool is not in the catalog")

// ErrDataChanged is returned by Resolve when a dataset with a fixed
// version (Source.Versions) is no longer at that version (Source.Current):
// files read in place were rewritten, added or removed since they were
// opened. Reopen the source to serve them.
var ErrDataChanged = errors.New("the data changed since its version was fixed; reopen it")

// ArgError is a call argument the shape cannot use. It names the
// parameter, never the value.
type ArgError struct {
	Param  string
	Reason string
}

func (e *ArgError) Error() string { return "shape argument " + e.Param + ": " + e.Reason }

// New compiles every tool of a validated catalog into its two
// formulations.
//
// A table dataset whose derived structures exist (see Derive) is read
// through them; any other (files read in place, a table not derived) with
// the plain formulations, which read every row up to the question's time.
func New(ctx context.Context, cat *catalog.Catalog, src Source, o *Options) (*Engine, error) {
	if src.DB == nil {
		return nil, errors.New("new shape engine: no database")
	}
	e := &Engine{cat: cat, src: src, plans: map[string]*plan{}, maxKeys: DefaultMaxKeys, cps: map[string]*checkpoints{}, stmts: map[string]*sql.Stmt{}, preparing: map[string]bool{}, mems: map[string]*memData{}, memTurns: make(chan struct{}, runtime.GOMAXPROCS(0)), memTurnRows: DefaultMemoryTurnRows}
	// The preparations outlive the request that starts them, not the
	// engine.
	e.prepCtx, e.prepCancel = context.WithCancel(context.WithoutCancel(ctx))
	if o != nil && o.MaxKeys > 0 {
		e.maxKeys = o.MaxKeys
	}
	if o != nil {
		e.metricGoRows = o.MetricGoRows
		if o.MemoryTurnRows > 0 {
			e.memTurnRows = o.MemoryTurnRows
		}
		e.sqlTurns = o.SQLTurns
		e.metricResolveRows = o.MetricResolveRows
		e.metricResolveFrom = o.MetricResolveFrom
	}
	e.latest = Auto(src.DB)
	e.prepare = isDuckDB(src.DB)
	e.countLive = !e.prepare
	if o != nil && o.Latest != "" {
		if o.Latest != LatestWindow && o.Latest != LatestAggregate {
			return nil, errors.New("new shape engine: Latest is neither window nor aggregate")
		}
		e.latest = o.Latest
	}
	if o != nil && o.MemoryRows > 0 {
		switch o.MemoryWindow {
		case "", MemoryWindowHours, MemoryWindowValue:
		default:
			return nil, errors.New("new shape engine: MemoryWindow is neither hours nor value")
		}
		for _, ds := range cat.Datasets {
			m, err := loadMemory(ctx, e, ds, o.MemoryRows)
			if err != nil {
				return nil, fmt.Errorf("new shape engine: %w", err)
			}
			if m != nil {
				m.window = o.MemoryWindow
				e.mems[ds.Name.Value] = m
			}
		}
	}
	derived := map[string]bool{}
	for _, ds := range cat.Datasets {
		ok, err := tableExists(ctx, src.DB, tableName(ds, src)+cpiSuffix)
		if err != nil {
			return nil, fmt.Errorf("new shape engine: %w", err)
		}
		derived[ds.Name.Value] = ok
		if ok && o != nil && o.MetricRollups {
			name := tableName(ds, src) + RollupKeysSuffix
			has, err := tableExists(ctx, src.DB, name)
			if err != nil {
				return nil, fmt.Errorf("new shape engine: %w", err)
			}
			if has {
				if e.rollups == nil {
					e.rollups = map[string]metric.Rollup{}
				}
				r := MetricRollup(ds, tableName(ds, src))
				// The slices when derived (a database derived before
				// them gains them at its next import).
				if has, err = tableExists(ctx, src.DB, tableName(ds, src)+RollupSlicesSuffix); err != nil {
					return nil, fmt.Errorf("new shape engine: %w", err)
				}
				if has {
					r.Slices, r.SliceWidth = tableName(ds, src)+RollupSlicesSuffix, SliceWidth
				}
				e.rollups[ds.Name.Value] = r
			}
		}
		if ok && o != nil && o.MetricValueRollups {
			name := tableName(ds, src) + RollupValuesSuffix
			has, err := tableExists(ctx, src.DB, name)
			if err != nil {
				return nil, fmt.Errorf("new shape engine: %w", err)
			}
			if has {
				if e.valueRollups == nil {
					e.valueRollups = map[string]metric.ValueRollup{}
				}
				ru := MetricValueRollup(cat, ds, tableName(ds, src))
				// The slices when derived (kept once the rows are dense
				// enough, DeriveRollupValues).
				if has, err = tableExists(ctx, src.DB, tableName(ds, src)+RollupValueSlicesSuffix); err != nil {
					return nil, fmt.Errorf("new shape engine: %w", err)
				}
				if has {
					ru.Slices, ru.SliceWidth = tableName(ds, src)+RollupValueSlicesSuffix, SliceWidth
				}
				e.valueRollups[ds.Name.Value] = ru
			}
		}
		if ok {
			if e.validTo == nil {
				e.validTo = map[string]string{}
			}
			e.validTo[ds.Name.Value] = ValidToColumn
			if !e.prepare {
				// PostgreSQL: the rows reaching into a metric's window
				// from before it are bounded by the checkpoints (DuckDB's
				// zone maps skip the earlier rows without).
				if e.edges == nil {
					e.edges = map[string]metric.EdgeBound{}
				}
				e.edges[ds.Name.Value] = MetricEdges(tableName(ds, src))
			}
		}
	}
	for _, t := range cat.ReadTools() {
		p, err := compile(cat, t, src)
		if err != nil {
			return nil, fmt.Errorf("new shape engine: tool %s: %w", t.Name.Value, err)
		}
		p.mem = e.mems[p.ds.Name.Value]
		if derived[p.ds.Name.Value] {
			name := tableName(p.ds, src)
			p.derived = true
			p.cpRel, p.cpiRel, p.censusRel = quoteName(name+cpSuffix), quoteName(name+cpiSuffix), quoteName(name+seriesSuffix)
		}
		e.plans[t.Name.Value] = p
	}
	if o != nil && o.WindowDigests {
		for _, ds := range cat.Datasets {
			name := tableName(ds, src) + WindowKeysSuffix
			if !derived[ds.Name.Value] {
				continue
			}
			has, err := tableExists(ctx, src.DB, name)
			if err != nil {
				return nil, fmt.Errorf("new shape engine: %w", err)
			}
			if !has {
				continue
			}
			groups, err := digestGroupColumns(ctx, src.DB, quoteName(name))
			if err != nil {
				return nil, fmt.Errorf("new shape engine: read window digest columns: %w", err)
			}
			compileWindowDigests(e.plans, ds, name, groups)
		}
	}
	return e, nil
}

// Close releases the statements the engine prepared (on every connection
// that ran them). The engine must not be used after; closing the
// database releases them too.
func (e *Engine) Close() error {
	e.prepCancel()
	e.prepWG.Wait()
	e.stmtMu.Lock()
	defer e.stmtMu.Unlock()
	var errs []error
	for _, st := range e.stmts {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	clear(e.stmts)
	e.stmtsClosed = true
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close shape engine: %w", err)
	}
	return nil
}

// InMemory reports whether a dataset is answered in memory (see
// Options.MemoryRows).
func (e *Engine) InMemory(dataset string) bool { return e.mems[dataset] != nil }

// Derived reports whether a dataset is read through its derived
// structures.
func (e *Engine) Derived(dataset string) bool {
	for _, p := range e.plans {
		if p.ds.Name.Value == dataset {
			return p.derived
		}
	}
	return false
}

// tableExists reports whether a table (schema.table, or a table of the
// current schema) exists.
func tableExists(ctx context.Context, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string) (bool, error) {
	schema, table, qualified := strings.Cut(name, ".")
	q := "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1"
	args := []any{schema}
	if qualified {
		q = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2"
		args = []any{schema, table}
	}
	var n int
	if err := db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return false, fmt.Errorf("look up table: %w", err)
	}
	return n > 0, nil
}

// Scope is the set of scope-entity values a caller may see.
type Scope struct {
	all    bool
	values []string
}

// All is the scope of a caller who may see everything.
func All() Scope { return Scope{all: true} }

// Only is the scope of a caller limited to the given values (none when
// empty).
func Only(values ...string) Scope {
	v := slices.Clone(values)
	slices.Sort(v)
	return Scope{values: slices.Compact(v)}
}

// IsAll reports whether s sees everything.
func (s Scope) IsAll() bool { return s.all }

// Values returns the values of a limited scope.
func (s Scope) Values() []string { return slices.Clone(s.values) }

func (s Scope) allows(v string) bool { return s.all || slices.Contains(s.values, v) }

// Call is a validated tool call: the tool, its arguments by parameter
// name (as the wall admitted them: ids, enumerated values, condition
// names, timestamps YYYY-MM-DDTHH:MM:SSZ) and the caller's scope.
type Call struct {
	Tool  string
	Args  map[string]string
	Scope Scope
}

// Result is the executor's answer to a call.
type Result struct {
	Tool  string
	Value fact.Value
	// Keys is the provenance: the keys of the rows behind the value, sorted
	// bytewise, all of them when Rows <= the engine's MaxKeys, else the
	// first MaxKeys.
	Keys []string
	// Rows is the number of provenance keys.
	Rows int
	// Digest is Digest(all keys).
	Digest string
	// DataVersion names the snapshot.
	DataVersion string
}

// Verdict is the resolver's judgement of a Result, clause by clause.
type Verdict struct {
	// ProvenanceValid: every listed key exists and its row satisfies the
	// call.
	ProvenanceValid bool
	// ValueMatches: the re-derived value equals the asserted one.
	ValueMatches bool
	// Complete: the re-derived key set equals the asserted one (count,
	// digest and listed keys).
	Complete bool
	// Enumerated is the size of the re-derived key set.
	Enumerated int
}

// OK reports whether every clause holds.
func (v Verdict) OK() bool { return v.ProvenanceValid && v.ValueMatches && v.Complete }

// Snapshot is one consistent read of the source: the executor and the
// resolver of a call both run in it.
type Snapshot struct {
	e        *Engine
	tx       *sql.Tx
	versions map[string]string
	listAll  bool // ExecuteAll: list every key
	// fold: the executor's query reads the data version too (Execute,
	// while the snapshot has not read it); foldIndex is then the version
	// of the kept checkpoint index the query used.
	fold      bool
	foldIndex string
	// A pipelined call (Source.Pipeline, executeBatched): collecting
	// records the formulations' queries in pending instead of running
	// them; replay holds the queries the pipeline read, with their rows;
	// batched: the snapshot's first reads were a pipeline's, committed,
	// and a further read resumes it (resume); cps is the checkpoint index
	// the pipelined formulations used, kept for the snapshot's life.
	collecting bool
	pending    []Stmt
	replay     []replayed
	// replayedRows is the number of rows of the last query replayed
	// (0: not known), to size what a formulation reads them into.
	replayedRows int
	batched      bool
	cps          *checkpoints
	cpsRel       string
	// agg is the key set of the executor's last query when it read the
	// count and digest in SQL (execWindowDigest), for result.
	agg *keySet
}

// Begin opens a snapshot. The caller must Close it.
//
// An engine that holds every dataset in memory, or whose Source has a
// Pipeline, or whose data cannot change (Unchanging), begins its database
// transaction only when a call needs it (records, summaries, declared
// ids): a call answered in memory costs no round trip, and a call that
// waits for its turn holds no connection.
func (e *Engine) Begin(ctx context.Context) (*Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("begin snapshot: %w", err)
	}
	s := &Snapshot{e: e, versions: map[string]string{}}
	// With a Pipeline, the first call's reads are the transaction
	// (executeBatched); any other read begins it then. Where nothing
	// can change, a transaction begun later reads the same data.
	if len(e.mems) < len(e.cat.Datasets) && e.src.Pipeline == nil && !e.Unchanging() {
		if err := s.begin(ctx); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// begin opens the snapshot's transaction, once.
func (s *Snapshot) begin(ctx context.Context) error {
	if s.tx != nil {
		return nil
	}
	if s.collecting {
		return errPending
	}
	tx, err := dbtx.Begin(ctx, s.e.src.DB, s.e.src.Snapshot)
	if err != nil {
		return fmt.Errorf("begin snapshot: %w", err)
	}
	s.tx = tx
	if s.batched {
		return s.resume(ctx)
	}
	return nil
}

// Idle hands the snapshot's connection back to the pool between reads
// where the engine's data cannot change (Unchanging): its transaction
// ends, and the next read begins another, which reads the same data. A
// call that waits (for a turn, for its resolver) then holds no
// connection. Each connection keeps its own copy of every statement the
// engine prepares on it (database/sql's), so sixteen calls waiting with a
// connection each kept sixteen copies of every metric statement: at
// 10,000,000 events on DuckDB 90 MB of DuckDB's memory after a minute,
// against 52 MB with the connections handed back
// (bench/results/idle-conns.md).
// Elsewhere Idle does nothing: the snapshot must stay the one
// transaction.
func (s *Snapshot) Idle() error {
	if s.tx == nil || s.collecting || s.batched || !s.e.Unchanging() {
		return nil
	}
	tx := s.tx
	s.tx = nil
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("idle snapshot: %w", err)
	}
	return nil
}

// Close ends the snapshot (a read-only transaction: rolled back).
func (s *Snapshot) Close() error {
	if s.tx == nil {
		return nil
	}
	if err := s.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("close snapshot: %w", err)
	}
	return nil
}

// Unchanging reports whether the engine's data cannot change while it
// serves: every dataset's version is fixed (Source.Versions, which a
// caller sets when nothing can write the tables, as for a DuckDB file
// opened read-only) and no Source.Current can report a change. Any two
// snapshots then read the same data, so one call's reads may run on more
// than one (the engine's resolver beside its executor).
func (e *Engine) Unchanging() bool {
	if e.src.Current != nil {
		return false
	}
	for _, ds := range e.cat.Datasets {
		if _, fixed := e.src.Versions[ds.Name.Value]; !fixed {
			return false
		}
	}
	return true
}

// Share returns a function that opens a snapshot reading what s reads,
// for reads beside s's own (a query_metric call's resolver beside its
// executor), or nil when the engine has no way to: where its data cannot
// change (Unchanging) any new snapshot reads it; otherwise s's
// transaction, begun now, exports its snapshot to the Source's Sharer.
// s must stay open until every snapshot the function opens is.
func (s *Snapshot) Share(ctx context.Context) (func(context.Context) (*Snapshot, error), error) {
	e := s.e
	if e.Unchanging() {
		return e.Begin, nil
	}
	if e.src.Sharer == nil {
		return nil, nil
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	id, err := e.src.Sharer.Export(ctx, s.tx)
	if err != nil {
		return nil, fmt.Errorf("share snapshot: %w", err)
	}
	return func(ctx context.Context) (*Snapshot, error) {
		tx, err := e.src.Sharer.Import(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("share snapshot: %w", err)
		}
		return &Snapshot{e: e, tx: tx, versions: map[string]string{}}, nil
	}, nil
}

// knowsVersion reports whether the data version of a dataset in this
// snapshot is known without a query.
func (s *Snapshot) knowsVersion(dataset string) bool {
	_, read := s.versions[dataset]
	_, fixed := s.e.src.Versions[dataset]
	return read || fixed
}

// stillCurrent checks, for a dataset with a fixed version, that its data
// is still at that version (Source.Current).
func (s *Snapshot) stillCurrent(ds string) error {
	fixed, ok := s.e.src.Versions[ds]
	if !ok || s.e.src.Current == nil {
		return nil
	}
	now, err := s.e.src.Current(ds)
	if err != nil {
		return fmt.Errorf("check data version of dataset %s: %w", ds, err)
	}
	if now != fixed {
		return fmt.Errorf("check data version of dataset %s: %w", ds, ErrDataChanged)
	}
	return nil
}

// readFailed is the error for a read of dataset ds that failed with err:
// ErrDataChanged when ds's data is no longer at its fixed version (files
// rewritten since they were opened may hold a value the view cannot
// convert, and DuckDB's message for it quotes the value), else err as
// the source's ReadError maps it.
func (s *Snapshot) readFailed(ds string, err error) error {
	if changed := s.stillCurrent(ds); errors.Is(changed, ErrDataChanged) {
		return changed
	}
	if s.e.src.ReadError != nil {
		return s.e.src.ReadError(ds, err)
	}
	return err
}

// ErrNoTable is returned by CheckTables for a table dataset whose table
// the database does not hold: nothing was imported into it yet.
var ErrNoTable = errors.New("the dataset's table does not exist; import into it first")

// CheckTables checks that the database of src holds the table of every
// table dataset of cat, reading none of its rows, so that an engine
// refuses to start over a database nothing was imported into rather
// than fail every call. A missing table is ErrNoTable, naming the
// dataset and the table; DuckDB says "does not exist", as PostgreSQL
// does (SQLSTATE 42P01).
func CheckTables(ctx context.Context, cat *catalog.Catalog, src Source) error {
	for _, ds := range cat.Datasets {
		if ds.Files.Value != "" {
			continue
		}
		rows, err := src.DB.QueryContext(ctx, "SELECT 1 FROM "+relation(ds, src)+" WHERE 1 = 0")
		if err == nil {
			err = rows.Close()
		}
		switch {
		case err == nil:
		case strings.Contains(err.Error(), "does not exist"):
			return fmt.Errorf("check dataset %s: table %s: %w", ds.Name.Value, tableName(ds, src), ErrNoTable)
		default:
			return fmt.Errorf("check dataset %s: %w", ds.Name.Value, err)
		}
	}
	return nil
}

// ReadVersions reads the data version of every table dataset of cat in
// src's database now, as Snapshot.DataVersion would: for Source.Versions,
// when nothing can write the tables while the engine serves them (a DuckDB
// file opened read-only, which DuckDB's file lock keeps every writer out
// of). A call then reads no version of its own. Files datasets are left
// out (they have their own versions).
func ReadVersions(ctx context.Context, cat *catalog.Catalog, src Source) (map[string]string, error) {
	out := map[string]string{}
	for _, ds := range cat.Datasets {
		if ds.Files.Value != "" {
			continue
		}
		var seq sql.NullInt64
		if err := src.DB.QueryRowContext(ctx, "SELECT MAX("+ident(SeqColumn)+") FROM "+relation(ds, src)).Scan(&seq); err != nil {
			return nil, fmt.Errorf("read data version of dataset %s: %w", ds.Name.Value, err)
		}
		out[ds.Name.Value] = fmt.Sprintf("seq:%d", seq.Int64)
	}
	return out, nil
}

// DataVersion returns the data version of a dataset in this snapshot.
func (s *Snapshot) DataVersion(ctx context.Context, dataset string) (string, error) {
	if v, ok := s.versions[dataset]; ok {
		return v, nil
	}
	if v, ok := s.e.src.Versions[dataset]; ok {
		s.versions[dataset] = v
		return v, nil
	}
	if m := s.e.mems[dataset]; m != nil {
		s.versions[dataset] = m.version
		return m.version, nil
	}
	ds := s.e.cat.Dataset(dataset)
	if ds == nil {
		return "", fmt.Errorf("read data version: %w", ErrUnknownTool)
	}
	if err := s.begin(ctx); err != nil {
		return "", err
	}
	var seq sql.NullInt64
	q := "SELECT MAX(" + ident(SeqColumn) + ") FROM " + relation(ds, s.e.src)
	if err := s.queryRow(ctx, q).Scan(&seq); err != nil {
		return "", fmt.Errorf("read data version: %w", err)
	}
	v := fmt.Sprintf("seq:%d", seq.Int64)
	s.versions[dataset] = v
	return v, nil
}

// plan is one tool compiled against its dataset and relation.
type plan struct {
	tool *catalog.Tool
	ds   *catalog.Dataset
	rel  string
	key  string // quoted key column
	time string // quoted time column
	// colList is dataColumns joined by commas, rendered once.
	colList string
	// versionSQL reads the data version of rel, rendered once.
	versionSQL string
	series     []*catalog.Entity
	attr       *catalog.Attribute // latest_value
	entity     *catalog.Entity    // counted or listed
	at         *catalog.Entity    // fixed entity
	scope      *catalog.Entity    // the scope entity's column in this dataset
	// derived: read through the derived structures named below.
	derived                  bool
	cpRel, cpiRel, censusRel string
	// judgeStrs, judgeNums: the columns a judgement reads (judgedColumns).
	judgeStrs, judgeNums []string
	cols                 *rowCols // where a row holds them
	// mem: the dataset held in memory (Options.MemoryRows), or nil.
	mem *memData
	// win: a window tool's per-hour digests (Options.WindowDigests), or
	// nil.
	win *windowPlan
}

func compile(cat *catalog.Catalog, t *catalog.Tool, src Source) (*plan, error) {
	ds := cat.Dataset(t.Dataset.Value)
	if ds == nil {
		return nil, errors.New("dataset is not declared")
	}
	p := &plan{
		tool:       t,
		ds:         ds,
		rel:        relation(ds, src),
		key:        ident(ds.Key.Value),
		time:       ident(ds.Time.Value),
		colList:    strings.Join(dataColumns(ds), ", "),
		versionSQL: "SELECT MAX(" + ident(SeqColumn) + ") FROM " + relation(ds, src),
		series:     ds.SeriesEntities(),
		scope:      ds.Entity(cat.ScopeEntity.Value),
	}
	if len(p.series) == 0 || len(p.series) != len(ds.Series) {
		return nil, errors.New("dataset declares no series")
	}
	switch t.Shape.Value {
	case catalog.ShapeLatestValue:
		if p.attr = ds.Attribute(t.Attribute.Value); p.attr == nil {
			return nil, errors.New("attribute is not declared")
		}
	case catalog.ShapeCountEntitiesWhere, catalog.ShapeListEntitiesInState, catalog.ShapeCountRowsInWindow:
		if t.Filter == nil {
			return nil, errors.New("tool has no filter")
		}
		if t.Entity.Value != "" {
			if p.entity = ds.Entity(t.Entity.Value); p.entity == nil {
				return nil, errors.New("entity is not declared")
			}
		}
		if t.At.Value != "" {
			if p.at = ds.Entity(t.At.Value); p.at == nil {
				return nil, errors.New("at entity is not declared")
			}
		}
	default:
		return nil, errors.New("unknown shape")
	}
	p.judgeStrs, p.judgeNums = p.judgedColumns()
	p.cols = newRowCols(p.judgeStrs, p.judgeNums)
	return p, nil
}

func (e *Engine) plan(c Call) (*plan, error) {
	p, ok := e.plans[c.Tool]
	if !ok {
		return nil, ErrUnknownTool
	}
	return p, nil
}

// relation returns the FROM-clause relation of a dataset.
func relation(ds *catalog.Dataset, src Source) string { return quoteName(tableName(ds, src)) }

// tableName returns the unquoted name of a dataset's table or view.
func tableName(ds *catalog.Dataset, src Source) string {
	if r, ok := src.Relations[ds.Name.Value]; ok {
		return r
	}
	return ds.Table.Value
}

// ident quotes an SQL identifier.
func ident(s string) string { return sqlcond.Ident(s) }

// timeLayout is the wall's timestamp form.
const timeLayout = "2006-01-02T15:04:05Z"

// sqlTime is the literal form both DuckDB and PostgreSQL cast to TIMESTAMP.
const sqlTime = "2006-01-02 15:04:05.999999"

// instant parses a timestamp argument.
func instant(c Call, param string) (time.Time, error) {
	s, ok := c.Args[param]
	if !ok {
		return time.Time{}, &ArgError{Param: param, Reason: "is missing"}
	}
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}, &ArgError{Param: param, Reason: "is not a UTC timestamp like 2026-01-06T08:00:00Z"}
	}
	return t, nil
}

// arg returns a required argument.
func arg(c Call, param string) (string, error) {
	s, ok := c.Args[param]
	if !ok {
		return "", &ArgError{Param: param, Reason: "is missing"}
	}
	return s, nil
}

// maxStmts bounds the prepared statements an Engine keeps: the SQL texts
// of a catalog's calls are few (one per tool, condition and scope size),
// so the bound only guards against a caller varying scopes without end.
const maxStmts = 512

// stmt returns the prepared statement of sqlText, or nil when it is not
// prepared (yet): the caller then runs the text unprepared in its
// snapshot. A text seen for the first time is prepared in the background,
// on a connection of its own (database/sql prepares a database-wide
// statement on whichever connection is free): a request never waits for
// a second connection while its snapshot holds one, so a pool smaller
// than the requests in flight cannot stall them all
// (TestOpenCatalog_OneConnection). A statement prepared on the database
// is prepared again on each connection the first time that connection
// runs it, and kept there (database/sql's per-connection cache): DuckDB's
// driver otherwise parses, binds and plans every query anew (0.1 ms of a
// point question's 0.8 ms at 1M events; a data version read costs 0.15 ms
// unprepared, 0.02 ms prepared). Only DuckDB's statements are prepared
// so: pgx prepares and caches every statement a connection runs itself
// (QueryExecModeCacheStatement), and a preparation of our own would only
// take a connection, and the tables' locks, beside the request's (an
// import re-deriving the checkpoints could then deadlock with it). At
// most maxStmts are kept.
func (e *Engine) stmt(sqlText string) *sql.Stmt {
	e.stmtMu.Lock()
	defer e.stmtMu.Unlock()
	if st, ok := e.stmts[sqlText]; ok {
		return st
	}
	if !e.prepare || e.preparing[sqlText] || len(e.stmts)+len(e.preparing) >= maxStmts || e.stmtsClosed {
		return nil
	}
	e.preparing[sqlText] = true
	e.prepWG.Go(func() {
		st, err := e.src.DB.PrepareContext(e.prepCtx, sqlText)
		e.stmtMu.Lock()
		defer e.stmtMu.Unlock()
		delete(e.preparing, sqlText)
		if err != nil {
			// The query's own error, if it has one, is reported when it
			// runs unprepared; the text is not tried again until the
			// engine is opened anew.
			e.stmts[sqlText] = nil
			return
		}
		if e.stmtsClosed {
			st.Close()
			return
		}
		e.stmts[sqlText] = st
	})
	return nil
}

// queryRow runs one of a call's single-row queries in the snapshot, as a
// prepared statement.
func (s *Snapshot) queryRow(ctx context.Context, sqlText string, args ...any) *sql.Row {
	st := s.e.stmt(sqlText)
	if st == nil {
		return s.tx.QueryRowContext(ctx, sqlText, args...)
	}
	return s.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
}

// DefaultMemoryTurnRows is the least rows of a dataset held in memory
// whose calls take turns (Options.MemoryTurnRows). Below it a call is
// short enough (a store-wide question over the 4,000-event retail demo:
// tens of microseconds) that the scheduler seldom preempts it mid-call,
// and a turn would only move its wait for the processors from between
// calls into the call (the demo's p95 under sixteen clients: 0.13 ms
// without turns, 0.8 to 1.2 ms with, bench/results/memturn-load.md).
const DefaultMemoryTurnRows = 50_000

// memTurnFor takes a turn for a call of plan p when its dataset has at
// least memTurnRows rows, and returns its release.
func (e *Engine) memTurnFor(ctx context.Context, p *plan) (func(), error) {
	if len(p.mem.keys) < e.memTurnRows {
		return func() {}, nil
	}
	return e.memTurn(ctx)
}

// sqlTurn waits for a turn to answer by SQL when the engine's calls
// answered by SQL take turns (Options.SQLTurns), and returns its release.
func (e *Engine) sqlTurn(ctx context.Context) (func(), error) {
	if !e.sqlTurns {
		return func() {}, nil
	}
	return e.memTurn(ctx)
}

// memTurn waits for a turn to answer in memory (or by SQL, sqlTurn) and
// returns its release.
// An answer in memory never waits on anything, so more of them at once
// than processors only share the processors; the scheduler then runs
// some calls through while it preempts others for the length of every
// other call's time slice (sixteen clients on two cores: a p50 of 3 ms
// and a p95 of 165 ms for 3 ms of work). Turns taken in arrival order
// make each call wait for the calls before it only (the runtime queues a
// channel's waiting senders first in, first out).
func (e *Engine) memTurn(ctx context.Context) (func(), error) {
	// A call whose context has ended gets no turn, even a free one.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case e.memTurns <- struct{}{}:
		return func() { <-e.memTurns }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
