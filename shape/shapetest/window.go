package shapetest

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/lthash"
	"github.com/provenant/provenant/shape"
)

// windowRows draws n rows of the warehouse dataset over 12 hours, at any
// second, in two zones and three statuses, with keys in random order
// (not the order of time), from key number first on.
func windowRows(t *rapid.T, ds *catalog.Dataset, n, first int, from time.Time) []Row {
	perm := rapid.Permutation(seqInts(n)).Draw(t, "keys")
	rows := make([]Row, n)
	for i := range rows {
		at := from.Add(time.Duration(rapid.IntRange(0, 12*3600-1).Draw(t, "second")) * time.Second)
		device := rapid.SampledFrom(Fixtures[1].Pools["device"]).Draw(t, "device")
		zones := Fixtures[1].Pools["zone"]
		zone := rapid.SampledFrom(zones[:min(2, len(zones))]).Draw(t, "zone")
		status := rapid.SampledFrom([]string{"RUNNING", "IDLE", "FAULT"}).Draw(t, "status")
		rows[i] = deviceRow(ds, fmt.Sprintf("w-%06d", first+perm[i]), device, zone, status, at)
	}
	slices.SortStableFunc(rows, func(a, b Row) int { return a.Time.Compare(b.Time) })
	return rows
}

func seqInts(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// deriveWindow builds rel's derived structures with its window key
// digests, in one transaction.
func deriveWindow(ctx context.Context, db *sql.DB, cat *catalog.Catalog, ds *catalog.Dataset, rel string, every int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := shape.Derive(ctx, tx, ds, rel, &shape.DeriveOptions{Every: every, WindowKeys: true, WindowGroups: shape.WindowGroups(cat, ds)}); err != nil {
		return err
	}
	return tx.Commit()
}

// RunWindowDigests checks, on random warehouse datasets with imports
// appended between calls (later than the stored rows, or not), that a
// window answered from the per-hour window digests (Options.WindowDigests,
// a small MaxKeys so that windows pass it) has the count, the lthash
// digest and the first keys of a full recomputation over the rows (the
// oracle's keys, hashed here), that the resolver passes it and fails
// every tampering, and that a window its digests do not serve keeps the
// ordinary answer.
func RunWindowDigests(t *testing.T, b Backend) {
	cat := LoadCatalog(t, "warehouse.yaml")
	ds := cat.Datasets[0]
	db, opts := b.Open(t)
	base := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	n, summed := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		ctx := context.Background()
		rel := fmt.Sprintf("win_%d", n)
		defer func() {
			for _, suffix := range []string{"", "__cp", "__cpi", "__series", shape.WindowKeysSuffix} {
				db.ExecContext(ctx, "DROP TABLE IF EXISTS "+rel+suffix)
			}
		}()
		maxKeys := rapid.IntRange(1, 12).Draw(rt, "max_keys")
		every := rapid.SampledFrom([]int{3, 50, 1000}).Draw(rt, "every")
		rows := windowRows(rt, ds, rapid.IntRange(0, 150).Draw(rt, "rows"), 0, base)
		if err := Load(ctx, db, ds, rel, rows); err != nil {
			rt.Fatal(err)
		}
		if err := deriveWindow(ctx, db, cat, ds, rel, every); err != nil {
			rt.Fatal(err)
		}
		eng, err := shape.New(ctx, cat, shape.Source{DB: db, Snapshot: opts, Pipeline: b.pipeline(db),
			Relations: map[string]string{ds.Name.Value: rel}}, &shape.Options{MaxKeys: maxKeys, WindowDigests: true})
		if err != nil {
			rt.Fatal(err)
		}
		defer eng.Close()
		calls := func(all []Row) {
			for range 3 {
				if checkWindowCall(rt, eng, cat, all, genWindowCall(rt, base), maxKeys) {
					summed++
				}
			}
		}
		calls(rows)
		for range rapid.IntRange(0, 2).Draw(rt, "appends") {
			// An append later than the stored rows (the digests' last
			// hours recomputed), or anywhere in the 12 hours (all of them).
			from := base
			if len(rows) > 0 && rapid.Bool().Draw(rt, "later") {
				from = rows[len(rows)-1].Time.Add(time.Second)
			}
			more := windowRows(rt, ds, rapid.IntRange(0, 60).Draw(rt, "more"), len(rows), from)
			if err := Append(ctx, db, ds, rel, more, len(rows)); err != nil {
				rt.Fatal(err)
			}
			if err := deriveWindow(ctx, db, cat, ds, rel, every); err != nil {
				rt.Fatal(err)
			}
			rows = append(rows, more...)
			calls(rows)
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			rt.Fatal(err)
		}
		ok, err := shape.CheckWindowKeys(ctx, tx, ds, rel)
		tx.Rollback()
		if err != nil || !ok {
			rt.Fatalf("CheckWindowKeys after the imports = %v, %v", ok, err)
		}
	})
	if summed == 0 {
		t.Fatalf("no window of %d checks was answered from the digests", n)
	}
	t.Logf("%d windows answered from the digests", summed)
}

// genWindowCall draws a window call over the 12 hours (and a little
// beyond), of either zone, status and scope.
func genWindowCall(t *rapid.T, base time.Time) shape.Call {
	zones := Fixtures[1].Pools["zone"][:2]
	start := base.Add(time.Duration(rapid.IntRange(-30, 12*60).Draw(t, "start_min"))*time.Minute + time.Duration(rapid.IntRange(0, 59).Draw(t, "start_sec"))*time.Second)
	end := start.Add(time.Duration(rapid.IntRange(0, 13*60).Draw(t, "len_min")) * time.Minute)
	zone := rapid.SampledFrom(zones).Draw(t, "zone")
	scope := shape.All()
	switch rapid.IntRange(0, 3).Draw(t, "scope") {
	case 1:
		scope = shape.Only(zone)
	case 2:
		scope = shape.Only(zones[0], zones[1])
	case 3:
		scope = shape.Only(rapid.SampledFrom(zones).Draw(t, "other"))
	}
	return shape.Call{Tool: "count_status_events_in_window", Args: map[string]string{
		"zone_id": zone, "status": rapid.SampledFrom([]string{"RUNNING", "IDLE", "FAULT", "BLOCKED"}).Draw(t, "status"),
		"start": stamp(start), "end": stamp(end)}, Scope: scope}
}

// checkWindowCall runs a window call and compares it with a full
// recomputation over the rows; it reports whether the answer came from
// the digests (an lthash digest).
func checkWindowCall(t fataler, eng *shape.Engine, cat *catalog.Catalog, rows []Row, call shape.Call, maxKeys int) bool {
	ctx := context.Background()
	snap, got := execute(t, eng, call)
	defer snap.Close()
	want, keys := Oracle(cat, rows, call)
	if !got.Value.Equal(want) || got.Rows != len(keys) {
		t.Fatalf("Execute(%v %v) = %+v, %d rows; recomputed %+v, %d rows", call.Args, call.Scope, got.Value, got.Rows, want, len(keys))
	}
	slices.Sort(keys)
	listed := keys[:min(len(keys), maxKeys)]
	if !slices.Equal(got.Keys, listed) {
		t.Fatalf("Execute(%v %v) first keys = %v, recomputed %v", call.Args, call.Scope, got.Keys, listed)
	}
	summed := strings.HasPrefix(got.Digest, fact.LtHashScheme)
	wantDigest := shape.Digest(keys)
	if summed {
		h := lthash.Of(keys...)
		wantDigest = h.Digest()
		if len(keys) <= maxKeys {
			t.Fatalf("Execute(%v) summed a window of %d rows, within the limit %d", call.Args, len(keys), maxKeys)
		}
	}
	if got.Digest != wantDigest {
		t.Fatalf("Execute(%v %v) digest = %s, recomputed %s", call.Args, call.Scope, got.Digest, wantDigest)
	}
	v, err := snap.Resolve(ctx, call, got)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if !v.OK() {
		t.Fatalf("Resolve(%v %v) = %+v on the executor's own answer (summed %v)", call.Args, call.Scope, v, summed)
	}
	for _, d := range append(Defects(got, rows), windowDefects(got)...) {
		v, err := snap.Resolve(ctx, call, d.Result)
		if err != nil {
			t.Fatalf("Resolve(%s): %v", d.Name, err)
		}
		if d.Breaks(v) {
			t.Fatalf("defect %s of %v (summed %v) passed the resolver: %+v", d.Name, call.Args, summed, v)
		}
	}
	return summed
}

// windowDefects are tamperings of a summed window's first keys: the
// greatest listed key dropped (the listing no longer the least keys), and
// a listed key swapped for the next key of the window (it skips one).
func windowDefects(r shape.Result) []Defect {
	if len(r.Keys) < 2 || r.Rows <= len(r.Keys) {
		return nil
	}
	complete := func(v shape.Verdict) bool { return v.Complete }
	short := r
	short.Keys = slices.Clone(r.Keys[:len(r.Keys)-1])
	skip := r
	skip.Keys = append(slices.Clone(r.Keys[1:]), r.Keys[len(r.Keys)-1]+"~")
	return []Defect{{"first_keys_short", short, complete}, {"first_keys_skip", skip, complete}}
}

// RunWindowEdges checks a window's edges on fixed rows, with and without
// derived structures, pipelined when the backend pipelines: rows at the
// start's hour, a second before start, at start, a second before end and
// at end, in the window's zone and status and beside them in another
// zone and status. The window counts the rows in [start, end) only, the
// resolver passes that answer, and it refuses an answer that adds the
// row a second before start (which its one read from the start's hour
// holds, and judges out in Go) or drops the row at start, besides every
// defect of Defects.
func RunWindowEdges(t *testing.T, b Backend) {
	cat := LoadCatalog(t, "warehouse.yaml")
	ds := cat.Datasets[0]
	db, opts := b.Open(t)
	ctx := context.Background()
	start := time.Date(2026, 3, 2, 9, 20, 0, 0, time.UTC)
	end := time.Date(2026, 3, 2, 11, 40, 0, 0, time.UTC)
	at := []time.Time{start.Truncate(time.Hour), start.Add(-time.Second), start, end.Add(-time.Second), end, start.Truncate(time.Hour).Add(-time.Second)}
	var rows []Row
	for i, tm := range at {
		for j, zs := range [][2]string{{"zone-01", "FAULT"}, {"zone-02", "FAULT"}, {"zone-01", "IDLE"}} {
			rows = append(rows, deviceRow(ds, fmt.Sprintf("e-%d-%d", i, j), "dev-0001", zs[0], zs[1], tm))
		}
	}
	slices.SortStableFunc(rows, func(a, b Row) int { return a.Time.Compare(b.Time) })
	call := shape.Call{Tool: "count_status_events_in_window", Args: map[string]string{
		"zone_id": "zone-01", "status": "FAULT", "start": stamp(start), "end": stamp(end)}, Scope: shape.All()}
	for _, derived := range []bool{false, true} {
		t.Run(fmt.Sprintf("derived=%v", derived), func(t *testing.T) {
			rel := fmt.Sprintf("edges_%v", derived)
			if err := Load(ctx, db, ds, rel, rows); err != nil {
				t.Fatal(err)
			}
			defer func() {
				for _, suffix := range []string{"", "__cp", "__cpi", "__series"} {
					db.ExecContext(ctx, "DROP TABLE IF EXISTS "+rel+suffix)
				}
			}()
			if derived {
				if err := derive(ctx, db, ds, rel, 2); err != nil {
					t.Fatal(err)
				}
			}
			// In the database, then held in memory with each of the
			// in-memory resolver's ways to read a window's rows.
			for _, mode := range []struct {
				name string
				opts *shape.Options
			}{
				{"database", nil},
				{"memory", &shape.Options{MemoryRows: len(rows)}},
				{"memory-hours", &shape.Options{MemoryRows: len(rows), MemoryWindow: shape.MemoryWindowHours}},
				{"memory-value", &shape.Options{MemoryRows: len(rows), MemoryWindow: shape.MemoryWindowValue}},
			} {
				t.Run(mode.name, func(t *testing.T) {
					eng, err := shape.New(ctx, cat, shape.Source{DB: db, Snapshot: opts, Pipeline: b.pipeline(db),
						Relations: map[string]string{ds.Name.Value: rel}}, mode.opts)
					if err != nil {
						t.Fatal(err)
					}
					defer eng.Close()
					if eng.InMemory(ds.Name.Value) != (mode.opts != nil) {
						t.Fatalf("InMemory = %v, want %v", eng.InMemory(ds.Name.Value), mode.opts != nil)
					}
					// Twice: the second call pipelines, where the backend does.
					for range 2 {
						checkCall(t, eng, cat, rows, call, shape.DefaultMaxKeys)
					}
					snap, got := execute(t, eng, call)
					defer snap.Close()
					// In the window: the rows at start and a second before end.
					if want := []string{"e-2-0", "e-3-0"}; !slices.Equal(got.Keys, want) || got.Value.Count != 2 {
						t.Fatalf("Execute = %d rows %v, want %v", got.Value.Count, got.Keys, want)
					}
					early := got
					early.Keys = []string{"e-1-0", "e-2-0", "e-3-0"}
					early.Rows, early.Value.Count, early.Digest = 3, 3, shape.Digest(early.Keys)
					late := got
					late.Keys = []string{"e-3-0"}
					late.Rows, late.Value.Count, late.Digest = 1, 1, shape.Digest(late.Keys)
					for _, d := range []struct {
						name string
						r    shape.Result
					}{{"a second before start added", early}, {"the row at start dropped", late}} {
						v, err := snap.Resolve(ctx, call, d.r)
						if err != nil {
							t.Fatalf("Resolve(%s): %v", d.name, err)
						}
						if v.ValueMatches || v.Complete {
							t.Errorf("Resolve(%s) = %+v: the value or the key set passed", d.name, v)
						}
						if d.name == "a second before start added" && v.ProvenanceValid {
							t.Errorf("Resolve(%s) = %+v: the row before start backs the value", d.name, v)
						}
					}
				})
			}
		})
	}
}

// deviceRow is a row of the warehouse catalog's status_events: the key,
// device, zone, status and time given, every other enumerated attribute
// at its first declared value and every required number at 50.
func deviceRow(ds *catalog.Dataset, key, device, zone, status string, tm time.Time) Row {
	r := Row{Key: key, Time: tm, Str: map[string]*string{}, Num: map[string]*float64{}}
	r.Str["device_id"], r.Str["zone_id"], r.Str["status"] = &device, &zone, &status
	for _, a := range ds.Attributes {
		switch {
		case a.Column.Value == "status" || a.Optional:
		case a.Enumerated():
			v := a.Values[0].Value
			r.Str[a.Column.Value] = &v
		default:
			f := 50.0
			r.Num[a.Column.Value] = &f
		}
	}
	return r
}
