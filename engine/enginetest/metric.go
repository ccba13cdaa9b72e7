package enginetest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io/fs"
	"path"
	"testing"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/metric/fixture"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
)

// Derived are sink options that derive the shapes' structures in each
// import's transaction, as `provenant import` does.
func Derived() *ingest.SinkOptions {
	return &ingest.SinkOptions{AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
		return shape.Derive(ctx, tx, l.Dataset, l.Table, nil)
	}}
}

func sink(db *sql.DB) ingest.Sink { return duckdb.NewSink(db, Derived()) }

// OpenWarehouse imports n events of the warehouse demo generator into an
// in-memory DuckDB and opens a catalog engine over catalogs/warehouse.yaml
// with opts; both close when tb ends.
func OpenWarehouse(tb testing.TB, n int, opts *engine.Options) *engine.Engine {
	tb.Helper()
	return OpenWarehouseDerived(tb, n, opts, nil)
}

// OpenWarehouseDerived is OpenWarehouse with the import deriving its
// structures with d (shape.Derive's options; nil: defaults).
func OpenWarehouseDerived(tb testing.TB, n int, opts *engine.Options, d *shape.DeriveOptions) *engine.Engine {
	tb.Helper()
	return openWarehouse(tb, n, opts, d, false)
}

// OpenWarehouseUnchanging is OpenWarehouseDerived with the data versions
// read once at open, as serve reads a DuckDB file it opens read-only
// (shape.Source.Versions): the engine's data cannot change while it
// serves (shape.Engine.Unchanging).
func OpenWarehouseUnchanging(tb testing.TB, n int, opts *engine.Options, d *shape.DeriveOptions) *engine.Engine {
	tb.Helper()
	return openWarehouse(tb, n, opts, d, true)
}

// OpenWarehouseUnchangingDB is OpenWarehouseUnchanging with the database
// the engine reads, for tests of the connections it takes.
func OpenWarehouseUnchangingDB(tb testing.TB, n int, opts *engine.Options, d *shape.DeriveOptions) (*engine.Engine, *sql.DB) {
	tb.Helper()
	return openWarehouseDB(tb, n, opts, d, true)
}

func openWarehouse(tb testing.TB, n int, opts *engine.Options, d *shape.DeriveOptions, fixed bool) *engine.Engine {
	tb.Helper()
	e, _ := openWarehouseDB(tb, n, opts, d, fixed)
	return e
}

func openWarehouseDB(tb testing.TB, n int, opts *engine.Options, d *shape.DeriveOptions, fixed bool) (*engine.Engine, *sql.DB) {
	tb.Helper()
	ctx := tb.Context()
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		tb.Fatal(err)
	}
	db, err := duckdb.OpenMemory(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	l, err := ingest.NewLayout(cat, "status_events")
	if err != nil {
		tb.Fatal(err)
	}
	if d != nil && d.Catalog == nil {
		c := *d
		c.Catalog = cat
		d = &c
	}
	sk := duckdb.NewSink(db, &ingest.SinkOptions{AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
		return shape.Derive(ctx, tx, l.Dataset, l.Table, d)
	}})
	if _, err := ingest.Import(ctx, sk, l, ingest.NewJSONL("demo.jsonl", l, bytes.NewReader(ingesttest.DemoJSONL(tb, n)))); err != nil {
		tb.Fatal(err)
	}
	src := shape.Source{DB: db}
	if fixed {
		if src.Versions, err = shape.ReadVersions(ctx, cat, src); err != nil {
			tb.Fatal(err)
		}
	}
	e, err := engine.OpenCatalog(ctx, cat, src, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e, db
}

// OpenFixture imports the fixture rows (and references) of metric m of
// cat (an embedded catalog) into an in-memory DuckDB and opens a catalog
// engine over them, returning it with the fixture, whose cases hold the
// hand-computed tables. An entity whose reference the fixture does not
// import gets one declaring the ids its rows name, so the engine (which
// reads every declared reference when it opens) opens.
func OpenFixture(tb testing.TB, cat *catalog.Catalog, m *catalog.Metric) (*engine.Engine, *fixture.File) {
	tb.Helper()
	db, err := duckdb.OpenMemory(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return OpenFixtureOn(tb, cat, m, shape.Source{DB: db}, sink(db))
}

// OpenFixtureOn is OpenFixture on the database src holds (empty), whose
// rows sink imports (with Derived's options).
func OpenFixtureOn(tb testing.TB, cat *catalog.Catalog, m *catalog.Metric, src shape.Source, sink ingest.Sink) (*engine.Engine, *fixture.File) {
	tb.Helper()
	return OpenFixtureWith(tb, cat, m, src, sink, nil)
}

// OpenFixtureWith is OpenFixtureOn with the engine's options.
func OpenFixtureWith(tb testing.TB, cat *catalog.Catalog, m *catalog.Metric, src shape.Source, sink ingest.Sink, opts *engine.Options) (*engine.Engine, *fixture.File) {
	tb.Helper()
	fsys := catalogs.Files()
	fx, err := fixture.Read(fsys, m.Fixture.Value)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := tb.Context()
	db := src.DB
	ds := cat.Dataset(cat.ModelOf(m).Dataset.Value)
	dir := path.Dir(m.Fixture.Value)
	if err := fx.Import(ctx, db, sink, cat, ds, fsys, dir); err != nil {
		tb.Fatal(err)
	}
	raw, err := fs.ReadFile(fsys, path.Join(dir, fx.Rows))
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range ds.Entities {
		if _, imported := fx.References[e.Name.Value]; imported || e.Reference == nil || e.Reference.Table.Value == "" {
			continue
		}
		var refs []ingest.ReferenceRow
		seen := map[string]bool{}
		for _, line := range bytes.Split(raw, []byte("\n")) {
			var row map[string]any
			if json.Unmarshal(line, &row) != nil {
				continue
			}
			if id, ok := row[e.Column.Value].(string); ok && !seen[id] {
				seen[id] = true
				refs = append(refs, ingest.ReferenceRow{ID: id, Name: id})
			}
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			tb.Fatal(err)
		}
		if err := ingest.ImportReference(ctx, tx, "fixture", e, refs); err != nil {
			tx.Rollback()
			tb.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			tb.Fatal(err)
		}
	}
	e, err := engine.OpenCatalog(ctx, cat, src, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e, fx
}
