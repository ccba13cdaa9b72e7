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
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/shape/shapetest"
)

// RunRollupValues checks, on random datasets with rows at any second of
// 60 hours, imported in two parts (the second later, with an append's
// validity intervals), and random requests with windows at any minute
// asked after each part, that:
//
//   - the compiled query answered from the value rollups
//     (metric.Options.ValueRollups) returns exactly the table, byte for
//     byte, of the compiled query without them;
//   - metric.RederiveValues (stored hours, RederiveSQL's edges, a spot
//     check) returns exactly the table of RederiveSQL;
//   - rollups built in two imports equal rollups built at once;
//   - a stored measure altered is refused by RederiveValues when its spot
//     check covers the hour (ErrRollupMismatch), and rebuilt by the next
//     import's checks;
//   - with slices (kept from the start, or from the import at which the
//     rows become dense enough, as drawn), the same of them: the compiled
//     query and RederiveValues summing edges' whole slices equal the
//     rows', the slices built in two imports equal those built at once,
//     and an altered slice is refused by RederiveValues's spot check of a
//     slice and rebuilt by the next import.
func RunRollupValues(t *testing.T, b Backend) {
	for _, file := range Catalogs {
		t.Run(strings.TrimSuffix(file, ".yaml"), func(t *testing.T) {
			cat := LoadCatalog(t, file)
			db := b.Open(t)
			n, planned, caught, slicedPlanned, slicesCaught, crossCaught, bothCaught, longCaught := 0, 0, 0, 0, 0, 0, 0, 0
			rapid.Check(t, func(rt *rapid.T) {
				n++
				ctx := t.Context()
				sm := cat.SemanticModels[0]
				ds := cat.Dataset(sm.Dataset.Value)
				rows := genRows(rt, ds)
				for i := range rows {
					rows[i].at = rows[i].at.Add(time.Duration(rapid.IntRange(0, 3599).Draw(rt, "second")) * time.Second)
				}
				one, inc, tmp := "rv_"+strconv.Itoa(n), "rvi_"+strconv.Itoa(n), "rvt_"+strconv.Itoa(n)
				minSliceRows := rapid.IntRange(-1, 3).Draw(rt, "slice min rows")
				derive := func(table string) {
					deriveIn(ctx, rt, db, func(tx *sql.Tx) error { return shape.DeriveRollupValues(ctx, tx, cat, ds, table, minSliceRows) })
				}
				opts := &metric.Options{
					Relations: map[string]string{ds.Name.Value: inc}, References: loadReferences(ctx, rt, db, cat, sm, ds, "rvref_"+strconv.Itoa(n)),
					ValidTo: map[string]string{ds.Name.Value: ValidTo},
				}
				with := *opts
				with.ValueRollups = map[string]metric.ValueRollup{ds.Name.Value: shape.MetricValueRollup(cat, ds, inc)}
				with.SpotHours = rapid.IntRange(-1, 3).Draw(rt, "spot hours")
				ask := func() {
					ru := with.ValueRollups[ds.Name.Value]
					ru.Slices, ru.SliceWidth = "", 0
					if hasTable(rt, db, inc+shape.RollupValueSlicesSuffix) {
						ru.Slices, ru.SliceWidth = inc+shape.RollupValueSlicesSuffix, shape.SliceWidth
					}
					with.ValueRollups[ds.Name.Value] = ru
					for range 3 {
						m := rapid.SampledFrom(cat.Metrics).Draw(rt, "metric")
						req := genRequest(rt, cat, sm, ds, m)
						req.Start = req.Start.Truncate(time.Hour).Add(time.Duration(rapid.IntRange(0, 59).Draw(rt, "start minute")) * time.Minute)
						req.End = req.End.Truncate(time.Hour).Add(time.Duration(rapid.IntRange(0, 59).Draw(rt, "end minute")) * time.Minute)
						if !req.End.After(req.Start) {
							req.End = req.Start.Add(time.Minute)
						}
						if !metric.Plannable(cat, req, &with) {
							continue
						}
						planned++
						if ru.Slices != "" {
							slicedPlanned++
						}
						want := compiled(rt, ctx, db, cat, req, opts)
						got := compiled(rt, ctx, db, cat, req, &with)
						if d := tableDiff(got, want); d != "" {
							rt.Fatalf("compiled from rollups differs (%s):\n%s\nwant\n%s", d, showTable(got), showTable(want))
						}
						re, err := metric.RederiveSQL(ctx, db, cat, req, &metric.Options{Relations: opts.Relations, References: opts.References, ValidTo: opts.ValidTo, SkipKeys: true})
						if err != nil {
							rt.Fatalf("rederive: %v", err)
						}
						rv, err := metric.RederiveValues(ctx, db, cat, req, &with)
						if err != nil {
							rt.Fatalf("rederive values: %v", err)
						}
						if d := tableDiff(rv, re); d != "" {
							rt.Fatalf("RederiveValues differs from RederiveSQL (%s):\n%s\nwant\n%s", d, showTable(rv), showTable(re))
						}
						if err := metric.Verify(req, got, rv, 0); err != nil {
							rt.Fatalf("verify: %v", err)
						}
					}
				}
				// The same rows in two imports, the second later; requests
				// after each.
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
				derive(inc)
				ask()
				if err := loadRows(ctx, db, ds, tmp, late); err != nil {
					rt.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, "INSERT INTO "+ingest.Quote(inc)+" SELECT * FROM "+ingest.Quote(tmp)); err != nil {
					rt.Fatal(err)
				}
				revalidate(rt, ctx, db, ds, inc)
				derive(inc)
				ask()
				if err := loadRows(ctx, db, ds, one, rows); err != nil {
					rt.Fatal(err)
				}
				derive(one)
				want := dumpValues(rt, db, one+shape.RollupValuesSuffix)
				if got := dumpValues(rt, db, inc+shape.RollupValuesSuffix); !slices.Equal(got, want) {
					rt.Fatalf("rollups built in two imports differ from one:\n%v\nwant\n%v", got, want)
				}
				sliced := hasTable(rt, db, inc+shape.RollupValueSlicesSuffix)
				var wantSlices []string
				if sliced {
					wantSlices = dumpValues(rt, db, inc+shape.RollupValueSlicesSuffix)
				}
				if sliced && hasTable(rt, db, one+shape.RollupValueSlicesSuffix) {
					if got := dumpValues(rt, db, one+shape.RollupValueSlicesSuffix); !slices.Equal(wantSlices, got) {
						rt.Fatalf("slices built in two imports differ from one: %s", dumpDiff(wantSlices, got))
					}
				}
				// A stored measure altered: the spot check of its hour
				// refuses the answer, the next import rebuilds it.
				ru := with.ValueRollups[ds.Name.Value]
				if len(want) == 0 || len(ru.Measures) == 0 {
					return
				}
				col := rapid.SampledFrom(ru.Measures).Draw(rt, "altered measure")
				// A count or a duration is checked in every hour, entries
				// in the hours just before the last (shape.RollupValuesAgree).
				rv := ingest.Quote(inc + shape.RollupValuesSuffix)
				var at sql.NullTime
				var err error
				if m, _ := cat.Measure(col); m.Agg.Value == catalog.AggEntries {
					var last time.Time
					if err = db.QueryRowContext(ctx, "SELECT MAX(_hour) FROM "+rv).Scan(&last); err == nil {
						err = db.QueryRowContext(ctx, "SELECT MAX(_hour) FROM "+rv+" WHERE _n > 0 AND _hour < CAST($1 AS TIMESTAMP) AND _hour >= CAST($2 AS TIMESTAMP)",
							last.UTC().Format("2006-01-02 15:04:05"), last.UTC().Add(-2*time.Hour).Format("2006-01-02 15:04:05")).Scan(&at)
					}
				} else {
					err = db.QueryRowContext(ctx, "SELECT MIN(_hour) FROM "+rv+" WHERE _n > 0").Scan(&at)
				}
				if err != nil {
					rt.Fatal(err)
				}
				if !at.Valid {
					return
				}
				hour := at.Time
				hour = hour.UTC()
				// alter raises col in table's parts starting at at; refused
				// reports whether a metric reading col over [start, end)
				// was answered from the rollups under o, failing unless
				// RederiveValues refused it.
				alter := func(table string, at time.Time) {
					if _, err := db.ExecContext(ctx, "UPDATE "+ingest.Quote(table)+" SET "+ingest.Quote(metric.ValueColumn(col))+" = "+
						ingest.Quote(metric.ValueColumn(col))+" + 1 WHERE _hour = CAST($1 AS TIMESTAMP) AND _n > 0", at.Format("2006-01-02 15:04:05")); err != nil {
						rt.Fatal(err)
					}
				}
				refused := func(what string, start, end time.Time, o metric.Options) bool {
					o.SpotHours = 1
					for _, m := range cat.Metrics {
						if !slices.Contains(cat.MeasuresOf(m), col) {
							continue
						}
						req := metric.Request{Metric: m.Name.Value, Start: start, End: end, Scope: metric.All()}
						if !metric.Plannable(cat, req, &o) {
							continue
						}
						rv, err := metric.RederiveValues(ctx, db, cat, req, &o)
						if errors.Is(err, metric.ErrRollupMismatch) {
							return true
						}
						if err != nil {
							rt.Fatalf("metric %s over the altered %s: %v", m.Name.Value, what, err)
						}
						// Summed from the slices where the compiled
						// query sums the hours: the two differ, unless
						// the alteration leaves the answer as the rows
						// give it (a ratio whose numerator is 0).
						if !sumsSlices(o) {
							rt.Fatalf("metric %s over the altered %s: err %v, want ErrRollupMismatch", m.Name.Value, what, err)
						}
						got := compiled(rt, ctx, db, cat, req, &o)
						if metric.Verify(req, got, rv, 0) != nil {
							crossCaught++
							return true
						}
						re, err := metric.RederiveSQL(ctx, db, cat, req, &metric.Options{Relations: o.Relations, References: o.References, ValidTo: o.ValidTo, SkipKeys: true})
						if err != nil {
							rt.Fatalf("rederive: %v", err)
						}
						if err := metric.Verify(req, got, re, 0); err != nil {
							rt.Fatalf("metric %s over the altered %s: the compiled query and RederiveValues agree on a wrong answer (%v):\n%s", m.Name.Value, what, err, showTable(got))
						}
						return false
					}
					return false
				}
				alter(inc+shape.RollupValuesSuffix, hour)
				if refused("hour "+hour.String(), hour.Add(-30*time.Minute), hour.Add(90*time.Minute), with) {
					caught++
				}
				if sumsSlices(with) {
					// Windows of more than SliceSumHours whole hours,
					// of every metric reading the measure: one drawn
					// hour summed from the slices, which is the altered
					// one for one window in about fifty.
					long := with
					long.SpotHours = 1
					for _, m := range cat.Metrics {
						if !slices.Contains(cat.MeasuresOf(m), col) {
							continue
						}
						for k := range 20 {
							req := metric.Request{Metric: m.Name.Value, Start: hour.Add(-metric.SliceSumHours*time.Hour - time.Duration(k+1)*time.Minute), End: hour.Add(2 * time.Hour), Scope: metric.All()}
							if !metric.Plannable(cat, req, &long) {
								continue
							}
							rv, err := metric.RederiveValues(ctx, db, cat, req, &long)
							if errors.Is(err, metric.ErrRollupMismatch) {
								rt.Fatalf("metric %s over %s: a long window's re-derivation re-derived an hour from the rows", m.Name.Value, req.Start)
							}
							if err != nil {
								rt.Fatalf("metric %s over a long window: %v", m.Name.Value, err)
							}
							if metric.Verify(req, compiled(rt, ctx, db, cat, req, &long), rv, 0) != nil {
								longCaught++
							}
						}
					}
				}
				derive(inc)
				if got := dumpValues(rt, db, inc+shape.RollupValuesSuffix); !slices.Equal(got, want) {
					rt.Fatalf("an altered rollup survived an import:\n%v\nwant\n%v", got, want)
				}
				if !sliced {
					return
				}
				// A stored slice altered, the last of its hour (minute 50):
				// a window starting at it sums it as its head's only whole
				// slice, which the spot check of a slice then covers.
				var at50 sql.NullTime
				if err := db.QueryRowContext(ctx, "SELECT MIN(_hour) FROM "+ingest.Quote(inc+shape.RollupValueSlicesSuffix)+" WHERE _n > 0 AND EXTRACT(MINUTE FROM _hour) = 50").Scan(&at50); err != nil {
					rt.Fatal(err)
				}
				if !at50.Valid {
					return
				}
				slice := at50.Time.UTC()
				alter(inc+shape.RollupValueSlicesSuffix, slice)
				sliceOpts := with
				sru := ru
				sru.Slices, sru.SliceWidth = inc+shape.RollupValueSlicesSuffix, shape.SliceWidth
				sliceOpts.ValueRollups = map[string]metric.ValueRollup{ds.Name.Value: sru}
				if refused("slice "+slice.String(), slice, slice.Add(70*time.Minute), sliceOpts) {
					slicesCaught++
				}
				derive(inc)
				if got := dumpValues(rt, db, inc+shape.RollupValueSlicesSuffix); !slices.Equal(got, wantSlices) {
					rt.Fatalf("an altered slice survived an import: %s", dumpDiff(got, wantSlices))
				}
				// An hour altered with its slices alike (the first slice
				// of hour holding a row, and the hour's parts of the same
				// groups): the sums agree, and only the check of a slice
				// of the window's whole hours against the rows, one in
				// six a request for a one-hour window, refuses it.
				sl := ingest.Quote(inc + shape.RollupValueSlicesSuffix)
				var first sql.NullTime
				if err := db.QueryRowContext(ctx, "SELECT MIN(_hour) FROM "+sl+" WHERE _n > 0 AND _hour >= CAST($1 AS TIMESTAMP) AND _hour < CAST($2 AS TIMESTAMP)",
					hour.Format("2006-01-02 15:04:05"), hour.Add(time.Hour).Format("2006-01-02 15:04:05")).Scan(&first); err != nil {
					rt.Fatal(err)
				}
				if !first.Valid {
					return
				}
				same := make([]string, len(ru.Groups))
				for i, g := range ru.Groups {
					same[i] = "s." + ingest.Quote(g) + " IS NOT DISTINCT FROM " + rv + "." + ingest.Quote(g)
				}
				c := ingest.Quote(metric.ValueColumn(col))
				if _, err := db.ExecContext(ctx, "UPDATE "+rv+" SET "+c+" = "+c+" + 1 WHERE _hour = CAST($1 AS TIMESTAMP) AND EXISTS (SELECT 1 FROM "+sl+
					" s WHERE s._hour = CAST($2 AS TIMESTAMP) AND s._n > 0 AND "+strings.Join(same, " AND ")+")",
					hour.Format("2006-01-02 15:04:05"), first.Time.UTC().Format("2006-01-02 15:04:05")); err != nil {
					rt.Fatal(err)
				}
				alter(inc+shape.RollupValueSlicesSuffix, first.Time.UTC())
				sliceOpts.SpotHours = 1
				for _, m := range cat.Metrics {
					if !slices.Contains(cat.MeasuresOf(m), col) {
						continue
					}
					// Windows of the hour alone, each seeding its own
					// choice of slice.
					for k := range 12 {
						req := metric.Request{Metric: m.Name.Value, Start: hour.Add(-time.Duration(k) * time.Minute), End: hour.Add(time.Hour), Scope: metric.All()}
						if !metric.Plannable(cat, req, &sliceOpts) {
							continue
						}
						if _, err := metric.RederiveValues(ctx, db, cat, req, &sliceOpts); errors.Is(err, metric.ErrRollupMismatch) {
							bothCaught++
						} else if err != nil {
							rt.Fatalf("metric %s over an hour altered with its slices: %v", m.Name.Value, err)
						}
					}
					break
				}
				derive(inc)
				if got := dumpValues(rt, db, inc+shape.RollupValueSlicesSuffix); !slices.Equal(got, wantSlices) {
					rt.Fatalf("an altered slice survived an import: %s", dumpDiff(got, wantSlices))
				}
			})
			if planned == 0 || caught == 0 || slicedPlanned == 0 || slicesCaught == 0 {
				t.Errorf("planned %d requests from the rollups (%d with slices), caught %d altered hours and %d altered slices: the property checked nothing", planned, slicedPlanned, caught, slicesCaught)
			}
			if crossCaught == 0 || bothCaught == 0 || longCaught == 0 {
				t.Errorf("%d altered hours caught by the re-derivation's sum of the slices (%d in long windows), %d altered with their slices caught by its check of a slice: a check checked nothing", crossCaught, longCaught, bothCaught)
			}
			t.Logf("%d requests answered from the value rollups (%d with slices), %d altered hours (%d by the slices' sum; %d in long windows), %d altered slices and %d hours altered with their slices caught, over %d cases", planned, slicedPlanned, caught, crossCaught, longCaught, slicesCaught, bothCaught, n)
		})
	}
}

// sumsSlices reports whether o's value rollups sum whole hours from
// slices in RederiveValues (they are kept).
func sumsSlices(o metric.Options) bool {
	for _, ru := range o.ValueRollups {
		if ru.Slices != "" {
			return true
		}
	}
	return false
}

// revalidate recomputes a table's validity intervals after an append, as
// shape.Derive does: each row's series' next row's time, or OpenEnd.
func revalidate(t interface{ Fatal(...any) }, ctx context.Context, db *sql.DB, ds *catalog.Dataset, rel string) {
	var series []string
	for _, e := range ds.SeriesEntities() {
		series = append(series, ingest.Quote(e.Column.Value))
	}
	key, ts := ingest.Quote(ds.Key.Value), ingest.Quote(ds.Time.Value)
	q := "UPDATE " + ingest.Quote(rel) + " SET " + ingest.Quote(ValidTo) + " = x.nx FROM (SELECT " + key + " AS k, COALESCE(LEAD(" + ts +
		") OVER (PARTITION BY " + strings.Join(series, ", ") + " ORDER BY " + ts + ", " + key + "), CAST('" + shape.OpenEnd + "' AS TIMESTAMP)) AS nx FROM " +
		ingest.Quote(rel) + ") x WHERE " + ingest.Quote(rel) + "." + key + " = x.k"
	if _, err := db.ExecContext(ctx, q); err != nil {
		t.Fatal(err)
	}
}

func compiled(t *rapid.T, ctx context.Context, db *sql.DB, cat *catalog.Catalog, req metric.Request, o *metric.Options) *metric.Table {
	q, err := metric.Compile(cat, req, o)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	tab, err := q.Run(ctx, db)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, q.SQL)
	}
	return tab
}

// tableDiff returns "" when a and b hold the same rows, values equal bit
// for bit, or what differs.
func tableDiff(a, b *metric.Table) string {
	if len(a.Rows) != len(b.Rows) {
		return "row count " + strconv.Itoa(len(a.Rows)) + " against " + strconv.Itoa(len(b.Rows))
	}
	for i := range a.Rows {
		x, y := a.Rows[i], b.Rows[i]
		if a.GroupLabel(x) != b.GroupLabel(y) || !x.Bucket.Equal(y.Bucket) {
			return "row " + strconv.Itoa(i) + "'s group"
		}
		if (x.Value == nil) != (y.Value == nil) || x.Value != nil && math.Float64bits(*x.Value) != math.Float64bits(*y.Value) {
			return "row " + strconv.Itoa(i) + "'s value"
		}
	}
	return ""
}

func showTable(t *metric.Table) string {
	var b strings.Builder
	for _, r := range t.Rows {
		b.WriteString(t.GroupLabel(r) + " " + r.Bucket.Format(time.RFC3339) + " ")
		if r.Value == nil {
			b.WriteString("null")
		} else {
			b.WriteString(strconv.FormatFloat(*r.Value, 'g', -1, 64))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// dumpDiff describes the first difference of two sorted dumps.
func dumpDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("row %d is\n%s\nwant\n%s", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("%d rows, want %d", len(got), len(want))
}

// fataler is what the helpers below need of a *testing.T or a *rapid.T.
type fataler interface {
	Fatal(...any)
	Context() context.Context
}

// hasTable reports whether the current schema holds a table named name.
func hasTable(t fataler, db *sql.DB, name string) bool {
	var n int
	if err := db.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// dumpValues returns a value rollup table's rows as text, sorted.
func dumpValues(t fataler, db *sql.DB, table string) []string {
	rows, err := shapetest.DumpRows(t.Context(), db, ingest.Quote(table))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// RunValueSlicesDefault checks which databases keep the value rollups by
// slice when the import leaves the choice to the default
// (shape.DeriveRollupValues's minSliceRows 0): on a table averaging
// shape.DefaultSliceMinRows rows an hour, they are kept exactly when
// wantDense is set (PostgreSQL, where a statement's cost follows its
// rows; not DuckDB), and one row fewer keeps them nowhere.
func RunValueSlicesDefault(t *testing.T, b Backend, wantDense bool) {
	cat := LoadCatalog(t, "warehouse.yaml")
	ds := cat.Dataset(cat.SemanticModels[0].Dataset.Value)
	db := b.Open(t)
	ctx := t.Context()
	for _, c := range []struct {
		name string
		rows int
		want bool
	}{{"dense", shape.DefaultSliceMinRows, wantDense}, {"one row short", shape.DefaultSliceMinRows - 1, false}} {
		t.Run(c.name, func(t *testing.T) {
			table := "vsd_" + strconv.Itoa(c.rows)
			rows := denseRows(ds, base, c.rows)
			if err := loadRows(ctx, db, ds, table, rows); err != nil {
				t.Fatal(err)
			}
			deriveIn(ctx, t, db, func(tx *sql.Tx) error { return shape.DeriveRollupValues(ctx, tx, cat, ds, table, 0) })
			if got := hasTable(t, db, table+shape.RollupValueSlicesSuffix); got != c.want {
				t.Errorf("%s on %d rows in an hour: value slices kept %v, want %v", b.Name, c.rows, got, c.want)
			}
		})
	}
}

// denseRows returns n rows of ds from start on, half a second apart, their
// entities and attributes cycling through the pools and declared values.
func denseRows(ds *catalog.Dataset, start time.Time, n int) []genRow {
	rows := make([]genRow, n)
	for i := range rows {
		r := genRow{key: fmt.Sprintf("k-%s-%05d", start.Format("150405"), i), at: start.Add(time.Duration(i) * 500 * time.Millisecond), vals: map[string]any{}}
		for _, e := range ds.Entities {
			r.vals[e.Column.Value] = pools[e.Name.Value][i%len(pools[e.Name.Value])]
		}
		for _, a := range ds.Attributes {
			switch {
			case a.Enumerated():
				vs := refValues(a.Values)
				r.vals[a.Column.Value] = vs[i%len(vs)]
			case a.Type.Value == "integer":
				r.vals[a.Column.Value] = int64(i % 100)
			default:
				r.vals[a.Column.Value] = float64(i%200) / 2
			}
		}
		rows[i] = r
	}
	return rows
}

// RunValueSlicesLater checks the value slices of a table that grows dense
// at an import after the first: below the threshold none are kept; at the
// import that crosses it they are built for every hour, equal to those an
// import of all the rows at once builds.
func RunValueSlicesLater(t *testing.T, b Backend) {
	cat := LoadCatalog(t, "warehouse.yaml")
	ds := cat.Dataset(cat.SemanticModels[0].Dataset.Value)
	db := b.Open(t)
	ctx := t.Context()
	const threshold = 3
	derive := func(table string) {
		deriveIn(ctx, t, db, func(tx *sql.Tx) error { return shape.DeriveRollupValues(ctx, tx, cat, ds, table, threshold) })
	}
	// Two rows in the first hour (density 2), then ten in the third
	// (12 rows over 2 hours: 6).
	early := denseRows(ds, base, 2)
	late := denseRows(ds, base.Add(2*time.Hour), 10)
	if err := loadRows(ctx, db, ds, "vsl_inc", early); err != nil {
		t.Fatal(err)
	}
	derive("vsl_inc")
	if hasTable(t, db, "vsl_inc"+shape.RollupValueSlicesSuffix) {
		t.Fatalf("value slices kept at density 2 under a threshold of %d", threshold)
	}
	if err := loadRows(ctx, db, ds, "vsl_tmp", late); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO vsl_inc SELECT * FROM vsl_tmp"); err != nil {
		t.Fatal(err)
	}
	revalidate(t, ctx, db, ds, "vsl_inc")
	derive("vsl_inc")
	if err := loadRows(ctx, db, ds, "vsl_one", append(slices.Clone(early), late...)); err != nil {
		t.Fatal(err)
	}
	derive("vsl_one")
	got, want := dumpValues(t, db, "vsl_inc"+shape.RollupValueSlicesSuffix), dumpValues(t, db, "vsl_one"+shape.RollupValueSlicesSuffix)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("slices kept from the import that made the table dense: %s", dumpDiff(got, want))
	}
}

// RunRollupValuesBuilt checks that every hour the value rollups hold has
// been checked against the rows when built (shape.BuiltRollupValuesAgree,
// which shape.DeriveRollupValues runs on the hours it folds): a count,
// an entries value in an hour older than the ones the next import's
// checks read, or a duration altered in the stored rollups is found, and
// rows whose validity intervals disagree with their series' order (which
// the fold reads by LEAD and the check by the intervals) fail the import
// with shape.ErrRollupValuesBuilt rather than store hours that no check
// agreed with.
func RunRollupValuesBuilt(t *testing.T, b Backend) {
	cat := LoadCatalog(t, "warehouse.yaml")
	ds := cat.Dataset(cat.SemanticModels[0].Dataset.Value)
	db := b.Open(t)
	ctx := t.Context()
	_, measures := metric.ValueLayout(cat, ds)
	column := func(agg string) string {
		for _, m := range measures {
			if m.Agg.Value == agg {
				return ingest.Quote(metric.ValueColumn(m.Name.Value))
			}
		}
		t.Fatalf("warehouse catalog: no stored %s measure", agg)
		return ""
	}
	// Rows in the first, third and sixth hours: the first is older than the
	// hours whose entries the next import reads again.
	var rows []genRow
	for _, h := range []int{0, 2, 5} {
		rows = append(rows, denseRows(ds, base.Add(time.Duration(h)*time.Hour+17*time.Minute), 12)...)
	}
	for i := range rows {
		rows[i].key = fmt.Sprintf("k-%03d", i)
	}
	first := base.Format("2006-01-02 15:04:05")
	agree := func(t *testing.T, table string) bool {
		t.Helper()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		ok, err := shape.BuiltRollupValuesAgree(ctx, tx, cat, ds, table, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for i, c := range []struct {
		name  string
		alter string // an UPDATE of the rollups; %s: the table, %s: the first hour
	}{
		{"count", "UPDATE %s SET _n = _n + 1 WHERE _hour = CAST('%s' AS TIMESTAMP) AND _n > 0"},
		{"entries in the oldest hour", "UPDATE %s SET " + column(catalog.AggEntries) + " = " + column(catalog.AggEntries) + " + 1 WHERE _hour = CAST('%s' AS TIMESTAMP) AND _n > 0"},
		{"duration", "UPDATE %s SET " + column(catalog.AggDuration) + " = " + column(catalog.AggDuration) + " + 1 WHERE _hour = CAST('%s' AS TIMESTAMP) AND _n > 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			table := "rvb_" + strconv.Itoa(i)
			if err := loadRows(ctx, db, ds, table, rows); err != nil {
				t.Fatal(err)
			}
			deriveIn(ctx, t, db, func(tx *sql.Tx) error { return shape.DeriveRollupValues(ctx, tx, cat, ds, table, 0) })
			if !agree(t, table) {
				t.Fatalf("%s: rollups as built disagree with their rows", b.Name)
			}
			res, err := db.ExecContext(ctx, fmt.Sprintf(c.alter, ingest.Quote(table+shape.RollupValuesSuffix), first))
			if err != nil {
				t.Fatal(err)
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				t.Fatalf("alteration touched no stored hour (%d, %v)", n, err)
			}
			if agree(t, table) {
				t.Errorf("%s: the first stored hour altered (%s) agrees with the rows", b.Name, c.name)
			}
		})
	}
	t.Run("duration moved between hours", func(t *testing.T) {
		table := "rvb_move"
		if err := loadRows(ctx, db, ds, table, rows); err != nil {
			t.Fatal(err)
		}
		deriveIn(ctx, t, db, func(tx *sql.Tx) error { return shape.DeriveRollupValues(ctx, tx, cat, ds, table, 0) })
		// A second of one group's duration taken from one hour and given
		// to a later one: every sum over the hours is unchanged.
		groups, _ := metric.ValueLayout(cat, ds)
		rv, d := ingest.Quote(table+shape.RollupValuesSuffix), column(catalog.AggDuration)
		var gcols []string
		for _, g := range groups {
			gcols = append(gcols, "CAST("+ingest.Quote(g)+" AS VARCHAR)")
		}
		q := "SELECT CAST(_hour AS VARCHAR), " + strings.Join(gcols, " || '|' || ") + " FROM " + rv + " WHERE " + d + " > 1 ORDER BY _hour"
		got, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]string{}
		var from, to, group string
		for got.Next() {
			var h string
			var g sql.NullString
			if err := got.Scan(&h, &g); err != nil {
				t.Fatal(err)
			}
			if f, ok := seen[g.String]; ok && g.Valid && from == "" {
				from, to, group = f, h, g.String
			}
			seen[g.String] = h
		}
		got.Close()
		if from == "" {
			t.Fatal("no group holds durations in two stored hours")
		}
		move := func(hour string, by int) {
			res, err := db.ExecContext(ctx, "UPDATE "+rv+" SET "+d+" = "+d+" + "+strconv.Itoa(by)+" WHERE CAST(_hour AS VARCHAR) = $1 AND "+strings.Join(gcols, " || '|' || ")+" = $2", hour, group)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				t.Fatalf("moving a second touched %d stored parts (%v), want 1", n, err)
			}
		}
		move(from, -1)
		move(to, 1)
		if agree(t, table) {
			t.Errorf("%s: a second moved between two hours of one group agrees with the rows", b.Name)
		}
	})
	t.Run("intervals out of order", func(t *testing.T) {
		table := "rvb_vt"
		if err := loadRows(ctx, db, ds, table, rows); err != nil {
			t.Fatal(err)
		}
		// One row's interval cut short: its series' next row (LEAD) comes
		// later than the end its interval says.
		if _, err := db.ExecContext(ctx, "UPDATE "+ingest.Quote(table)+" SET "+ingest.Quote(ValidTo)+" = "+ingest.Quote(ds.Time.Value)+
			" + INTERVAL '1 second' WHERE "+ingest.Quote(ds.Key.Value)+" = 'k-000'"); err != nil {
			t.Fatal(err)
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		err = shape.DeriveRollupValues(ctx, tx, cat, ds, table, 0)
		if !errors.Is(err, shape.ErrRollupValuesBuilt) {
			t.Fatalf("%s: derive over intervals that disagree with the rows' order: %v, want %v", b.Name, err, shape.ErrRollupValuesBuilt)
		}
	})
}
