package shapetest

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/lthash"
	"github.com/provenant/provenant/shape"
)

// digestSuffixes are the key digest tables Derive keeps.
var digestSuffixes = []string{shape.RollupKeysSuffix, shape.RollupSlicesSuffix, shape.WindowKeysSuffix}

// digestRow is one warehouse event of key number k at time at, in zone
// zone-0z and status status.
func digestRow(ds *catalog.Dataset, k int, at time.Time, device, zone int, status string) Row {
	return deviceRow(ds, fmt.Sprintf("d-%05d", k), fmt.Sprintf("dev-%04d", device), fmt.Sprintf("zone-%02d", zone), status, at)
}

// dumpDigests returns the rows of rel's key digest tables that exist as
// text, each prefixed by its table's suffix, the digest in hex (every
// byte of it), sorted.
func dumpDigests(ctx context.Context, t fataler, db *sql.DB, rel string) []string {
	var out []string
	for _, suffix := range digestSuffixes {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+rel+suffix).Scan(&n); err != nil {
			continue // not kept
		}
		rows, err := DumpRows(ctx, db, rel+suffix)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			out = append(out, suffix+" "+r)
		}
	}
	slices.Sort(out)
	return out
}

// DumpRows returns table's rows (table as SQL names it) as text, sorted:
// each column as name=value, times in RFC 3339, a digest (_lthash) in
// hex, every byte of it. Two tables hold the same rows exactly when their
// dumps are equal.
func DumpRows(ctx context.Context, db *sql.DB, table string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT * FROM "+table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		var line []string
		for i, v := range vals {
			switch v := v.(type) {
			case []byte:
				if cols[i] == "_lthash" {
					line = append(line, hex.EncodeToString(v))
				} else {
					line = append(line, cols[i]+"="+string(v))
				}
			case time.Time:
				line = append(line, cols[i]+"="+v.UTC().Format(time.RFC3339))
			default:
				line = append(line, fmt.Sprintf("%s=%v", cols[i], v))
			}
		}
		out = append(out, strings.Join(line, " "))
	}
	slices.Sort(out)
	return out, rows.Err()
}

// diffLines describes how got differs from want, both sorted.
func diffLines(got, want []string) string {
	var b strings.Builder
	for _, g := range got {
		if _, ok := slices.BinarySearch(want, g); !ok {
			b.WriteString("\n+ " + trimHash(g))
		}
	}
	for _, w := range want {
		if _, ok := slices.BinarySearch(got, w); !ok {
			b.WriteString("\n- " + trimHash(w))
		}
	}
	return b.String()
}

// trimHash shortens a dumped row's 4,096 hex digits.
func trimHash(line string) string {
	if i := strings.LastIndexByte(line, ' '); i >= 0 && len(line)-i > 40 {
		return line[:i+17] + "…"
	}
	return line
}

// digestModes are the ways the rollup slices are kept across two
// imports: never (the hours hashed from the rows), from the first (the
// hours combined from them), or from the second on (made by it).
var digestModes = []struct {
	name          string
	first, second int // DeriveOptions.SliceMinRows of each import
}{
	{"no slices", 0, 0},
	{"slices", -1, -1},
	{"slices from the second import", 0, -1},
}

// digestOptions are the options of a derivation keeping every key
// digest table, with slices from minRows (DeriveOptions.SliceMinRows).
func digestOptions(cat *catalog.Catalog, ds *catalog.Dataset, minRows int) *shape.DeriveOptions {
	return &shape.DeriveOptions{Every: 10, RollupKeys: true, SliceMinRows: minRows, WindowKeys: true, WindowGroups: shape.WindowGroups(cat, ds)}
}

// dropDigests drops rel and its derived tables.
func dropDigests(ctx context.Context, db *sql.DB, rel string) {
	for _, suffix := range append([]string{"", "__cp", "__cpi", "__series", "__late"}, digestSuffixes...) {
		db.ExecContext(ctx, "DROP TABLE IF EXISTS "+rel+suffix)
	}
}

// RunLateDigests checks the key digests (TABLE__rollup_keys,
// TABLE__rollup_slices, TABLE__window_keys) Derive keeps across an
// import of late rows (earlier than the last stored hour, in stored and
// new groups and hours, mixed with rows after every stored row): they
// equal, byte for byte, the digests of one import of every row; the late
// rows are added to the stored digests rather than every hour re-hashed:
// a stored digest outside the checked hours and away from the late rows,
// changed before the import (its count kept), is still changed after it;
// and a changed count, or a changed digest of a checked part, is found
// and every part rebuilt. Then on random rows and imports.
func RunLateDigests(t *testing.T, b Backend) {
	cat := LoadCatalog(t, "warehouse.yaml")
	ds := cat.Datasets[0]
	db, _ := b.Open(t)
	ctx := t.Context()
	statuses := []string{"RUNNING", "IDLE", "FAULT"}
	// stored: a row every 7 minutes over 8 hours, in two zones and three
	// statuses; its last hour is hour 7, the checked ones 5 and 6.
	var stored []Row
	for i := range 8 * 60 / 7 {
		stored = append(stored, digestRow(ds, i, instant(7*i), 1+i%3, 1+i%2, statuses[i%3]))
	}
	late := []Row{
		digestRow(ds, 1000, instant(2*60+13), 1, 1, "RUNNING"), // a stored (hour, group)
		digestRow(ds, 1001, instant(9*60+1), 2, 2, "IDLE"),     // after every row
		digestRow(ds, 1002, instant(3*60+41), 2, 2, "FAULT"),   // a stored hour
		digestRow(ds, 1003, instant(4*60+20), 3, 3, "RUNNING"), // a new zone
		digestRow(ds, 1004, instant(5*60+25), 1, 2, "IDLE"),    // a checked hour
		digestRow(ds, 1005, instant(6*60+59), 2, 1, "BLOCKED"), // a new status, checked hour
		digestRow(ds, 1006, instant(7*60+3), 3, 1, "RUNNING"),  // the last hour
		digestRow(ds, 1007, instant(-60+30), 1, 1, "RUNNING"),  // before every row
		digestRow(ds, 1008, instant(5*60+26), 1, 2, "IDLE"),    // the same part as 1004
		digestRow(ds, 1009, instant(8*60+30), 1, 3, "RUNNING"), // after every stored row
		digestRow(ds, 1010, instant(2*60+14), 1, 1, "RUNNING"), // the same part as 1000
		digestRow(ds, 1011, instant(3*60+50), 3, 3, "BLOCKED"), // new zone and status
		digestRow(ds, 1012, instant(2*60+15), 2, 1, "RUNNING"), // the same part as 1000, its key below
	}
	// A key holding a newline: its part's keys are read again row by row.
	late[len(late)-1].Key += "\nline"
	// change alters with set (its argument arg, if any) the parts where
	// (TAB: the table) of every digest table of suffixes that exists, and
	// returns the suffixes of those tables.
	change := func(t *testing.T, rel string, suffixes []string, set, where string, arg []any) []string {
		t.Helper()
		var done []string
		for _, suffix := range suffixes {
			tab := rel + suffix
			var n int
			if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+tab).Scan(&n); err != nil {
				continue
			}
			if _, err := db.ExecContext(ctx, "UPDATE "+tab+" SET "+set+" WHERE "+strings.ReplaceAll(where, "TAB", tab), arg...); err != nil {
				t.Fatal(err)
			}
			done = append(done, suffix)
		}
		return done
	}
	bogus := lthash.Of("tampered")
	bogusBytes, _ := bogus.MarshalBinary()
	hour0 := "_hour = CAST('" + instant(0).Format("2006-01-02 15:04:05") + "' AS TIMESTAMP)"
	for _, mode := range digestModes {
		for _, tc := range []struct {
			name  string
			set   string // the change made to the stored digests before the late import
			where string // the parts changed
			kept  bool   // the change survives the import; else every part is rebuilt
		}{
			{name: "unchanged"},
			// Hour 0 (and its first slice): before the checked parts, no
			// late row in it: not re-hashed by the late import.
			{name: "an old digest changed", set: "_lthash = $1", where: hour0, kept: true},
			// The part before the last is checked.
			{name: "a checked digest changed", set: "_lthash = $1", where: "_hour = (SELECT MAX(_hour) FROM TAB WHERE _hour < (SELECT MAX(_hour) FROM TAB))"},
			{name: "an old count changed", set: "_n = _n + 1", where: hour0},
		} {
			t.Run(mode.name+", "+tc.name, func(t *testing.T) {
				one, two := "dig_one", "dig_two"
				dropDigests(ctx, db, one)
				dropDigests(ctx, db, two)
				defer dropDigests(ctx, db, one)
				defer dropDigests(ctx, db, two)
				all := append(slices.Clone(stored), late...)
				slices.SortStableFunc(all, func(a, b Row) int { return a.Time.Compare(b.Time) })
				var arg []any
				if strings.Contains(tc.set, "$1") {
					arg = []any{bogusBytes}
				}
				var changed []string
				loadAndAppend(ctx, t, db, ds, one, two, all, stored, late, digestOptions(cat, ds, mode.first), digestOptions(cat, ds, mode.second), func() {
					if tc.set == "" {
						return
					}
					before := dumpDigests(ctx, t, db, two)
					changed = change(t, two, digestSuffixes, tc.set, tc.where, arg)
					if slices.Equal(dumpDigests(ctx, t, db, two), before) {
						t.Fatal("the change changed nothing")
					}
				})
				want := dumpDigests(ctx, t, db, one)
				for _, suffix := range digestSuffixes {
					if mode.second >= 0 && suffix == shape.RollupSlicesSuffix {
						continue
					}
					if !slices.ContainsFunc(want, func(l string) bool { return strings.HasPrefix(l, suffix+" ") }) {
						t.Fatalf("no %s kept: the test checks nothing of it", suffix)
					}
				}
				if tc.kept {
					// Not re-hashed by the late import: the rebuild's,
					// changed alike.
					change(t, one, changed, tc.set, tc.where, arg)
					want = dumpDigests(ctx, t, db, one)
				}
				if got := dumpDigests(ctx, t, db, two); !slices.Equal(got, want) {
					t.Fatalf("digests after the late import differ from one import's (+ got, - want):%s", diffLines(got, want))
				}
			})
		}
	}
	t.Run("random", func(t *testing.T) {
		n := 0
		rapid.Check(t, func(rt *rapid.T) {
			n++
			one, two := fmt.Sprintf("digrand_one_%d", n), fmt.Sprintf("digrand_two_%d", n)
			defer dropDigests(ctx, db, one)
			defer dropDigests(ctx, db, two)
			mode := rapid.SampledFrom(digestModes).Draw(rt, "mode")
			draw := func(n, first int) []Row {
				rows := make([]Row, n)
				for i := range rows {
					// Over 14 hours, the stored rows' 12 and one either side.
					at := instant(-60).Add(time.Duration(rapid.IntRange(0, 14*3600-1).Draw(rt, "second")) * time.Second)
					rows[i] = digestRow(ds, first+i, at, rapid.IntRange(1, 3).Draw(rt, "device"), rapid.IntRange(1, 3).Draw(rt, "zone"),
						rapid.SampledFrom([]string{"RUNNING", "IDLE", "FAULT", "BLOCKED"}).Draw(rt, "status"))
				}
				return rows
			}
			stored := draw(rapid.IntRange(0, 80).Draw(rt, "stored"), 0)
			for i := range stored {
				// The stored rows within their 12 hours.
				stored[i].Time = instant(0).Add(stored[i].Time.Sub(instant(-60)) * 12 / 14).Truncate(time.Second)
			}
			slices.SortStableFunc(stored, func(a, b Row) int { return a.Time.Compare(b.Time) })
			if err := Load(ctx, db, ds, two, stored); err != nil {
				rt.Fatal(err)
			}
			if err := deriveWith(ctx, db, ds, two, digestOptions(cat, ds, mode.first)); err != nil {
				rt.Fatal(err)
			}
			all := slices.Clone(stored)
			for i := range rapid.IntRange(1, 2).Draw(rt, "imports") {
				more := draw(rapid.IntRange(0, 25).Draw(rt, "late"), 1000*(i+1))
				if err := Append(ctx, db, ds, two, more, len(all)); err != nil {
					rt.Fatal(err)
				}
				if err := deriveWith(ctx, db, ds, two, digestOptions(cat, ds, mode.second)); err != nil {
					rt.Fatal(err)
				}
				all = append(all, more...)
			}
			slices.SortStableFunc(all, func(a, b Row) int { return a.Time.Compare(b.Time) })
			if err := Load(ctx, db, ds, one, all); err != nil {
				rt.Fatal(err)
			}
			if err := deriveWith(ctx, db, ds, one, digestOptions(cat, ds, mode.second)); err != nil {
				rt.Fatal(err)
			}
			want := dumpDigests(ctx, rt, db, one)
			if got := dumpDigests(ctx, rt, db, two); !slices.Equal(got, want) {
				rt.Fatalf("digests after the imports differ from one import's (+ got, - want):%s", diffLines(got, want))
			}
		})
	})
}
