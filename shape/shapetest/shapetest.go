// Package shapetest is the contract every backend of package shape
// passes: on random datasets of the example catalogs and random calls, the
// executor agrees with an oracle written here in plain Go (a third
// computation, sharing nothing with the SQL), the resolver passes every
// answer, and each verdict clause still fails on a result tampered to
// break it.
package shapetest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/shape"
)

// Backend is a database the suite runs on.
type Backend struct {
	Name string
	// Open returns a fresh, empty database the suite may create tables
	// in, and the transaction options of a snapshot on it.
	Open func(t *testing.T) (*sql.DB, *sql.TxOptions)
	// Pipeline, when set, is the backend's shape.Pipeliner on a database
	// Open returned (Source.Pipeline).
	Pipeline func(*sql.DB) shape.Pipeliner
}

// pipeline is b's Pipeliner on db, or nil.
func (b Backend) pipeline(db *sql.DB) shape.Pipeliner {
	if b.Pipeline == nil {
		return nil
	}
	return b.Pipeline(db)
}

// CatalogDir is where the example catalogs are, relative to a backend
// package two levels below the module root (store/duckdb, store/postgres).
var CatalogDir = "../../catalogs"

// Fixture is one example catalog with the id pools random rows draw from.
type Fixture struct {
	File  string
	Pools map[string][]string // entity name → ids
}

// Fixtures are the example catalogs.
var Fixtures = []Fixture{
	{"retail.yaml", map[string][]string{
		"store": {"st-001", "st-002", "st-003"}, "product": {"pr-001", "pr-002", "pr-003", "pr-004"}}},
	{"warehouse.yaml", map[string][]string{
		"device": {"dev-0001", "dev-0002", "dev-0003", "dev-0004", "dev-0005"}, "zone": {"zone-01", "zone-02", "zone-03"}}},
}

// LoadCatalog reads an example catalog.
func LoadCatalog(t testing.TB, file string) *catalog.Catalog {
	t.Helper()
	path := filepath.Join(CatalogDir, file)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := catalog.Load(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Row is one event: its key, time, and column values (nil for empty).
type Row struct {
	Key  string
	Time time.Time
	Str  map[string]*string  // entity and enumerated columns
	Num  map[string]*float64 // numeric columns
}

// base is the first instant of generated data; instants are whole minutes
// after it, few enough that ties are common.
var base = time.Date(2026, 1, 6, 8, 0, 0, 0, time.UTC)

func instant(m int) time.Time { return base.Add(time.Duration(m) * time.Minute) }

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// genRows draws a dataset: up to 40 rows over 12 instants.
func genRows(t *rapid.T, ds *catalog.Dataset, pools map[string][]string) []Row {
	n := rapid.IntRange(0, 40).Draw(t, "rows")
	rows := make([]Row, n)
	for i := range rows {
		r := Row{
			// Fixed width, so that bytewise and collated orders agree.
			Key:  fmt.Sprintf("k-%05d", rapid.IntRange(0, 99999).Draw(t, "key")),
			Time: instant(rapid.IntRange(0, 11).Draw(t, "minute")),
			Str:  map[string]*string{},
			Num:  map[string]*float64{},
		}
		for _, e := range ds.Entities {
			v := rapid.SampledFrom(pools[e.Name.Value]).Draw(t, e.Name.Value)
			r.Str[e.Column.Value] = &v
		}
		for _, a := range ds.Attributes {
			if a.Optional && rapid.Bool().Draw(t, "null") {
				continue
			}
			if a.Enumerated() {
				v := rapid.SampledFrom(refs(a.Values)).Draw(t, a.Name.Value)
				r.Str[a.Column.Value] = &v
				continue
			}
			f := float64(rapid.IntRange(0, 100).Draw(t, a.Name.Value))
			if a.Type.Value != "integer" && rapid.Bool().Draw(t, "fraction") {
				f += 0.5
			}
			r.Num[a.Column.Value] = &f
		}
		rows[i] = r
	}
	// Keys are unique.
	seen := map[string]bool{}
	out := rows[:0]
	for _, r := range rows {
		if !seen[r.Key] {
			seen[r.Key] = true
			out = append(out, r)
		}
	}
	return out
}

func refs(rs []catalog.Ref) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Value
	}
	return out
}

// Load creates table rel for ds in db and inserts rows, with _ingest_seq
// 1..n in row order. The DDL is the portable subset both backends take.
func Load(ctx context.Context, db *sql.DB, ds *catalog.Dataset, rel string, rows []Row) error {
	cols := []string{ds.Key.Value, ds.Time.Value}
	defs := []string{q(ds.Key.Value) + " VARCHAR NOT NULL", q(ds.Time.Value) + " TIMESTAMP NOT NULL"}
	for _, e := range ds.Entities {
		cols = append(cols, e.Column.Value)
		defs = append(defs, q(e.Column.Value)+" VARCHAR NOT NULL")
	}
	for _, a := range ds.Attributes {
		cols = append(cols, a.Column.Value)
		typ := "VARCHAR"
		switch {
		case a.Enumerated():
		case a.Type.Value == "integer":
			typ = "BIGINT"
		default:
			typ = "DOUBLE PRECISION"
		}
		if !a.Optional {
			typ += " NOT NULL"
		}
		defs = append(defs, q(a.Column.Value)+" "+typ)
	}
	defs = append(defs, q(shape.SeqColumn)+" BIGINT NOT NULL")
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+rel+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	return Append(ctx, db, ds, rel, rows, 0)
}

// Append inserts rows into table rel (made by Load), with _ingest_seq
// base+1 .. base+n in row order.
func Append(ctx context.Context, db *sql.DB, ds *catalog.Dataset, rel string, rows []Row, base int) error {
	cols := []string{ds.Key.Value, ds.Time.Value}
	for _, e := range ds.Entities {
		cols = append(cols, e.Column.Value)
	}
	for _, a := range ds.Attributes {
		cols = append(cols, a.Column.Value)
	}
	const chunk = 200
	for lo := 0; lo < len(rows); lo += chunk {
		hi := min(lo+chunk, len(rows))
		var args []any
		var tuples []string
		for i, r := range rows[lo:hi] {
			var ph []string
			add := func(v any, cast string) {
				args = append(args, v)
				p := "$" + strconv.Itoa(len(args))
				if cast != "" {
					p = "CAST(" + p + " AS " + cast + ")"
				}
				ph = append(ph, p)
			}
			add(r.Key, "")
			add(r.Time.UTC().Format("2006-01-02 15:04:05"), "TIMESTAMP")
			for _, e := range ds.Entities {
				add(*r.Str[e.Column.Value], "")
			}
			for _, a := range ds.Attributes {
				switch {
				case a.Enumerated():
					if v := r.Str[a.Column.Value]; v != nil {
						add(*v, "VARCHAR")
					} else {
						add(nil, "VARCHAR")
					}
				case a.Type.Value == "integer":
					if v := r.Num[a.Column.Value]; v != nil {
						add(int64(*v), "BIGINT")
					} else {
						add(nil, "BIGINT")
					}
				default:
					if v := r.Num[a.Column.Value]; v != nil {
						add(*v, "DOUBLE PRECISION")
					} else {
						add(nil, "DOUBLE PRECISION")
					}
				}
			}
			add(int64(base+lo+i+1), "BIGINT")
			tuples = append(tuples, "("+strings.Join(ph, ", ")+")")
		}
		quoted := make([]string, len(cols))
		for i, c := range cols {
			quoted[i] = q(c)
		}
		quoted = append(quoted, q(shape.SeqColumn))
		stmt := "INSERT INTO " + rel + " (" + strings.Join(quoted, ", ") + ") VALUES " + strings.Join(tuples, ", ")
		if _, err := db.ExecContext(ctx, stmt, args...); err != nil {
			return fmt.Errorf("insert rows: %w", err)
		}
	}
	return nil
}

func q(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// genCall draws a call of any tool of c, with arguments from the pools,
// the declared values and the instants (some off the grid), and a scope.
func genCall(t *rapid.T, c *catalog.Catalog, pools map[string][]string) shape.Call {
	tl := rapid.SampledFrom(c.ReadTools()).Draw(t, "tool")
	ds := c.Dataset(tl.Dataset.Value)
	args := map[string]string{}
	when := func(label string) string {
		m := rapid.IntRange(-1, 12).Draw(t, label)
		ts := instant(m)
		if rapid.Bool().Draw(t, label+"_off") {
			ts = ts.Add(30 * time.Second)
		}
		return stamp(ts)
	}
	for _, p := range tl.Params(ds) {
		switch {
		case p == "as_of":
			args[p] = when("as_of")
		case p == "start":
			args[p] = when("start")
		case p == "end":
			args[p] = when("end")
		case tl.Filter != nil && p == tl.Filter.Param.Value:
			args[p] = rapid.SampledFrom(tl.FilterValues(ds)).Draw(t, "filter")
		default:
			for _, e := range ds.Entities {
				if e.Column.Value == p {
					args[p] = rapid.SampledFrom(pools[e.Name.Value]).Draw(t, p)
				}
			}
		}
	}
	if args["start"] > args["end"] {
		args["start"], args["end"] = args["end"], args["start"]
	}
	scope := shape.All()
	if rapid.Bool().Draw(t, "scoped") {
		all := pools[c.ScopeEntity.Value]
		var vals []string
		for _, v := range all {
			if rapid.Bool().Draw(t, "in_scope") {
				vals = append(vals, v)
			}
		}
		scope = shape.Only(vals...)
	}
	return shape.Call{Tool: tl.Name.Value, Args: args, Scope: scope}
}

// Run runs the contract on a backend.
func Run(t *testing.T, b Backend) {
	for _, fx := range Fixtures {
		t.Run(fx.File, func(t *testing.T) {
			cat := LoadCatalog(t, fx.File)
			ds := cat.Datasets[0]
			db, opts := b.Open(t)
			n := 0
			t.Run("agreement", func(t *testing.T) {
				rapid.Check(t, func(rt *rapid.T) {
					n++
					rel := fmt.Sprintf("contract_%d", n)
					rows := genRows(rt, ds, fx.Pools)
					ctx := context.Background()
					if err := Load(ctx, db, ds, rel, rows); err != nil {
						rt.Fatal(err)
					}
					defer db.ExecContext(ctx, "DROP TABLE "+rel)
					derived := rapid.Bool().Draw(rt, "derived")
					if derived {
						every := rapid.SampledFrom([]int{1, 2, 3, 7, 1000}).Draw(rt, "every")
						if err := derive(ctx, db, ds, rel, every); err != nil {
							rt.Fatal(err)
						}
						defer func() {
							for _, suffix := range []string{"__cp", "__cpi", "__series"} {
								db.ExecContext(ctx, "DROP TABLE "+rel+suffix)
							}
						}()
					}
					maxKeys := rapid.SampledFrom([]int{2, shape.DefaultMaxKeys}).Draw(rt, "max_keys")
					// Both of the executor's formulations, on every backend.
					latest := rapid.SampledFrom([]string{shape.LatestWindow, shape.LatestAggregate}).Draw(rt, "latest")
					// The rows read into memory, answered by the in-memory
					// formulations, loaded from this backend; or a limit one
					// row short, which leaves them in the database.
					memoryRows := rapid.SampledFrom([]int{0, len(rows), len(rows) - 1}).Draw(rt, "memory_rows")
					memory := memoryRows > 0 && memoryRows >= len(rows)
					// The in-memory resolver's two ways to read a window's
					// rows, and the choice between them by cost.
					memoryWindow := rapid.SampledFrom([]string{"", shape.MemoryWindowHours, shape.MemoryWindowValue}).Draw(rt, "memory_window")
					src := shape.Source{DB: db, Snapshot: opts, Pipeline: b.pipeline(db), Relations: map[string]string{ds.Name.Value: rel}}
					// The data version read once, as serve reads a DuckDB
					// file's, or by every call.
					if rapid.Bool().Draw(rt, "fixed_version") {
						versions, err := shape.ReadVersions(ctx, cat, src)
						if err != nil {
							rt.Fatal(err)
						}
						src.Versions = versions
					}
					eng, err := shape.New(ctx, cat, src, &shape.Options{MaxKeys: maxKeys, Latest: latest, MemoryRows: memoryRows, MemoryWindow: memoryWindow})
					if err != nil {
						rt.Fatal(err)
					}
					defer eng.Close()
					if eng.Derived(ds.Name.Value) != derived {
						rt.Fatalf("Derived = %v, want %v", eng.Derived(ds.Name.Value), derived)
					}
					if eng.InMemory(ds.Name.Value) != memory {
						rt.Fatalf("InMemory = %v, want %v", eng.InMemory(ds.Name.Value), memory)
					}
					for range 4 {
						call := genCall(rt, cat, fx.Pools)
						checkCall(rt, eng, cat, rows, call, maxKeys)
					}
				})
			})
		})
	}
}

// RunIncremental checks that deriving after each of two imports gives
// exactly the derived structures one import of all the rows gives: the
// validity of every row, the checkpoint index, every checkpoint's rows
// and the census. The second batch is usually later than the first (the
// incremental path), sometimes not (the rebuild).
func RunIncremental(t *testing.T, b Backend) {
	for _, fx := range Fixtures {
		t.Run(fx.File, func(t *testing.T) {
			cat := LoadCatalog(t, fx.File)
			ds := cat.Datasets[0]
			db, opts := b.Open(t)
			n := 0
			rapid.Check(t, func(rt *rapid.T) {
				n++
				ctx := context.Background()
				rows := genRows(rt, ds, fx.Pools)
				if rapid.IntRange(0, 3).Draw(rt, "order") > 0 {
					slices.SortStableFunc(rows, func(a, b Row) int {
						if c := a.Time.Compare(b.Time); c != 0 {
							return c
						}
						return strings.Compare(a.Key, b.Key)
					})
				}
				cut := rapid.IntRange(0, len(rows)).Draw(rt, "cut")
				every := rapid.SampledFrom([]int{1, 2, 3, 7, 1000}).Draw(rt, "every")
				one, two := fmt.Sprintf("incr_one_%d", n), fmt.Sprintf("incr_two_%d", n)
				defer func() {
					for _, rel := range []string{one, two} {
						for _, suffix := range []string{"", "__cp", "__cpi", "__series"} {
							db.ExecContext(ctx, "DROP TABLE IF EXISTS "+rel+suffix)
						}
					}
				}()
				if err := Load(ctx, db, ds, one, rows); err != nil {
					rt.Fatal(err)
				}
				if err := derive(ctx, db, ds, one, every); err != nil {
					rt.Fatal(err)
				}
				if err := Load(ctx, db, ds, two, rows[:cut]); err != nil {
					rt.Fatal(err)
				}
				if err := derive(ctx, db, ds, two, every); err != nil {
					rt.Fatal(err)
				}
				// One engine answers before and after the append: what it
				// keeps (the checkpoint index, prepared statements) must
				// follow the data.
				eng, err := shape.New(ctx, cat, shape.Source{DB: db, Snapshot: opts, Pipeline: b.pipeline(db),
					Relations: map[string]string{ds.Name.Value: two}}, nil)
				if err != nil {
					rt.Fatal(err)
				}
				defer eng.Close()
				for range 2 {
					checkCall(rt, eng, cat, rows[:cut], genCall(rt, cat, fx.Pools), shape.DefaultMaxKeys)
				}
				if err := Append(ctx, db, ds, two, rows[cut:], cut); err != nil {
					rt.Fatal(err)
				}
				if err := derive(ctx, db, ds, two, every); err != nil {
					rt.Fatal(err)
				}
				for range 2 {
					checkCall(rt, eng, cat, rows, genCall(rt, cat, fx.Pools), shape.DefaultMaxKeys)
				}
				// After late rows the checkpoints keep their instants
				// (RunLateRows); in time order they are a rebuild's.
				inOrder := cut == 0 || cut == len(rows) || slices.MaxFunc(rows[:cut], byTime).Time.Before(slices.MinFunc(rows[cut:], byTime).Time)
				if msg := compareDerived(ctx, db, ds, one, two, inOrder); msg != "" {
					rt.Fatalf("%s (cut %d of %d, every %d)", msg, cut, len(rows), every)
				}
				if msg := CheckCheckpoints(ctx, db, ds, two); msg != "" {
					rt.Fatalf("%s (cut %d of %d, every %d)", msg, cut, len(rows), every)
				}
			})
		})
	}
}

func byTime(a, b Row) int { return a.Time.Compare(b.Time) }

// CompareDerived compares the derived structures of tables one and two
// (the validity of every row, the checkpoint index, every checkpoint's
// rows, the census) as sets of rows, and describes the first difference,
// or returns "".
func CompareDerived(ctx context.Context, db *sql.DB, ds *catalog.Dataset, one, two string) string {
	return compareDerived(ctx, db, ds, one, two, true)
}

// compareDerived is CompareDerived, without the checkpoints unless
// checkpoints is set: after late rows they keep their instants, which a
// rebuild chooses anew.
func compareDerived(ctx context.Context, db *sql.DB, ds *catalog.Dataset, one, two string, checkpoints bool) string {
	for _, part := range []struct{ name, cols, suffix string }{
		{"validity", q(ds.Key.Value) + ", " + q(shape.ValidToColumn), ""},
		{"checkpoint index", "*", "__cpi"},
		{"checkpoints", "*", "__cp"},
		{"census", "*", "__series"},
	} {
		if !checkpoints && part.suffix != "" && part.suffix != "__series" {
			continue
		}
		for _, dir := range [][2]string{{one, two}, {two, one}} {
			var extra int
			err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM (SELECT "+part.cols+" FROM "+dir[0]+part.suffix+
				" EXCEPT SELECT "+part.cols+" FROM "+dir[1]+part.suffix+") d").Scan(&extra)
			if err != nil {
				return fmt.Sprintf("%s: %v", part.name, err)
			}
			if extra != 0 {
				return fmt.Sprintf("%s: %d row(s) of %s are not in %s", part.name, extra, dir[0], dir[1])
			}
		}
		var c1, c2 int
		db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+one+part.suffix).Scan(&c1)
		db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+two+part.suffix).Scan(&c2)
		if c1 != c2 {
			return fmt.Sprintf("%s: %d rows in %s, %d in %s", part.name, c1, one, c2, two)
		}
	}
	return ""
}

// RunFormulations checks that a database's own derivation (Derive
// without DeriveOptions.Reference: on DuckDB, set-based checkpoints)
// gives exactly the structures the reference formulation gives, on
// random rows (many at one instant, in any order) at random checkpoint
// spacings, for a first import and for an import whose rows are not all
// later than the stored ones (a rebuild).
func RunFormulations(t *testing.T, b Backend) {
	for _, fx := range Fixtures {
		t.Run(fx.File, func(t *testing.T) {
			cat := LoadCatalog(t, fx.File)
			ds := cat.Datasets[0]
			db, _ := b.Open(t)
			n := 0
			rapid.Check(t, func(rt *rapid.T) {
				n++
				ctx := context.Background()
				rows := genRows(rt, ds, fx.Pools)
				if rapid.Bool().Draw(rt, "more") {
					rows = append(rows, genRows(rt, ds, fx.Pools)...)
					seen := map[string]bool{}
					rows = slices.DeleteFunc(rows, func(r Row) bool {
						dup := seen[r.Key]
						seen[r.Key] = true
						return dup
					})
				}
				every := rapid.SampledFrom([]int{1, 2, 3, 4, 5, 7, 16, 1000}).Draw(rt, "every")
				cut := rapid.IntRange(0, len(rows)).Draw(rt, "cut")
				ref, own := fmt.Sprintf("form_ref_%d", n), fmt.Sprintf("form_own_%d", n)
				defer func() {
					for _, rel := range []string{ref, own} {
						for _, suffix := range []string{"", "__cp", "__cpi", "__series"} {
							db.ExecContext(ctx, "DROP TABLE IF EXISTS "+rel+suffix)
						}
					}
				}()
				for _, tbl := range []struct {
					rel string
					ref bool
				}{{ref, true}, {own, false}} {
					if err := Load(ctx, db, ds, tbl.rel, rows[:cut]); err != nil {
						rt.Fatal(err)
					}
					if err := deriveWith(ctx, db, ds, tbl.rel, &shape.DeriveOptions{Every: every, Reference: tbl.ref}); err != nil {
						rt.Fatal(err)
					}
					if err := Append(ctx, db, ds, tbl.rel, rows[cut:], cut); err != nil {
						rt.Fatal(err)
					}
					// Rebuild: late rows would otherwise take deriveLate,
					// one formulation for both.
					if err := deriveWith(ctx, db, ds, tbl.rel, &shape.DeriveOptions{Every: every, Reference: tbl.ref, Rebuild: true}); err != nil {
						rt.Fatal(err)
					}
				}
				if msg := CompareDerived(ctx, db, ds, ref, own); msg != "" {
					rt.Fatalf("%s (cut %d of %d, every %d)", msg, cut, len(rows), every)
				}
			})
		})
	}
}

// RunReimport checks that an engine that answered before an import
// answers at the new data afterwards, when the import rebuilt the derived
// structures (rows earlier than stored ones): the checkpoints are then
// numbered anew, and a checkpoint index kept from before would pair a
// checkpoint's number with another time.
func RunReimport(t *testing.T, b Backend) {
	cat := LoadCatalog(t, "warehouse.yaml")
	ds := cat.Datasets[0]
	db, opts := b.Open(t)
	ctx := t.Context()
	// One row a minute for 10 minutes for device.
	rows := func(device string, first int) []Row { return deviceRows(ds, device, first, 0, 10) }
	const rel = "reimport"
	defer func() {
		for _, suffix := range []string{"", "__cp", "__cpi", "__series"} {
			db.ExecContext(ctx, "DROP TABLE IF EXISTS "+rel+suffix)
		}
	}()
	first, second := rows("dev-0001", 0), rows("dev-0002", 10)
	if err := Load(ctx, db, ds, rel, first); err != nil {
		t.Fatal(err)
	}
	// Every 2 rows: checkpoints at minutes 1, 3, 5, 7, 9; after the
	// second import, at minutes 0 to 9.
	if err := derive(ctx, db, ds, rel, 2); err != nil {
		t.Fatal(err)
	}
	eng, err := shape.New(ctx, cat, shape.Source{DB: db, Snapshot: opts, Pipeline: b.pipeline(db), Relations: map[string]string{ds.Name.Value: rel}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := shape.Call{Tool: "get_device_status", Args: map[string]string{"device_id": "dev-0001", "as_of": stamp(instant(7).Add(30 * time.Second))}, Scope: shape.All()}
	checkCall(t, eng, cat, first, call, shape.DefaultMaxKeys)
	if err := Append(ctx, db, ds, rel, second, len(first)); err != nil {
		t.Fatal(err)
	}
	if err := derive(ctx, db, ds, rel, 2); err != nil {
		t.Fatal(err)
	}
	checkCall(t, eng, cat, append(first, second...), call, shape.DefaultMaxKeys)
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
}

// derive builds the derived structures of rel in one transaction.
func derive(ctx context.Context, db *sql.DB, ds *catalog.Dataset, rel string, every int) error {
	return deriveWith(ctx, db, ds, rel, &shape.DeriveOptions{Every: every})
}

// deriveWith builds the derived structures of rel in one transaction,
// with o.
func deriveWith(ctx context.Context, db *sql.DB, ds *catalog.Dataset, rel string, o *shape.DeriveOptions) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := shape.Derive(ctx, tx, ds, rel, o); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// fataler is a *testing.T or a *rapid.T.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// execute begins a snapshot of eng and runs call's executor in it; the
// caller closes the snapshot.
func execute(t fataler, eng *shape.Engine, call shape.Call) (*shape.Snapshot, shape.Result) {
	snap, err := eng.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := snap.Execute(context.Background(), call)
	if err != nil {
		snap.Close()
		t.Fatalf("Execute(%s %v %v): %v", call.Tool, call.Args, call.Scope, err)
	}
	return snap, got
}

// checkCall runs one call through the executor and resolver and compares
// with the oracle; then tampers with the result and expects the resolver
// to refuse it.
func checkCall(t fataler, eng *shape.Engine, cat *catalog.Catalog, rows []Row, call shape.Call, maxKeys int) {
	ctx := context.Background()
	snap, got := execute(t, eng, call)
	defer snap.Close()
	want, wantKeys := Oracle(cat, rows, call)
	if !got.Value.Equal(want) {
		t.Fatalf("Execute(%s %v %v) value = %+v, oracle %+v", call.Tool, call.Args, call.Scope, got.Value, want)
	}
	if got.Rows != len(wantKeys) || got.Digest != shape.Digest(wantKeys) {
		t.Fatalf("Execute(%s %v) rows = %d, oracle %d (%v)", call.Tool, call.Args, got.Rows, len(wantKeys), wantKeys)
	}
	listed := wantKeys
	if len(listed) > maxKeys {
		listed = listed[:maxKeys]
	}
	if !slices.Equal(got.Keys, listed) {
		t.Fatalf("Execute(%s %v) keys = %v, oracle %v", call.Tool, call.Args, got.Keys, listed)
	}
	if want := fmt.Sprintf("seq:%d", len(rows)); got.DataVersion != want {
		t.Fatalf("data version = %s, want %s", got.DataVersion, want)
	}
	v, err := snap.Resolve(ctx, call, got)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if !v.OK() {
		t.Fatalf("Resolve(%s %v) = %+v on the executor's own answer", call.Tool, call.Args, v)
	}
	for _, d := range Defects(got, rows) {
		v, err := snap.Resolve(ctx, call, d.Result)
		if err != nil {
			t.Fatalf("Resolve(%s): %v", d.Name, err)
		}
		if d.Breaks(v) {
			t.Fatalf("defect %s of %s %v passed the resolver: %+v", d.Name, call.Tool, call.Args, v)
		}
	}
}

// Defect is a tampered result and the verdict clause it must break.
type Defect struct {
	Name   string
	Result shape.Result
	// Breaks reports whether the verdict failed to catch the defect.
	Breaks func(shape.Verdict) bool
}

// Defects returns the tamperings of r that apply to it: each must make
// the named clause fail.
func Defects(r shape.Result, rows []Row) []Defect {
	var out []Defect
	provenance := func(v shape.Verdict) bool { return v.ProvenanceValid }
	value := func(v shape.Verdict) bool { return v.ValueMatches }
	complete := func(v shape.Verdict) bool { return v.Complete }
	clone := func() shape.Result {
		c := r
		c.Keys = slices.Clone(r.Keys)
		c.Value.IDs = slices.Clone(r.Value.IDs)
		return c
	}
	// Value: a changed count or scalar.
	bad := clone()
	switch bad.Value.Kind {
	case fact.KindEntityCount, fact.KindRowCount:
		bad.Value.Count++
	case fact.KindEntityList:
		bad.Value.IDs = append(bad.Value.IDs, "zz-none")
	case fact.KindText:
		bad.Value.Text += "X"
		bad.Value.Observed = true
	case fact.KindInteger:
		bad.Value.Int++
		bad.Value.Observed = true
	case fact.KindNumber:
		bad.Value.Num += 0.25
		bad.Value.Observed = true
	}
	out = append(out, Defect{"value", bad, value})
	// Completeness: a key dropped, or a digest changed.
	if len(r.Keys) > 0 {
		bad := clone()
		bad.Keys = bad.Keys[1:]
		bad.Rows--
		bad.Digest = shape.Digest(bad.Keys)
		out = append(out, Defect{"dropped_key", bad, complete})
	}
	bad = clone()
	bad.Digest = strings.Repeat("0", 64)
	out = append(out, Defect{"digest", bad, complete})
	// Provenance: a key of a row that does not exist, and a real row
	// that is not behind the value.
	bad = clone()
	bad.Keys = append(bad.Keys, "zz-missing")
	bad.Rows++
	out = append(out, Defect{"missing_key", bad, provenance})
	for _, row := range rows {
		if !slices.Contains(r.Keys, row.Key) && r.Rows == len(r.Keys) {
			bad := clone()
			bad.Keys = append(bad.Keys, row.Key)
			slices.Sort(bad.Keys)
			bad.Rows++
			bad.Digest = shape.Digest(bad.Keys)
			out = append(out, Defect{"foreign_key", bad, complete})
			break
		}
	}
	return out
}
