// Package metrictest is the contract every backend of package metric
// passes (store/duckdb, store/postgres): each example catalog's metrics,
// compiled and run on the backend and re-derived in Go, equal the values
// their fixtures computed by hand; and on random small datasets and random
// requests the compiled SQL equals the re-derivation.
package metrictest

import (
	"context"
	"database/sql"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/metric/fixture"
)

// Backend is a database the suite runs on.
type Backend struct {
	Name string
	// Open returns a fresh, empty database the suite may create tables in.
	Open func(t *testing.T) *sql.DB
	// Sink returns the backend's import sink over db.
	Sink func(db *sql.DB) ingest.Sink
	// KeyOrder is the backend's metric.Options.KeyOrder (nil: it orders
	// text bytewise); NonBytewise, when set, makes a table's text column
	// order otherwise than bytewise (RunFloorsKeyOrder).
	KeyOrder    func(expr string) string
	NonBytewise func(ctx context.Context, db *sql.DB, table, column string) error
}

// CatalogDir is where the example catalogs are, relative to a backend
// package two levels below the module root (store/duckdb, store/postgres).
var CatalogDir = "../../catalogs"

// Catalogs are the example catalogs whose metrics the suite checks.
var Catalogs = []string{"retail.yaml", "warehouse.yaml"}

// LoadCatalog reads an example catalog with its fixtures checked.
func LoadCatalog(t testing.TB, file string) *catalog.Catalog {
	t.Helper()
	c, err := catalog.LoadFS(os.DirFS(CatalogDir), file)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// RunFixtures checks every metric of the example catalogs against its
// fixture on b (package fixture): the compiled query's table and the
// re-derivation's both equal the hand-computed one (values within the
// metric's tolerance), Verify accepts the pair, and the contributing keys
// are the fixture's where it lists them.
func RunFixtures(t *testing.T, b Backend) {
	for _, file := range Catalogs {
		t.Run(strings.TrimSuffix(file, ".yaml"), func(t *testing.T) {
			cat := LoadCatalog(t, file)
			if len(cat.Metrics) < 6 {
				t.Errorf("%s declares %d metrics, want at least 6", file, len(cat.Metrics))
			}
			for _, m := range cat.Metrics {
				t.Run(m.Name.Value, func(t *testing.T) {
					fx, db := openFixture(t, b, cat, m)
					outs, err := fx.Run(t.Context(), db, cat, m)
					if err != nil {
						t.Fatal(err)
					}
					for _, o := range outs {
						for _, p := range o.Problems {
							t.Errorf("case %q: %v\n%s", o.Case, p, o.Query.SQL)
						}
					}
				})
			}
		})
	}
}

// openFixture reads m's fixture and imports its rows into a fresh
// database of b.
func openFixture(t *testing.T, b Backend, cat *catalog.Catalog, m *catalog.Metric) (*fixture.File, *sql.DB) {
	t.Helper()
	fsys := os.DirFS(CatalogDir)
	fx, err := fixture.Read(fsys, m.Fixture.Value)
	if err != nil {
		t.Fatalf("metric %s: %v", m.Name.Value, err)
	}
	db := b.Open(t)
	ds := cat.Dataset(cat.ModelOf(m).Dataset.Value)
	if err := fx.Import(t.Context(), db, b.Sink(db), cat, ds, fsys, path.Dir(m.Fixture.Value)); err != nil {
		t.Fatal(err)
	}
	return fx, db
}

// RunEveryShape compiles, for every metric of the example catalogs, a
// request for each allowed dimension (alone, with a filter on it and
// ordered by value) at each allowed grain, runs it on b over the metric's
// fixture rows, and verifies it against the re-derivation: every query
// the catalogs allow parses, binds and agrees on the backend.
func RunEveryShape(t *testing.T, b Backend) {
	for _, file := range Catalogs {
		t.Run(strings.TrimSuffix(file, ".yaml"), func(t *testing.T) {
			cat := LoadCatalog(t, file)
			for _, m := range cat.Metrics {
				t.Run(m.Name.Value, func(t *testing.T) {
					fx, db := openFixture(t, b, cat, m)
					sm := cat.ModelOf(m)
					ds := cat.Dataset(sm.Dataset.Value)
					w := fx.Cases[0].Request.Window
					grains := []string{catalog.GrainNone}
					if m.Grain.Value != catalog.GrainNone {
						for _, g := range catalog.Grains()[1:] {
							if catalog.GrainRank(g) >= catalog.GrainRank(m.Grain.Value) {
								grains = append(grains, g)
							}
						}
					}
					for _, g := range grains {
						for _, d := range m.Dimensions {
							dim := sm.Dimension(d.Value)
							vals := dimensionValues(ds, sm, dim)
							req := metric.Request{Metric: m.Name.Value, Dimensions: []string{d.Value}, Start: w.Start, End: w.End,
								Grain: g, Order: metric.Order{By: metric.OrderValue, Desc: true}, Limit: 2, Scope: metric.All(),
								Filters: []metric.Filter{{Dimension: d.Value, Op: "not_in", Values: vals[:1]}}}
							q, err := metric.Compile(cat, req, nil)
							if err != nil {
								t.Fatalf("%s by %s at %s: %v", m.Name.Value, d.Value, g, err)
							}
							got, err := q.Run(t.Context(), db)
							if err != nil {
								t.Fatalf("%s by %s at %s: %v\n%s", m.Name.Value, d.Value, g, err, q.SQL)
							}
							re, err := metric.Rederive(t.Context(), db, cat, req, nil)
							if err != nil {
								t.Fatal(err)
							}
							if err := metric.Verify(req, got, re, m.ToleranceOf()); err != nil {
								t.Errorf("%s by %s at %s: %v", m.Name.Value, d.Value, g, err)
							}
						}
					}
				})
			}
		})
	}
}
