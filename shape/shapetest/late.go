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
	"github.com/provenant/provenant/shape"
)

// CheckCheckpoints checks the derived structures of table against their
// definitions, computed here from the rows alone: every row's validity
// end is the time of the next row of its series (time, then key) or
// shape.OpenEnd; the checkpoints are numbered 1..n with strictly growing
// instants; each checkpoint holds exactly the latest row of every series
// at its instant, with the row's columns and validity end; and the census
// holds each series' first time. It describes the first fault, or
// returns "". Unlike CompareDerived it does not need the checkpoints at
// the instants a rebuild would choose.
func CheckCheckpoints(ctx context.Context, db *sql.DB, ds *catalog.Dataset, table string) string {
	key, ts, vt := q(ds.Key.Value), q(ds.Time.Value), q(shape.ValidToColumn)
	var series, cols []string
	for _, e := range ds.SeriesEntities() {
		series = append(series, q(e.Column.Value))
	}
	cols = append(cols, key, ts)
	for _, e := range ds.Entities {
		cols = append(cols, q(e.Column.Value))
	}
	for _, a := range ds.Attributes {
		cols = append(cols, q(a.Column.Value))
	}
	prefixed := func(p string, names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = p + "." + n
		}
		return strings.Join(out, ", ")
	}
	count := func(what, query string) string {
		var n int64
		if err := db.QueryRowContext(ctx, query).Scan(&n); err != nil {
			return fmt.Sprintf("%s: %v", what, err)
		}
		if n != 0 {
			return fmt.Sprintf("%s: %d fault(s)", what, n)
		}
		return ""
	}
	next := "COALESCE(LEAD(" + ts + ") OVER (PARTITION BY " + strings.Join(series, ", ") + " ORDER BY " + ts + ", " + key +
		"), CAST('" + shape.OpenEnd + "' AS TIMESTAMP))"
	cp, cpi, census := table+"__cp", table+"__cpi", table+"__series"
	latest := "SELECT w._cp, " + prefixed("w", cols) + ", w." + vt + " FROM (SELECT c._cp, " + prefixed("r", cols) + ", r." + vt +
		", ROW_NUMBER() OVER (PARTITION BY c._cp, " + prefixed("r", series) + " ORDER BY r." + ts + " DESC, r." + key + " DESC) AS rn FROM " +
		table + " r JOIN " + cpi + " c ON r." + ts + " <= c._cp_ts) w WHERE w.rn = 1"
	held := "SELECT _cp, " + strings.Join(cols, ", ") + ", " + vt + " FROM " + cp
	var sameSeries []string
	for _, c := range series {
		sameSeries = append(sameSeries, "s."+c+" = f."+c)
	}
	for _, c := range []struct{ what, query string }{
		{"validity ends", "SELECT COUNT(*) FROM (SELECT " + vt + " AS v, " + next + " AS want FROM " + table + ") x WHERE x.v IS NULL OR x.v <> x.want"},
		{"checkpoint numbers", "SELECT (SELECT COUNT(*) FROM " + cpi + " WHERE _cp < 1 OR _cp > (SELECT COUNT(*) FROM " + cpi + ")) + (SELECT COUNT(*) - COUNT(DISTINCT _cp) FROM " + cpi + ")"},
		{"checkpoint instants", "SELECT COUNT(*) FROM " + cpi + " a JOIN " + cpi + " b ON b._cp = a._cp + 1 WHERE b._cp_ts <= a._cp_ts"},
		{"checkpoint rows missing", "SELECT COUNT(*) FROM (" + latest + " EXCEPT " + held + ") d"},
		{"checkpoint rows not latest", "SELECT COUNT(*) FROM (" + held + " EXCEPT " + latest + ") d"},
		{"checkpoint rows repeated", "SELECT (SELECT COUNT(*) FROM " + cp + ") - (SELECT COUNT(*) FROM (" + latest + ") l)"},
		{"census", "SELECT COUNT(*) FROM (SELECT " + strings.Join(series, ", ") + ", MIN(" + ts + ") AS f FROM " + table + " GROUP BY " +
			strings.Join(series, ", ") + ") f FULL JOIN " + census + " s ON " + strings.Join(sameSeries, " AND ") +
			" WHERE s._first_ts IS NULL OR f.f IS NULL OR s._first_ts <> f.f"},
	} {
		if msg := count(c.what, c.query); msg != "" {
			return table + ": " + msg
		}
	}
	return ""
}

// loadAndAppend loads all into one, derived with then, and stored into
// two, derived with first; runs between (if set); then appends late to
// two and derives it with then, as the import of late rows would: one is
// the rows imported at once, two the same rows in two imports.
func loadAndAppend(ctx context.Context, t fataler, db *sql.DB, ds *catalog.Dataset, one, two string, all, stored, late []Row, first, then *shape.DeriveOptions, between func()) {
	for _, step := range []func() error{
		func() error { return Load(ctx, db, ds, one, all) },
		func() error { return deriveWith(ctx, db, ds, one, then) },
		func() error { return Load(ctx, db, ds, two, stored) },
		func() error { return deriveWith(ctx, db, ds, two, first) },
		func() error {
			if between != nil {
				between()
			}
			return nil
		},
		func() error { return Append(ctx, db, ds, two, late, len(stored)) },
		func() error { return deriveWith(ctx, db, ds, two, then) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
}

// checkpointIndex reads table's checkpoint index: number → instant.
func checkpointIndex(ctx context.Context, db *sql.DB, table string) (map[int64]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT _cp, CAST(_cp_ts AS VARCHAR) FROM "+table+"__cpi")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var ts string
		if err := rows.Scan(&id, &ts); err != nil {
			return nil, err
		}
		out[id] = ts
	}
	return out, rows.Err()
}

// RunLateRows checks the derivation after an import of late rows (rows
// not later than every stored row): the rows' intervals and the census
// are a rebuild's, row for row; the checkpoints keep their instants and
// each holds the latest row of every series at its instant
// (CheckCheckpoints); an engine answers as the oracle over all the rows;
// and an append that would crowd one checkpoint interval past twice the
// spacing rebuilds instead, equal to a rebuild row for row.
func RunLateRows(t *testing.T, b Backend) {
	cat := LoadCatalog(t, "warehouse.yaml")
	ds := cat.Datasets[0]
	db, opts := b.Open(t)
	ctx := t.Context()
	drop := func(rels ...string) {
		for _, rel := range rels {
			for _, suffix := range []string{"", "__cp", "__cpi", "__series", "__late"} {
				db.ExecContext(ctx, "DROP TABLE IF EXISTS "+rel+suffix)
			}
		}
	}
	// base: dev-0001 one row a minute for 100 minutes; checkpoints every
	// 10 rows, at minutes 9, 19, ..., 99.
	base := deviceRows(ds, "dev-0001", 0, 0, 100)
	// late returns n rows of device, a second apart from minute m and 30
	// seconds on, keys after base's.
	late := func(device string, m, n, first int) []Row {
		rows := deviceRows(ds, device, first, 0, n)
		for i := range rows {
			rows[i].Time = instant(m).Add(30*time.Second + time.Duration(i)*time.Second)
		}
		return rows
	}
	for _, tc := range []struct {
		name    string
		late    []Row
		rebuild bool // the append crowds an interval: rebuilt
	}{
		{"a new series", late("dev-0002", 4, 1, 100), false},
		{"rows of a stored series", append(late("dev-0001", 4, 2, 100), late("dev-0001", 55, 3, 102)...), false},
		{"before every row", append(late("dev-0003", -3, 1, 100), late("dev-0001", -2, 1, 101)...), false},
		{"beside the last checkpoint and after every row", append(late("dev-0002", 98, 1, 100), late("dev-0001", 120, 1, 101)...), false},
		{"crowding one interval", late("dev-0002", 30, 11, 100), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			one, two := "late_one", "late_two"
			drop(one, two)
			defer drop(one, two)
			all := append(slices.Clone(base), tc.late...)
			var before map[int64]string
			o := &shape.DeriveOptions{Every: 10}
			loadAndAppend(ctx, t, db, ds, one, two, all, base, tc.late, o, o, func() {
				var err error
				if before, err = checkpointIndex(ctx, db, two); err != nil {
					t.Fatal(err)
				}
			})
			for _, rel := range []string{one, two} {
				if msg := CheckCheckpoints(ctx, db, ds, rel); msg != "" {
					t.Fatal(msg)
				}
			}
			after, err := checkpointIndex(ctx, db, two)
			if err != nil {
				t.Fatal(err)
			}
			if tc.rebuild {
				if msg := CompareDerived(ctx, db, ds, one, two); msg != "" {
					t.Fatalf("crowded append: %s", msg)
				}
			} else {
				if msg := compareDerived(ctx, db, ds, one, two, false); msg != "" {
					t.Fatal(msg)
				}
				for id, ts := range before {
					if after[id] != ts {
						t.Fatalf("checkpoint %d at %s before the late rows, %q after: a late import keeps the instants", id, ts, after[id])
					}
				}
				if msg := CompareDerived(ctx, db, ds, one, two); msg == "" && len(before) > 0 {
					t.Fatal("the late rows' structures equal a rebuild's: the late derivation was not taken")
				}
			}
			eng, err := shape.New(ctx, cat, shape.Source{DB: db, Snapshot: opts, Pipeline: b.pipeline(db),
				Relations: map[string]string{ds.Name.Value: two}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			for _, m := range []int{-3, 4, 5, 9, 30, 31, 55, 56, 99, 100, 130} {
				for _, dev := range []string{"dev-0001", "dev-0002", "dev-0003"} {
					checkCall(t, eng, cat, all, shape.Call{Tool: "get_device_status", Scope: shape.All(),
						Args: map[string]string{"device_id": dev, "as_of": stamp(instant(m).Add(45 * time.Second))}}, shape.DefaultMaxKeys)
				}
				checkCall(t, eng, cat, all, shape.Call{Tool: "count_devices_with_condition", Scope: shape.All(),
					Args: map[string]string{"condition": "NEEDS_ATTENTION", "as_of": stamp(instant(m).Add(45 * time.Second))}}, shape.DefaultMaxKeys)
				checkCall(t, eng, cat, all, shape.Call{Tool: "list_devices_in_status", Scope: shape.All(),
					Args: map[string]string{"zone_id": "zone-01", "status": "RUNNING", "as_of": stamp(instant(m).Add(45 * time.Second))}}, shape.DefaultMaxKeys)
			}
		})
	}
	for _, fx := range Fixtures {
		t.Run("random "+fx.File, func(t *testing.T) {
			cat := LoadCatalog(t, fx.File)
			ds := cat.Datasets[0]
			n := 0
			rapid.Check(t, func(rt *rapid.T) {
				n++
				rows := genRows(rt, ds, fx.Pools)
				if len(rows) < 8 {
					rt.Skip("too few rows for a late eighth")
				}
				// A late eighth at most, drawn from anywhere in the rows.
				nLate := rapid.IntRange(1, len(rows)/8).Draw(rt, "late")
				perm := rapid.Permutation(rows).Draw(rt, "order")
				old, lateRows := perm[nLate:], perm[:nLate]
				every := rapid.SampledFrom([]int{1, 2, 3, 7, 1000}).Draw(rt, "every")
				one, two := fmt.Sprintf("laterand_one_%d", n), fmt.Sprintf("laterand_two_%d", n)
				defer drop(one, two)
				o := &shape.DeriveOptions{Every: every}
				loadAndAppend(ctx, rt, db, ds, one, two, perm, old, lateRows, o, o, nil)
				if msg := CheckCheckpoints(ctx, db, ds, two); msg != "" {
					rt.Fatalf("%s (every %d, %d late of %d)", msg, every, nLate, len(rows))
				}
				if msg := compareDerived(ctx, db, ds, one, two, false); msg != "" {
					rt.Fatalf("%s (every %d, %d late of %d)", msg, every, nLate, len(rows))
				}
				eng, err := shape.New(ctx, cat, shape.Source{DB: db, Snapshot: opts, Pipeline: b.pipeline(db),
					Relations: map[string]string{ds.Name.Value: two}}, nil)
				if err != nil {
					rt.Fatal(err)
				}
				defer eng.Close()
				for range 4 {
					checkCall(rt, eng, cat, perm, genCall(rt, cat, fx.Pools), shape.DefaultMaxKeys)
				}
			})
		})
	}
}
