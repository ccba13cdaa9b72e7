// Package engine assembles a grounded-answer engine from a catalog, a
// database and a provider: the registry derived from the catalog, the
// wall, the shapes' executor and resolver over the database (package
// shape), and the pipeline. Every surface (CLI, HTTP, MCP, eval) builds one
// Engine and asks through its Pipeline.
//
// OpenCatalog answers over a database that already holds the catalog's
// data. Open is the retail demo's path: it imports a store file into a
// fresh database (the embedded DuckDB, from an Opener) and opens the
// embedded retail catalog over it.
//
// The package does not import store/duckdb, so that only the command and
// the tests that open engines link it (cgo); internal/archtest keeps it so.
package engine

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/calibration"
	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/retail/storefile"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// Engine is a loaded engine. Close releases what it opened.
type Engine struct {
	Pipeline *pipeline.Pipeline
	// Registry is the tool registry the wall checks against and every
	// surface describes, derived from Catalog.
	Registry *tool.Registry
	Catalog  *catalog.Catalog
	// DatasetVersion is the version of the store file Open imported ("" for
	// OpenCatalog: each answer names its own data_version).
	DatasetVersion string
	// Register is where decisions are recorded (Options.Register); nil
	// when the command opened none.
	Register DecisionRegister

	runner    *shapeRunner
	wall      *tool.Wall
	summaries summaryCache // Summary's, per data version and scope
	closers   []func() error
}

// OnClose adds f to what Close releases (the database a caller opened for
// OpenCatalog, say).
func (e *Engine) OnClose(f func() error) { e.closers = append(e.closers, f) }

// Database is a fresh, empty database a store file is imported into.
type Database struct {
	DB *sql.DB
	// Sink writes an import into DB (store/duckdb's NewSink).
	Sink func(*ingest.SinkOptions) ingest.Sink
}

// Opener opens a fresh, empty Database: the embedded DuckDB in memory in
// the command and the tests. Close on the engine closes its DB.
type Opener func(ctx context.Context) (*Database, error)

// DecisionRegister is where the engine's decisions are recorded: a
// *register.Register over the store the command opened (a register file,
// or the register of a state database shared by several processes). The
// write path appends a decision record for every write it makes.
type DecisionRegister interface {
	Append(ctx context.Context, r register.Record) (register.Record, error)
	Head() register.Head
}

var _ DecisionRegister = (*register.Register)(nil)

// Options configures Open; nil means defaults.
type Options struct {
	Provider provider.Provider // nil: the rules provider
	Observer pipeline.Observer // nil: none
	Logger   *slog.Logger      // nil: discard
	// DefaultScope is the scope of requests that carry none; nil means
	// every store (local single-user mode). See pipeline.Options.
	DefaultScope *tool.Scope
	// SelfConsistency votes over sampled proposals for the hard question
	// classes; nil means off. See pipeline.SelfConsistency.
	SelfConsistency *pipeline.SelfConsistency
	// RefuseUngrounded abstains on a composed sentence the grounding check
	// refuses, instead of shipping the fact with a code-rendered sentence.
	RefuseUngrounded bool
	// Abstention is a calibrated abstention policy; nil means none.
	Abstention *calibration.Policy
	// ResultIDs hands out result ids; nil means a ledger.Allocator
	// (unique across processes). See pipeline.Options.
	ResultIDs ledger.IDSource
	// Now is the clock relative time in a question is resolved against,
	// read once per question; nil means none. See pipeline.Options.
	Now func() time.Time
	// ProvenanceLimit is how many event ids a catalog engine's answer
	// lists (0: shape.DefaultMaxKeys, 1,000); beyond it the answer carries
	// the first ones, the count and the digest of them all.
	ProvenanceLimit int
	// MemoryRows: a catalog engine reads each dataset of at most this
	// many rows into memory when it opens and answers it there (see
	// shape.Options.MemoryRows), for data that does not change while
	// served; 0 reads none (Open: StoreFileMemoryRows; a store file
	// cannot change).
	MemoryRows int
	// SQLTurns: a catalog engine's calls answered by SQL take turns, as
	// many at once as processors (shape.Options.SQLTurns): for a DuckDB
	// database run with one thread a query.
	SQLTurns bool
	// MetricGoRows is the most rows a query_metric call's re-derivation
	// reads into Go before it re-derives in SQL instead
	// (metric.Options.MaxGoRows: 0 for metric.DefaultMaxGoRows, negative
	// for SQL always).
	MetricGoRows int
	// MetricResolveRows is the most contributing rows, as the resolver
	// counts them from the key digests, for which a query_metric call
	// whose values the value rollups answer is re-derived from the rows
	// instead (metric.Options.ResolveRows: 0 for
	// metric.DefaultResolveRows, negative for the rollups always).
	MetricResolveRows int
	// MetricResolveFrom is the least span of whole hours for which such a
	// call is re-derived from the value rollups (metric.Options.ResolveFrom:
	// 0 for metric.ResolveFromRollups).
	MetricResolveFrom time.Duration
	// MetricRollups lets a query_metric call over a long window take its
	// provenance from the dataset's per-hour key digests, when the import
	// built them (shape.DeriveOptions.RollupKeys): past the provenance
	// limit, the count and an lthash digest combined from the digests and
	// the edge rows' keys, and the first keys in bytewise order, instead
	// of every key read and hashed twice. Off by default.
	MetricRollups bool
	// MetricValueRollups lets a query_metric call over a long window take
	// its values from the per-hour value rollups an import built
	// (shape.DeriveOptions.RollupValues): the compiled query sums the
	// window's whole hours from them and computes its partial edge hours
	// from the rows, and the resolver re-derives it by
	// metric.RederiveValues (a second summation and a seeded spot check
	// of the stored hours against the rows) when its provenance is summed
	// from the key digests (MetricRollups). Off by default.
	MetricValueRollups bool
	// WindowDigests lets a count_rows_in_window call of more rows than
	// the provenance limit take its count and an lthash digest from the
	// dataset's per-hour window digests, when the import built them
	// (shape.DeriveOptions.WindowKeys), and its first keys from a bounded
	// query, instead of every key read and digested twice
	// (shape.Options.WindowDigests). Off by default.
	WindowDigests bool
	// MetricConcurrency is the most query_metric reads (the compiled
	// query with its re-derivation, the resolver's re-derivation, a rows
	// page) that run at once on the engine's database; a call waits for
	// its turn within its deadline. 0 means runtime.GOMAXPROCS(0). A
	// metric read sorts every row that reaches its window, and DuckDB's
	// memory limit holds for the whole database: sixteen week-long reads
	// at once over 10,000,000 events exhausted the served file's 256 MB
	// (bench/scale -metrics), where DuckDB's window operator fails rather
	// than spill. On as many cores as slots, waiting costs no throughput.
	MetricConcurrency int
	// FreeSQL is the sandbox runner of a catalog that opts in to free
	// SQL (`sql: {free: true}`): query_sql joins its menu and its calls
	// run there. Required for such a catalog, ignored for any other
	// by OpenCatalog; Open (a store file, which has no catalog file to
	// opt in with) turns free SQL on when it is set.
	// Tool defaults to shape.QuerySQL, Tables to the catalog's
	// allowlist.
	FreeSQL *pipeline.FreeSQL
	// Events and Budget: the pipeline's event log and budgets; nil means
	// none. See pipeline.Options.
	Events *pipeline.Events
	Budget *budget.Config
	// SessionBudget is where the session budget is kept (see
	// pipeline.Options); nil: in memory.
	SessionBudget pipeline.SessionBudget
	// Register is the decision register; nil means none (Engine.Register).
	Register DecisionRegister
	// Repair runs the repair loop (pipeline.Repair) with the catalog's
	// metrics (definition, domain, history over earlier windows) filled
	// in; nil: off.
	Repair *pipeline.Repair
	// Autonomy is the autonomy gate and the write path (see
	// autonomy.go in this package); nil: every session at L1, and a
	// catalog's write tools, when it enables them, refused.
	Autonomy *Autonomy
}

// LoadDataset reads a store file, or the embedded demo store when path is
// "".
func LoadDataset(path string) (*retail.Dataset, error) {
	if path == "" {
		return demo.Load()
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open store file: %w", err)
	}
	defer f.Close()
	return retail.Load(f)
}

// Open imports the store file d into a fresh database from open (its
// stores and products as the reference tables of the retail catalog, its
// events as the scans dataset, derived as an import derives them) and
// opens the embedded retail catalog over it. Every answer is then the
// catalog engine's; the dataset's version names the snapshot. Nothing
// writes to that database after: the catalog engine holds a store of up
// to StoreFileMemoryRows events in memory and answers there
// (Options.MemoryRows), where a call costs microseconds, not the
// database's fixed cost per query; a larger one is answered by SQL.
func Open(ctx context.Context, d *retail.Dataset, open Opener, opts *Options) (*Engine, error) {
	cat, err := catalogs.Load(storefile.Catalog)
	if err != nil {
		return nil, fmt.Errorf("open engine: %w", err)
	}
	if opts != nil && opts.FreeSQL != nil {
		// A store file has no catalog file to opt in with: a sandbox
		// runner is the opt-in.
		cat = cat.WithFreeSQL()
	}
	if opts != nil && opts.Autonomy != nil && opts.Autonomy.Writes {
		// Nor to enable writes with: the option is.
		cat = cat.WithWrites()
	}
	db, err := open(ctx)
	if err != nil {
		return nil, fmt.Errorf("open engine: %w", err)
	}
	if err := importStoreFile(ctx, cat, db, d); err != nil {
		db.DB.Close()
		return nil, fmt.Errorf("open engine: %w", err)
	}
	src := shape.Source{DB: db.DB, Versions: map[string]string{storefile.Dataset: d.Version}}
	e, err := openCatalog(ctx, cat, src, opts, true)
	if err != nil {
		db.DB.Close()
		return nil, err
	}
	e.DatasetVersion = d.Version
	e.OnClose(db.DB.Close)
	return e, nil
}

// importStoreFile imports d into db: the reference tables and the scans,
// in one transaction, derived before it commits.
func importStoreFile(ctx context.Context, cat *catalog.Catalog, db *Database, d *retail.Dataset) error {
	ds := cat.Dataset(storefile.Dataset)
	if ds == nil {
		return fmt.Errorf("import store file: catalog %s has no dataset %s", cat.Name.Value, storefile.Dataset)
	}
	refs := storefile.References(d)
	l, err := ingest.NewLayout(cat, storefile.Dataset)
	if err != nil {
		return fmt.Errorf("import store file: %w", err)
	}
	opts := shape.ImportOptions(nil)
	derive := opts.AfterInsert
	opts.AfterInsert = func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
		for _, e := range ds.Entities {
			if rows, ok := refs[e.Name.Value]; ok && e.Reference != nil {
				if err := ingest.ImportReference(ctx, tx, "store file", e, rows); err != nil {
					return err
				}
			}
		}
		return derive(ctx, tx, l)
	}
	sink := db.Sink(opts)
	if _, err := ingest.Import(ctx, sink, l, ingest.NewRecords("store file", l, storefile.Records(d))); err != nil {
		return fmt.Errorf("import store file: %w", err)
	}
	return nil
}

// Close releases what the engine opened and what OnClose added; it
// returns the first error.
func (e *Engine) Close() error {
	var first error
	for _, f := range e.closers {
		if err := f(); err != nil && first == nil {
			first = err
		}
	}
	e.closers = nil
	return first
}

// RetailRegistry derives the tool registry of the embedded retail catalog
// (catalogs/retail.yaml): the six tools of the demo.
func RetailRegistry() (*tool.Registry, error) {
	cat, err := catalogs.Load("retail")
	if err != nil {
		return nil, err
	}
	return shape.NewRegistry(cat)
}
