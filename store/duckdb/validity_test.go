package duckdb_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/shape/shapetest"
	"github.com/provenant/provenant/store/duckdb"
)

// TestSink_ValidityOnAppend: an import as `provenant import` runs it
// (shape.ImportOptions: on DuckDB each row's validity end filled as rows
// arrive in order, the checkpoints built set-based) derives exactly the
// structures the reference formulation derives (rows imported without
// derivation, then shape.Derive with Reference: the validity by one
// UPDATE, the checkpoints one statement each), on random rows: few
// devices and instants (ties in time), in (time, key) order or not, as
// one import or two.
func TestSink_ValidityOnAppend(t *testing.T) {
	l := ingesttest.WarehouseLayout(t)
	lines := strings.Split(strings.TrimSpace(string(ingesttest.DemoCSV(t, 400))), "\n")
	header, body := lines[0], lines[1:]
	cols := strings.Split(header, ",")
	tsCol, devCol, keyCol := slices.Index(cols, "ts"), slices.Index(cols, "device_id"), slices.Index(cols, "event_id")
	base := time.Date(2026, 1, 6, 8, 0, 0, 0, time.UTC)
	db, err := duckdb.OpenMemory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		ctx := context.Background()
		k := rapid.IntRange(0, 60).Draw(rt, "rows")
		type rec struct {
			ts, key string
			f       []string
		}
		recs := make([]rec, k)
		for i := range recs {
			f := strings.Split(body[rapid.IntRange(0, len(body)-1).Draw(rt, "line")], ",")
			f[keyCol] = fmt.Sprintf("k-%03d", i)
			f[devCol] = fmt.Sprintf("dev-%04d", rapid.IntRange(1, 4).Draw(rt, "device"))
			f[tsCol] = base.Add(time.Duration(rapid.IntRange(0, 9).Draw(rt, "minute")) * time.Minute).Format(time.RFC3339)
			recs[i] = rec{ts: f[tsCol], key: f[keyCol], f: f}
		}
		if rapid.IntRange(0, 3).Draw(rt, "order") > 0 {
			slices.SortFunc(recs, func(a, b rec) int {
				if c := strings.Compare(a.ts, b.ts); c != 0 {
					return c
				}
				return strings.Compare(a.key, b.key)
			})
		}
		cut := len(recs)
		if rapid.Bool().Draw(rt, "two imports") {
			cut = rapid.IntRange(0, len(recs)).Draw(rt, "cut")
		}
		every := rapid.SampledFrom([]int{1, 2, 3, 5, 1000}).Draw(rt, "every")
		csvOf := func(rs []rec) *ingest.Reader {
			var b bytes.Buffer
			b.WriteString(header + "\n")
			for _, r := range rs {
				b.WriteString(strings.Join(r.f, ",") + "\n")
			}
			return ingest.NewCSV("events.csv", l, &b)
		}
		lo, lr := *l, *l
		lo.Table, lr.Table = fmt.Sprintf("own_%d", n), fmt.Sprintf("ref_%d", n)
		for _, part := range [][]rec{recs[:cut], recs[cut:]} {
			if _, err := ingest.Import(ctx, duckdb.NewSink(db, shape.ImportOptions(&shape.DeriveOptions{Every: every})), &lo, csvOf(part)); err != nil {
				rt.Fatal(err)
			}
			if _, err := ingest.Import(ctx, duckdb.NewSink(db, &ingest.SinkOptions{AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
				return shape.Derive(ctx, tx, l.Dataset, l.Table, &shape.DeriveOptions{Every: every, Reference: true})
			}}), &lr, csvOf(part)); err != nil {
				rt.Fatal(err)
			}
		}
		if msg := shapetest.CompareDerived(ctx, db, l.Dataset, lo.Table, lr.Table); msg != "" {
			rt.Fatalf("%s (%d rows, cut %d, every %d)", msg, len(recs), cut, every)
		}
	})
}
