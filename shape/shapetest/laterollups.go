package shapetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/shape"
)

// RunLateRollups checks the value rollups (shape.DeriveOptions.RollupValues)
// after an import of late rows, through shape.Derive as import runs it:
//
//   - on random rows over eight hours, a late eighth appended to the
//     rest gives the rollups (and, when kept, their slices) of the same
//     rows imported at once, row for row (the rows' times are whole
//     seconds, so that every sum is exact in either order);
//   - only the hours the late rows change are folded again: a stored
//     value the import's checks do not read (an hour's entries older than
//     the hours checked) is left as it was when the late rows fall
//     elsewhere, and the hours they fall in are the rebuild's;
//   - a stored value the checks do read (a count) makes the import fold
//     every hour again, so that the rollups are the rebuild's.
func RunLateRollups(t *testing.T, b Backend) {
	fx := Fixtures[1]
	cat := LoadCatalog(t, fx.File)
	ds := cat.Datasets[0]
	db, _ := b.Open(t)
	ctx := t.Context()
	drop := func(rels ...string) {
		for _, rel := range rels {
			for _, suffix := range []string{"", "__cp", "__cpi", "__series", "__late", shape.RollupValuesSuffix, shape.RollupValueSlicesSuffix} {
				db.ExecContext(ctx, "DROP TABLE IF EXISTS "+rel+suffix)
			}
		}
	}
	opts := func(sliceMinRows int) *shape.DeriveOptions {
		return &shape.DeriveOptions{Every: 5, RollupValues: true, Catalog: cat, ValueSliceMinRows: sliceMinRows}
	}
	same := func(t fataler, one, two, suffix string) {
		want, err := DumpRows(ctx, db, one+suffix)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DumpRows(ctx, db, two+suffix)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s after late rows differs from the rows imported at once:%s", suffix, diffLines(got, want))
		}
	}

	t.Run("random", func(t *testing.T) {
		n := 0
		rapid.Check(t, func(rt *rapid.T) {
			n++
			rows := genRows(rt, ds, fx.Pools)
			if len(rows) < 8 {
				rt.Skip("too few rows for a late eighth")
			}
			for i := range rows {
				rows[i].Key = fmt.Sprintf("k-%05d", i)
				rows[i].Time = base.Add(time.Duration(rapid.IntRange(0, 8*3600-1).Draw(rt, "second")) * time.Second)
			}
			nLate := rapid.IntRange(1, len(rows)/8).Draw(rt, "late")
			perm := rapid.Permutation(rows).Draw(rt, "order")
			sliceMinRows := rapid.SampledFrom([]int{-1, 0}).Draw(rt, "slice min rows")
			one, two := fmt.Sprintf("lateroll_one_%d", n), fmt.Sprintf("lateroll_two_%d", n)
			defer drop(one, two)
			o := opts(sliceMinRows)
			loadAndAppend(ctx, rt, db, ds, one, two, perm, perm[nLate:], perm[:nLate], o, o, nil)
			same(rt, one, two, shape.RollupValuesSuffix)
			if sliceMinRows < 0 {
				same(rt, one, two, shape.RollupValueSlicesSuffix)
			}
		})
	})

	// A row every ten minutes of one device over ten hours (hours 0 to
	// 9), one late row in hour 7, whose next row starts in hour 7 too.
	var rows []Row
	for i, r := range deviceRows(ds, "dev-0001", 0, 0, 60) {
		r.Time = base.Add(time.Duration(i) * 10 * time.Minute)
		rows = append(rows, r)
	}
	late := deviceRows(ds, "dev-0001", 100, 3, 1)
	late[0].Time = base.Add(7*time.Hour + 5*time.Minute)
	all := append(slices.Clone(rows), late...)
	hour := func(h int) string { return base.Add(time.Duration(h) * time.Hour).Format("2006-01-02 15:04:05") }
	alter := func(t *testing.T, rel, measure string, h int) {
		col := q(metric.ValueColumn(measure))
		if _, err := db.ExecContext(ctx, "UPDATE "+rel+shape.RollupValuesSuffix+" SET "+col+" = "+col+" + 100 WHERE _hour = CAST($1 AS TIMESTAMP)", hour(h)); err != nil {
			t.Fatal(err)
		}
	}
	part := func(t *testing.T, rel string, h int) []string {
		got, err := DumpRows(ctx, db, rel+shape.RollupValuesSuffix)
		if err != nil {
			t.Fatal(err)
		}
		at := "_hour=" + base.Add(time.Duration(h)*time.Hour).Format(time.RFC3339) + " "
		return slices.DeleteFunc(got, func(s string) bool { return !strings.HasPrefix(s, at) })
	}
	t.Run("only the late hours folded", func(t *testing.T) {
		one, two := "lateroll_one", "lateroll_two"
		drop(one, two)
		defer drop(one, two)
		loadAndAppend(ctx, t, db, ds, one, two, all, rows, late, opts(0), opts(0), func() { alter(t, two, "fault_entries", 1) })
		if got, want := part(t, two, 1), part(t, one, 1); slices.Equal(got, want) || len(got) != 1 {
			t.Fatalf("hour 1's entries, altered before the late rows and not checked, were folded again: %v", got)
		}
		for h := range 10 {
			if h == 1 {
				continue
			}
			if got, want := part(t, two, h), part(t, one, h); !slices.Equal(got, want) {
				t.Fatalf("hour %d after the late row:%s", h, diffLines(got, want))
			}
		}
	})
	t.Run("a check failing folds every hour", func(t *testing.T) {
		one, two := "lateroll_one", "lateroll_two"
		drop(one, two)
		defer drop(one, two)
		loadAndAppend(ctx, t, db, ds, one, two, all, rows, late, opts(0), opts(0), func() { alter(t, two, "events", 1) })
		same(t, one, two, shape.RollupValuesSuffix)
	})
}
