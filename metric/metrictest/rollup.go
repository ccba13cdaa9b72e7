package metrictest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/lthash"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/shape/shapetest"
)

// RunRollupKeys checks, on random datasets with rows at any minute of 60
// hours and random requests with windows at any minute, that the key
// summary combined from the per-hour digests (metric.RollupKeys, either
// edge treatment) has the count, the lthash and the first keys of the keys
// RederiveSQL lists; that FirstKeysHold accepts those first keys and
// refuses others, with and without floors of its own (and refuses the
// true ones when its floors are raised past every key); that digests built in two imports (the second later
// than the first) equal digests built at once; and that a changed count or
// digest is found by the next import's check and rebuilt.
func RunRollupKeys(t *testing.T, b Backend) {
	for _, file := range Catalogs {
		t.Run(strings.TrimSuffix(file, ".yaml"), func(t *testing.T) {
			cat := LoadCatalog(t, file)
			db := b.Open(t)
			n, summed, wrongFloors, liftedRefused := 0, 0, 0, 0
			// Few of a catalog's requests reach the branches counted
			// below (a window of two hours and more over a metric that
			// counts window rows, first keys the lifted floors change),
			// so the property runs again, freshly drawn, up to three
			// more times until each branch was reached once.
			for round := 0; round < 4 && (summed == 0 || wrongFloors == 0 || liftedRefused == 0); round++ {
				rapid.Check(t, func(rt *rapid.T) {
					n++
					ctx := t.Context()
					sm := cat.SemanticModels[0]
					ds := cat.Dataset(sm.Dataset.Value)
					rows := genRows(rt, ds)
					for i := range rows {
						rows[i].at = rows[i].at.Add(time.Duration(rapid.IntRange(0, 59).Draw(rt, "minute")) * time.Minute)
					}
					rel, inc, tmp := "rk_"+strconv.Itoa(n), "rki_"+strconv.Itoa(n), "rkt_"+strconv.Itoa(n)
					if err := loadRows(ctx, db, ds, rel, rows); err != nil {
						rt.Fatal(err)
					}
					// Slices kept from the first import, or (the first import
					// of the two) only from a later one: both must give the
					// digests one import gives.
					minSliceRows := -1
					derive := func(table string) {
						deriveIn(ctx, rt, db, func(tx *sql.Tx) error { return shape.DeriveRollupKeys(ctx, tx, ds, table, minSliceRows) })
					}
					derive(rel)
					// The same rows in two imports, the second later.
					cut := base.Add(time.Duration(rapid.IntRange(0, 60).Draw(rt, "cut")) * time.Hour)
					var early, late []genRow
					for _, r := range rows {
						if r.at.Before(cut) {
							early = append(early, r)
						} else {
							late = append(late, r)
						}
					}
					if err := loadRows(ctx, db, ds, inc, early); err != nil {
						rt.Fatal(err)
					}
					if rapid.Bool().Draw(rt, "slices later") {
						minSliceRows = math.MaxInt32
					}
					derive(inc)
					minSliceRows = -1
					if err := loadRows(ctx, db, ds, tmp, late); err != nil {
						rt.Fatal(err)
					}
					if _, err := db.ExecContext(ctx, "INSERT INTO "+ingest.Quote(inc)+" SELECT * FROM "+ingest.Quote(tmp)); err != nil {
						rt.Fatal(err)
					}
					derive(inc)
					want := dumpRollup(rt, db, rel)
					if got := dumpRollup(rt, db, inc); !slices.Equal(got, want) {
						rt.Fatalf("digests built in two imports differ from one:\n%v\nwant\n%v", got, want)
					}
					// A changed count, or a changed digest of a checked hour,
					// is rebuilt by the next import.
					if len(want) > 0 {
						// The hours' table or the slices'.
						tab := ingest.Quote(inc + rapid.SampledFrom([]string{shape.RollupKeysSuffix, shape.RollupSlicesSuffix}).Draw(rt, "tampered table"))
						q := "UPDATE " + tab + " SET _n = _n + 1 WHERE _hour = (SELECT MIN(_hour) FROM " + tab + ")"
						if rapid.Bool().Draw(rt, "tamper digest") {
							q = "UPDATE " + tab + " SET _lthash = (SELECT _lthash FROM " + tab +
								" WHERE _hour = (SELECT MIN(_hour) FROM " + tab + ") LIMIT 1) WHERE _hour = (SELECT MAX(_hour) FROM " +
								tab + " WHERE _hour < (SELECT MAX(_hour) FROM " + tab + "))"
						}
						if _, err := db.ExecContext(ctx, q); err != nil {
							rt.Fatal(err)
						}
						derive(inc)
						if got := dumpRollup(rt, db, inc); !slices.Equal(got, want) {
							rt.Fatalf("a changed rollup survived an import:\n%v\nwant\n%v", got, want)
						}
					}
					// The request, with its window moved to any minute.
					m := rapid.SampledFrom(cat.Metrics).Draw(rt, "metric")
					req := genRequest(rt, cat, sm, ds, m)
					req.Start = req.Start.Truncate(time.Hour).Add(time.Duration(rapid.IntRange(0, 59).Draw(rt, "start minute")) * time.Minute)
					req.End = req.End.Truncate(time.Hour).Add(time.Duration(rapid.IntRange(0, 59).Draw(rt, "end minute")) * time.Minute)
					if !req.End.After(req.Start) {
						req.End = req.Start.Add(time.Minute)
					}
					opts := &metric.Options{
						Relations: map[string]string{ds.Name.Value: rel}, References: loadReferences(ctx, rt, db, cat, sm, ds, "rkref_"+strconv.Itoa(n)),
						ValidTo:  map[string]string{ds.Name.Value: ValidTo},
						Rollups:  map[string]metric.Rollup{ds.Name.Value: {Relation: inc + shape.RollupKeysSuffix, Groups: shape.RollupGroups(ds)}},
						KeyOrder: b.KeyOrder,
					}
					// The edge hours summed by the hour or from the slices.
					if rapid.Bool().Draw(rt, "slices") {
						ru := opts.Rollups[ds.Name.Value]
						ru.Slices, ru.SliceWidth = inc+shape.RollupSlicesSuffix, shape.SliceWidth
						opts.Rollups = map[string]metric.Rollup{ds.Name.Value: ru}
					}
					re, err := metric.RederiveSQL(ctx, db, cat, req, opts)
					if err != nil {
						rt.Fatalf("rederive: %v", err)
					}
					wantHash := lthash.Of(re.Keys...)
					first := rapid.IntRange(1, 5).Draw(rt, "first")
					for _, edges := range []metric.Edges{metric.EdgesAdd, metric.EdgesNearest} {
						sum, err := metric.RollupKeys(ctx, db, cat, req, opts, first, edges)
						if errors.Is(err, metric.ErrNoRollup) {
							continue
						}
						if err != nil {
							rt.Fatalf("rollup keys: %v", err)
						}
						summed++
						if sum.Count != len(re.Keys) || !sum.Hash.Equal(&wantHash) {
							rt.Fatalf("edges %d: count %d, hash equal %v; want %d keys %v", edges, sum.Count, sum.Hash.Equal(&wantHash), len(re.Keys), re.Keys)
						}
						if w := re.Keys[:min(first, len(re.Keys))]; !slices.Equal(sum.First, w) {
							rt.Fatalf("edges %d: first %v, want %v", edges, sum.First, w)
						}
						// The threshold check accepts the true first keys and
						// refuses any other listing of as many.
						if len(sum.First) > 0 {
							// The check reads the rows before the window
							// itself, or takes them from the resolver's own
							// summation: the same verdicts.
							var own *metric.KeySummary
							if rapid.Bool().Draw(rt, "own summation") {
								if own, err = metric.RollupKeys(ctx, db, cat, req, opts, 0, metric.EdgesAdd); err != nil {
									rt.Fatalf("rollup keys, resolver's: %v", err)
								}
							}
							ok, err := metric.FirstKeysHold(ctx, db, cat, req, opts, sum.First, own)
							if err != nil || !ok {
								rt.Fatalf("first keys %v refused (%v)", sum.First, err)
							}
							bad := slices.Clone(sum.First)
							bad[len(bad)-1] += "~"
							if len(re.Keys) > len(bad) && rapid.Bool().Draw(rt, "skip") {
								bad = append(slices.Clone(sum.First[:len(sum.First)-1]), re.Keys[len(sum.First)])
							}
							if ok, err := metric.FirstKeysHold(ctx, db, cat, req, opts, bad, own); err != nil || ok {
								rt.Fatalf("other first keys %v accepted (%v); true %v", bad, err, sum.First)
							}
							// With its own floors (each hour's least key) the
							// check reads only the hours that can hold a key
							// at or below the last listed one: the same
							// verdicts; floors raised past every key (a wrong
							// cache) leave the window's keys unread, and the
							// true first keys are refused when any of them is
							// a window row's.
							co := *opts
							cru := co.Rollups[ds.Name.Value]
							for _, fk := range []metric.FloorKeeper{readFloors{}, splitFloors{column: ingest.Quote(ds.Time.Value), at: base.Add(30*time.Hour + 29*time.Minute)}} {
								cru.CheckFloors = fk
								co.Rollups = map[string]metric.Rollup{ds.Name.Value: cru}
								if ok, err := metric.FirstKeysHold(ctx, db, cat, req, &co, sum.First, own); err != nil || !ok {
									rt.Fatalf("first keys %v refused with the check's floors (%T, %v)", sum.First, fk, err)
								}
								if ok, err := metric.FirstKeysHold(ctx, db, cat, req, &co, bad, own); err != nil || ok {
									rt.Fatalf("other first keys %v accepted with the check's floors (%T, %v); true %v", bad, fk, err, sum.First)
								}
							}
							cru.CheckFloors = liftedFloors{}
							co.Rollups = map[string]metric.Rollup{ds.Name.Value: cru}
							ok, err = metric.FirstKeysHold(ctx, db, cat, req, &co, sum.First, own)
							if err != nil {
								rt.Fatalf("first keys with lifted check floors: %v", err)
							}
							if !ok {
								liftedRefused++
							}
						}
						// The key floors narrow the executor's read of the
						// least keys to the hours that can hold them: the
						// same keys; and floors raised past every key (a
						// wrong cache) list others, which the resolver's
						// check, reading every hour, refuses.
						// Split inside an hour, so that both parts hold rows of it.
						split := splitFloors{column: ingest.Quote(ds.Time.Value), at: base.Add(time.Duration(rapid.IntRange(0, 60*60).Draw(rt, "floors split")) * time.Minute)}
						for _, fk := range []metric.FloorKeeper{readFloors{}, split, liftedFloors{}} {
							fo := *opts
							ru := fo.Rollups[ds.Name.Value]
							ru.Floors = fk
							fo.Rollups = map[string]metric.Rollup{ds.Name.Value: ru}
							fs, err := metric.RollupKeys(ctx, db, cat, req, &fo, first, edges)
							if err != nil {
								rt.Fatalf("rollup keys with floors: %v", err)
							}
							w := re.Keys[:min(first, len(re.Keys))]
							if _, lifted := fk.(liftedFloors); !lifted {
								if !slices.Equal(fs.First, w) {
									rt.Fatalf("edges %d, floors: first %v, want %v", edges, fs.First, w)
								}
								continue
							}
							if slices.Equal(fs.First, w) {
								continue
							}
							wrongFloors++
							// The resolver refuses a listing FirstKeysHold
							// refuses or one of another length than the
							// true first keys' (engine: min(limit, count));
							// a shorter listing of the least keys is one
							// FirstKeysHold itself accepts.
							ok, err := metric.FirstKeysHold(ctx, db, cat, req, &fo, fs.First, nil)
							if err != nil || (ok && len(fs.First) == len(w)) {
								rt.Fatalf("first keys %v from lifted floors accepted (%v); true %v", fs.First, err, w)
							}
						}
					}
				})
			}
			if summed == 0 {
				t.Error("no request was answered from the digests: the property checked nothing")
			}
			if liftedRefused == 0 {
				t.Error("lifted check floors never made FirstKeysHold refuse the true first keys: its floors were not read")
			}
			if wrongFloors == 0 {
				t.Error("lifted key floors never changed the first keys: the resolver's refusal was not checked")
			}
			t.Logf("%d of %d cases answered from the digests (two edge treatments each)", summed, n)
		})
	}
}

// dumpRollup returns a rollup table's rows as text, sorted.
func dumpRollup(t *rapid.T, db *sql.DB, table string) []string {
	var out []string
	for _, suffix := range []string{shape.RollupKeysSuffix, shape.RollupSlicesSuffix} {
		out = append(out, dumpDigests(t, db, table, suffix)...)
	}
	return out
}

// dumpDigests returns digest table table+suffix's rows as text, each
// prefixed by the suffix, sorted.
func dumpDigests(t *rapid.T, db *sql.DB, table, suffix string) []string {
	rows, err := shapetest.DumpRows(t.Context(), db, ingest.Quote(table+suffix))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		rows[i] = suffix + " " + r
	}
	return rows
}

// readFloors keeps no key floors: it computes them for every call.
type readFloors struct{}

func (readFloors) KeyFloors(ctx context.Context, db metric.Querier, read metric.FloorRead) (*metric.KeyFloors, error) {
	return read(ctx, db, "")
}

// splitFloors computes the key floors in two parts, the rows before a
// time and those at or after it (as a keeper brings an earlier version's
// floors up to date with the rows added since), lowered into one
// (KeyFloors.Lower).
type splitFloors struct {
	column string // the time column, quoted
	at     time.Time
}

func (x splitFloors) KeyFloors(ctx context.Context, db metric.Querier, read metric.FloorRead) (*metric.KeyFloors, error) {
	at := "CAST('" + x.at.UTC().Format("2006-01-02 15:04:05") + "' AS TIMESTAMP)"
	early, err := read(ctx, db, x.column+" < "+at)
	if err != nil {
		return nil, err
	}
	late, err := read(ctx, db, x.column+" >= "+at)
	if err != nil {
		return nil, err
	}
	return early.Lower(late), nil
}

// liftedFloors are wrong key floors: every hour's raised past any key, so
// the executor reads no window row for its least keys.
type liftedFloors struct{}

func (liftedFloors) KeyFloors(ctx context.Context, db metric.Querier, read metric.FloorRead) (*metric.KeyFloors, error) {
	f, err := read(ctx, db, "")
	if err != nil {
		return nil, err
	}
	for g := range f.Least {
		for i := range f.Least[g] {
			f.Least[g][i] = "\xff"
		}
	}
	return f, nil
}

// RunRollupKeysPastEnd checks one case RunRollupKeys found by chance: with
// EdgesNearest a window of at least two hours ending 40 minutes into an hour is summed from the
// stored hours up to the next hour, less the rows past its end; a row
// past the end whose key is the least of all must not bound the first
// keys (RollupKeys once listed two of the window's three least keys).
func RunRollupKeysPastEnd(t *testing.T, b Backend) {
	ctx := t.Context()
	cat := LoadCatalog(t, "retail.yaml")
	db := b.Open(t)
	sm := cat.SemanticModels[0]
	ds := cat.Dataset(sm.Dataset.Value)
	row := func(key string, at time.Duration) genRow { return plainRow(ds, key, at) }
	rows := []genRow{
		row("k-0002", 10*time.Minute),
		row("k-0003", 70*time.Minute),
		row("k-0004", 140*time.Minute),
		row("k-0001", 170*time.Minute), // past the window's end, in its last hour: the least key of all
	}
	const rel = "rkpe"
	if err := loadRows(ctx, db, ds, rel, rows); err != nil {
		t.Fatal(err)
	}
	deriveIn(ctx, t, db, func(tx *sql.Tx) error { return shape.DeriveRollupKeys(ctx, tx, ds, rel, 0) })
	// scan_count by nothing: no reference table is read.
	req := metric.Request{Metric: "scan_count", Scope: metric.All(), Start: base, End: base.Add(160 * time.Minute)}
	opts := &metric.Options{
		Relations: map[string]string{ds.Name.Value: rel}, References: map[string]string{},
		ValidTo: map[string]string{ds.Name.Value: ValidTo},
		Rollups: map[string]metric.Rollup{ds.Name.Value: {Relation: rel + shape.RollupKeysSuffix, Groups: shape.RollupGroups(ds)}},
	}
	re, err := metric.RederiveSQL(ctx, db, cat, req, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"k-0002", "k-0003", "k-0004"}
	if !slices.Equal(re.Keys, want) {
		t.Fatalf("the window's keys are %v, want %v", re.Keys, want)
	}
	for _, edges := range []metric.Edges{metric.EdgesAdd, metric.EdgesNearest} {
		sum, err := metric.RollupKeys(ctx, db, cat, req, opts, 3, edges)
		if err != nil {
			t.Fatalf("edges %d: %v", edges, err)
		}
		if sum.Count != 3 || !slices.Equal(sum.First, want) {
			t.Errorf("edges %d: count %d, first %v; want 3, %v", edges, sum.Count, sum.First, want)
		}
	}
}

// plainRow is a row of ds with key at base+at, every entity its pool's
// first id and every attribute its first value (or 1).
func plainRow(ds *catalog.Dataset, key string, at time.Duration) genRow {
	r := genRow{key: key, at: base.Add(at), vals: map[string]any{}}
	for _, e := range ds.Entities {
		r.vals[e.Column.Value] = pools[e.Name.Value][0]
	}
	for _, a := range ds.Attributes {
		switch {
		case a.Enumerated():
			r.vals[a.Column.Value] = a.Values[0].Value
		case a.Type.Value == "integer":
			r.vals[a.Column.Value] = int64(1)
		default:
			r.vals[a.Column.Value] = 1.5
		}
	}
	return r
}

// RunFloorsKeyOrder checks, on a backend whose key column can be made to
// order text otherwise than bytewise (Backend.NonBytewise), that the key
// floors' least keys are the bytewise least with Options.KeyOrder:
// FirstKeysHold, reading only the hours its own floors allow, accepts the
// true first keys (bytewise) with it, and without it refuses them (the
// column's MIN is another key, above the last listed one bytewise, so
// the hours holding them are skipped).
func RunFloorsKeyOrder(t *testing.T, b Backend) {
	if b.NonBytewise == nil || b.KeyOrder == nil {
		t.Fatal("the backend declares no NonBytewise and KeyOrder")
	}
	ctx := t.Context()
	cat := LoadCatalog(t, "retail.yaml")
	db := b.Open(t)
	sm := cat.SemanticModels[0]
	ds := cat.Dataset(sm.Dataset.Value)
	// Bytewise: B-1 < D-1 < a-1 < c-1; in a natural language's order
	// a-1 < B-1 < c-1 < D-1, so each hour's MIN there is a lower-case key.
	rows := []genRow{
		plainRow(ds, "a-1", 10*time.Minute), plainRow(ds, "B-1", 20*time.Minute),
		plainRow(ds, "c-1", 70*time.Minute), plainRow(ds, "D-1", 80*time.Minute),
	}
	const rel = "rfko"
	if err := loadRows(ctx, db, ds, rel, rows); err != nil {
		t.Fatal(err)
	}
	if err := b.NonBytewise(ctx, db, rel, ds.Key.Value); err != nil {
		t.Fatal(err)
	}
	deriveIn(ctx, t, db, func(tx *sql.Tx) error { return shape.DeriveRollupKeys(ctx, tx, ds, rel, 0) })
	req := metric.Request{Metric: "scan_count", Scope: metric.All(), Start: base, End: base.Add(3 * time.Hour)}
	opts := func(order func(string) string) *metric.Options {
		return &metric.Options{
			Relations: map[string]string{ds.Name.Value: rel}, References: map[string]string{},
			ValidTo:  map[string]string{ds.Name.Value: ValidTo},
			Rollups:  map[string]metric.Rollup{ds.Name.Value: {Relation: rel + shape.RollupKeysSuffix, Groups: shape.RollupGroups(ds), CheckFloors: readFloors{}}},
			KeyOrder: order,
		}
	}
	listed := []string{"B-1", "D-1"}
	if ok, err := metric.FirstKeysHold(ctx, db, cat, req, opts(b.KeyOrder), listed, nil); err != nil || !ok {
		t.Errorf("with KeyOrder the bytewise first keys %v are refused (%v)", listed, err)
	}
	if ok, err := metric.FirstKeysHold(ctx, db, cat, req, opts(nil), listed, nil); err != nil || ok {
		t.Errorf("without KeyOrder the first keys %v are accepted (%v): the column's order did not decide the floors, so this checks nothing", listed, err)
	}
}

// RunRollupSlices pins the slices' edges (metric.Rollup.Slices): rows
// every 50 seconds over four hours, and windows of two hours and more
// whose start and end fall on a slice's start, a second after it, inside
// its first or second half, a second before its end and on an hour; for
// both edge treatments the count and digest summed with the slices equal
// the re-derivation's keys', and no more rows are hashed than two
// slices hold (a sum that ignored the slices would hash up to half an
// hour of rows at each end).
func RunRollupSlices(t *testing.T, b Backend) {
	ctx := t.Context()
	cat := LoadCatalog(t, "retail.yaml")
	db := b.Open(t)
	sm := cat.SemanticModels[0]
	ds := cat.Dataset(sm.Dataset.Value)
	const every = 50 * time.Second
	var rows []genRow
	for i := range int(4 * time.Hour / every) {
		rows = append(rows, plainRow(ds, fmt.Sprintf("k-%05d", i), time.Duration(i)*every))
	}
	const rel = "rksl"
	for _, table := range []string{rel, "rkslx"} {
		if err := loadRows(ctx, db, ds, table, rows); err != nil {
			t.Fatal(err)
		}
	}
	// 72 rows an hour: the slices are kept from 72 on, not from 73.
	deriveIn(ctx, t, db, func(tx *sql.Tx) error { return shape.DeriveRollupKeys(ctx, tx, ds, "rkslx", 73) })
	deriveIn(ctx, t, db, func(tx *sql.Tx) error { return shape.DeriveRollupKeys(ctx, tx, ds, rel, 72) })
	w := shape.SliceWidth
	opts := &metric.Options{
		Relations: map[string]string{ds.Name.Value: rel}, References: map[string]string{},
		ValidTo: map[string]string{ds.Name.Value: ValidTo},
		Rollups: map[string]metric.Rollup{ds.Name.Value: {Relation: rel + shape.RollupKeysSuffix, Groups: shape.RollupGroups(ds),
			Slices: rel + shape.RollupSlicesSuffix, SliceWidth: w}},
	}
	// Offsets into a slice (the third slice of an hour) and the hour.
	offsets := []time.Duration{0, 2 * w, 2*w + time.Second, 2*w + w/4, 2*w + w/2, 2*w + 3*w/4, 3*w - time.Second, time.Hour - time.Second}
	perSlice := int(w / every)
	checked := 0
	for _, so := range offsets {
		for _, eo := range offsets {
			req := metric.Request{Metric: "scan_count", Scope: metric.All(), Start: base.Add(so), End: base.Add(3*time.Hour + eo)}
			re, err := metric.RederiveSQL(ctx, db, cat, req, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := lthash.Of(re.Keys...)
			for _, edges := range []metric.Edges{metric.EdgesAdd, metric.EdgesNearest} {
				sum, err := metric.RollupKeys(ctx, db, cat, req, opts, 0, edges)
				if err != nil {
					t.Fatalf("[%v, %v) edges %d: %v", req.Start, req.End, edges, err)
				}
				if sum.Count != len(re.Keys) || !sum.Hash.Equal(&want) {
					t.Errorf("[%v, %v) edges %d: count %d, digest equal %t; want %d", req.Start, req.End, edges, sum.Count, sum.Hash.Equal(&want), len(re.Keys))
				}
				if sum.Hashed > 2*perSlice {
					t.Errorf("[%v, %v) edges %d: %d rows hashed, want at most two slices' %d", req.Start, req.End, edges, sum.Hashed, 2*perSlice)
				}
				checked++
			}
		}
	}
	t.Logf("%d windows checked", checked)
	for table, want := range map[string]bool{rel: true, "rkslx": false} {
		rows, err := db.QueryContext(ctx, "SELECT COUNT(*) FROM "+ingest.Quote(table+shape.RollupSlicesSuffix))
		if rows != nil {
			rows.Close()
		}
		if got := err == nil; got != want {
			t.Errorf("%s: slices kept %t, want %t (72 rows an hour)", table, got, want)
		}
	}
}

// RunRollupKeysBefore checks the executor's first keys bounded by the
// rows before the window (metric.RollupKeys with key floors): four
// devices each with a row before an availability window, whose validity
// reaches into it, and keys that grow with time, so that the least three
// keys are three of those rows'. The listing is the re-derivation's first
// three, read with no statement for the window's first hours (their
// top-N, "ORDER BY k LIMIT"); without floors that statement runs, as the
// counter's check that it can see one.
func RunRollupKeysBefore(t *testing.T, b Backend) {
	ctx := t.Context()
	cat := LoadCatalog(t, "warehouse.yaml")
	db := b.Open(t)
	m := cat.Metric("availability")
	if m == nil {
		t.Fatal("the warehouse catalog declares no availability metric")
	}
	ds := cat.Dataset(cat.ModelOf(m).Dataset.Value)
	series := ds.SeriesEntities()[0].Column.Value
	var rows []genRow
	for d, dev := range pools["device"] {
		r := plainRow(ds, fmt.Sprintf("k-%04d", d), time.Duration(5+d)*time.Minute)
		r.vals[series] = dev
		rows = append(rows, r)
		for i := range 12 {
			r := plainRow(ds, fmt.Sprintf("k-1%02d%d", i, d), 2*time.Hour+time.Duration(10*i+d)*time.Minute)
			r.vals[series] = dev
			rows = append(rows, r)
		}
	}
	const rel = "rkbf"
	if err := loadRows(ctx, db, ds, rel, rows); err != nil {
		t.Fatal(err)
	}
	deriveIn(ctx, t, db, func(tx *sql.Tx) error { return shape.DeriveRollupKeys(ctx, tx, ds, rel, 0) })
	req := metric.Request{Metric: m.Name.Value, Scope: metric.All(), Start: base.Add(70 * time.Minute), End: base.Add(4*time.Hour + 20*time.Minute)}
	opts := func(floors metric.FloorKeeper) *metric.Options {
		return &metric.Options{
			Relations: map[string]string{ds.Name.Value: rel}, References: map[string]string{}, // no dimension: no reference read
			ValidTo: map[string]string{ds.Name.Value: ValidTo},
			Rollups: map[string]metric.Rollup{ds.Name.Value: {Relation: rel + shape.RollupKeysSuffix, Groups: shape.RollupGroups(ds), Floors: floors}},
		}
	}
	re, err := metric.RederiveSQL(ctx, db, cat, req, opts(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"k-0000", "k-0001", "k-0002"}
	if len(re.Keys) < 4 || !slices.Equal(re.Keys[:3], want) {
		t.Fatalf("the contributing keys are %v, want %v first", re.Keys, want)
	}
	for _, c := range []struct {
		name     string
		floors   metric.FloorKeeper
		topReads bool
	}{
		{"with floors", readFloors{}, false},
		{"without floors", nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, edges := range []metric.Edges{metric.EdgesAdd, metric.EdgesNearest} {
				q := &countingQuerier{db: db, marker: "ORDER BY k LIMIT"}
				sum, err := metric.RollupKeys(ctx, q, cat, req, opts(c.floors), 3, edges)
				if err != nil {
					t.Fatalf("edges %d: %v", edges, err)
				}
				if sum.Count != len(re.Keys) || !slices.Equal(sum.First, want) {
					t.Errorf("edges %d: count %d, first %v; want %d, %v", edges, sum.Count, sum.First, len(re.Keys), want)
				}
				if (q.marked > 0) != c.topReads {
					t.Errorf("edges %d: %d statements read a top-N of keys, want them %v", edges, q.marked, c.topReads)
				}
			}
		})
	}
}

// countingQuerier counts the statements holding marker.
type countingQuerier struct {
	db     *sql.DB
	marker string
	marked int
}

func (q *countingQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if strings.Contains(query, q.marker) {
		q.marked++
	}
	return q.db.QueryContext(ctx, query, args...)
}
