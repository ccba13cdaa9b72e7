// Package metrictest is the contract every backend of package metric
// passes (store/duckdb, store/postgres): each example catalog's metrics,
// compiled and run on the backend and re-derived in Go, equal the values
// their fixtures computed by hand; and on random small datasets and random
// requests the compiled SQL equals the re-derivation.
package metrictest

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/metric"
)

// Backend is a database the suite runs on.
type Backend struct {
	Name string
	// Open returns a fresh, empty database the suite may create tables in.
	Open func(t *testing.T) *sql.DB
	// Sink returns the backend's import sink over db.
	Sink func(db *sql.DB) ingest.Sink
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

// Fixture is a metric's fixture file: the rows it runs over (JSON Lines
// of the model's dataset, and of reference tables by entity, with the
// keys id, name and the reference's further columns), and cases, each a
// request and the table expected.
type Fixture struct {
	Rows       string            `yaml:"rows"`
	References map[string]string `yaml:"references"`
	Cases      []Case            `yaml:"cases"`
}

// Case is one request of a fixture and its hand-computed table.
type Case struct {
	Name    string    `yaml:"name"`
	Request Request   `yaml:"request"`
	Expect  []Expectd `yaml:"expect"`
	// Keys are the contributing rows' keys, when the case checks them.
	Keys []string `yaml:"keys"`
}

// Request is metric.Request as a fixture writes it.
type Request struct {
	Dimensions []string `yaml:"dimensions"`
	Filters    []struct {
		Dimension string   `yaml:"dimension"`
		Op        string   `yaml:"op"`
		Values    []string `yaml:"values"`
	} `yaml:"filters"`
	Window struct {
		Start time.Time `yaml:"start"`
		End   time.Time `yaml:"end"`
	} `yaml:"window"`
	Grain string `yaml:"grain"`
	Order struct {
		By   string `yaml:"by"`
		Desc bool   `yaml:"desc"`
	} `yaml:"order"`
	Limit int       `yaml:"limit"`
	Scope *[]string `yaml:"scope"`
}

// Expectd is one expected row: the dimension values (null for empty), the
// bucket, the value (null for none).
type Expectd struct {
	Dims   []*string `yaml:"dims"`
	Bucket time.Time `yaml:"bucket"`
	Value  *float64  `yaml:"value"`
}

func (r Request) metricRequest(name string) metric.Request {
	out := metric.Request{
		Metric: name, Dimensions: r.Dimensions, Start: r.Window.Start, End: r.Window.End,
		Grain: r.Grain, Order: metric.Order{By: r.Order.By, Desc: r.Order.Desc}, Limit: r.Limit, Scope: metric.All(),
	}
	for _, f := range r.Filters {
		out.Filters = append(out.Filters, metric.Filter{Dimension: f.Dimension, Op: f.Op, Values: f.Values})
	}
	if r.Scope != nil {
		out.Scope = metric.Only(*r.Scope...)
	}
	return out
}

// ReadFixture reads a metric's fixture strictly (an unknown key is an
// error).
func ReadFixture(t testing.TB, cat *catalog.Catalog, m *catalog.Metric) (*Fixture, string) {
	t.Helper()
	p := filepath.Join(CatalogDir, filepath.FromSlash(m.Fixture.Value))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("metric %s: read fixture: %v", m.Name.Value, err)
	}
	var fx Fixture
	if err := yaml.UnmarshalWithOptions(b, &fx, yaml.Strict(), yaml.DisallowUnknownField()); err != nil {
		t.Fatalf("metric %s: fixture %s: %v", m.Name.Value, p, err)
	}
	if fx.Rows == "" || len(fx.Cases) == 0 {
		t.Fatalf("metric %s: fixture %s wants rows and at least one case", m.Name.Value, p)
	}
	return &fx, filepath.Dir(p)
}

// RunFixtures checks every metric of the example catalogs against its
// fixture on b: the compiled query's table and the re-derivation's both
// equal the hand-computed one (values within the metric's tolerance), and
// Verify accepts the pair.
func RunFixtures(t *testing.T, b Backend) {
	for _, file := range Catalogs {
		t.Run(strings.TrimSuffix(file, ".yaml"), func(t *testing.T) {
			cat := LoadCatalog(t, file)
			if len(cat.Metrics) < 6 {
				t.Errorf("%s declares %d metrics, want at least 6", file, len(cat.Metrics))
			}
			for _, m := range cat.Metrics {
				t.Run(m.Name.Value, func(t *testing.T) {
					fx, dir := ReadFixture(t, cat, m)
					db := b.Open(t)
					sm := cat.ModelOf(m)
					if err := ImportFixture(t.Context(), db, b.Sink(db), cat, cat.Dataset(sm.Dataset.Value), dir, fx); err != nil {
						t.Fatal(err)
					}
					for _, c := range fx.Cases {
						t.Run(c.Name, func(t *testing.T) {
							req := c.Request.metricRequest(m.Name.Value)
							q, err := metric.Compile(cat, req, nil)
							if err != nil {
								t.Fatal(err)
							}
							got, err := q.Run(t.Context(), db)
							if err != nil {
								t.Fatalf("%v\n%s", err, q.SQL)
							}
							re, err := metric.Rederive(t.Context(), db, cat, req, nil)
							if err != nil {
								t.Fatal(err)
							}
							tol := m.ToleranceOf()
							ordered := req.Order.By != ""
							if err := sameTable(got, c.Expect, ordered, tol); err != nil {
								t.Errorf("compiled SQL: %v\n%s", err, q.SQL)
							}
							limited := re
							if req.Limit > 0 {
								limited = topN(re, req)
							}
							if err := sameTable(limited, c.Expect, ordered, tol); err != nil {
								t.Errorf("re-derivation: %v", err)
							}
							if err := metric.Verify(req, got, re, tol); err != nil {
								t.Errorf("Verify: %v", err)
							}
							if c.Keys != nil {
								p := metric.ProvenanceOf(q, re, 0)
								if !slices.Equal(p.Keys, c.Keys) || p.Rows != len(c.Keys) || p.Partial {
									t.Errorf("provenance keys %v (%d rows), want %v", p.Keys, p.Rows, c.Keys)
								}
							}
						})
					}
				})
			}
		})
	}
}

// topN orders a re-derived table by value and keeps req.Limit rows.
func topN(t *metric.Table, req metric.Request) *metric.Table {
	out := *t
	out.Rows = slices.Clone(t.Rows)
	slices.SortStableFunc(out.Rows, func(a, b metric.Row) int {
		switch {
		case a.Value == nil && b.Value == nil:
			return 0
		case a.Value == nil:
			return 1
		case b.Value == nil:
			return -1
		}
		c := 0
		if *a.Value < *b.Value {
			c = -1
		} else if *a.Value > *b.Value {
			c = 1
		}
		if req.Order.Desc {
			c = -c
		}
		return c
	})
	if len(out.Rows) > req.Limit {
		out.Rows = out.Rows[:req.Limit]
	}
	return &out
}

// sameTable compares a table with the expected rows: as a set, or in order
// when ordered.
func sameTable(got *metric.Table, want []Expectd, ordered bool, tol float64) error {
	label := func(dims []*string, bucket time.Time) string {
		var parts []string
		for _, d := range dims {
			if d == nil {
				parts = append(parts, "null")
			} else {
				parts = append(parts, *d)
			}
		}
		if !bucket.IsZero() {
			parts = append(parts, bucket.UTC().Format(time.RFC3339))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	if len(got.Rows) != len(want) {
		var gl []string
		for _, r := range got.Rows {
			gl = append(gl, label(r.Dims, r.Bucket)+"="+show(r.Value))
		}
		return fmt.Errorf("%d rows %v, want %d", len(got.Rows), gl, len(want))
	}
	used := make([]bool, len(got.Rows))
	for i, w := range want {
		found := -1
		for j, r := range got.Rows {
			if used[j] || ordered && j != i || label(r.Dims, r.Bucket) != label(w.Dims, w.Bucket) {
				continue
			}
			found = j
			break
		}
		if found < 0 {
			return fmt.Errorf("no row %s (in position %d)", label(w.Dims, w.Bucket), i)
		}
		used[found] = true
		if !metric.Agree(got.Rows[found].Value, w.Value, tol) {
			return fmt.Errorf("row %s: value %s, want %s", label(w.Dims, w.Bucket), show(got.Rows[found].Value), show(w.Value))
		}
	}
	return nil
}

func show(f *float64) string {
	if f == nil {
		return "null"
	}
	return fmt.Sprint(*f)
}

// ImportFixture loads a fixture's rows into ds's table through sink
// (ingest.Import, as `provenant import` does) and its reference rows
// through ingest.ImportReference.
func ImportFixture(ctx context.Context, db *sql.DB, sink ingest.Sink, cat *catalog.Catalog, ds *catalog.Dataset, dir string, fx *Fixture) error {
	l, err := ingest.NewLayout(cat, ds.Name.Value)
	if err != nil {
		return err
	}
	rows := filepath.Join(dir, filepath.FromSlash(path.Clean(fx.Rows)))
	f, err := os.Open(rows)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := ingest.Import(ctx, sink, l, ingest.NewJSONL(fx.Rows, l, f)); err != nil {
		return fmt.Errorf("import %s: %w", fx.Rows, err)
	}
	for _, ent := range slices.Sorted(maps.Keys(fx.References)) {
		e := ds.Entity(ent)
		if e == nil || e.Reference == nil {
			return fmt.Errorf("fixture reference %s: no such entity with a reference", ent)
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path.Clean(fx.References[ent]))))
		if err != nil {
			return err
		}
		var refs []ingest.ReferenceRow
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			var m map[string]string
			if err := yaml.UnmarshalWithOptions(sc.Bytes(), &m, yaml.Strict()); err != nil {
				return fmt.Errorf("reference %s: %w", ent, err)
			}
			r := ingest.ReferenceRow{ID: m["id"], Name: m["name"], Columns: map[string]string{}}
			for k, v := range m {
				if k != "id" && k != "name" {
					r.Columns[k] = v
				}
			}
			refs = append(refs, r)
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := ingest.ImportReference(ctx, tx, fx.References[ent], e, refs); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
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
					fx, dir := ReadFixture(t, cat, m)
					db := b.Open(t)
					sm := cat.ModelOf(m)
					ds := cat.Dataset(sm.Dataset.Value)
					if err := ImportFixture(t.Context(), db, b.Sink(db), cat, ds, dir, fx); err != nil {
						t.Fatal(err)
					}
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
