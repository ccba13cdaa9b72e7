package postgres_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
)

// TestSink_MoveStaged: an import whose rows are moved with their validity
// intervals (shape.MoveStaged) derives exactly what one moved plainly and
// derived afterwards does, row for row, on a first import, an append of
// later rows and an import of earlier rows (a rebuild).
func TestSink_MoveStaged(t *testing.T) {
	l := ingesttest.WarehouseLayout(t)
	lines := strings.SplitAfter(string(ingesttest.DemoCSV(t, 3000)), "\n")
	head, body := lines[0], lines[1:]
	part := func(lo, hi int) string { return head + strings.Join(body[lo:hi], "") }
	derive := func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
		return shape.Derive(ctx, tx, l.Dataset, l.Table, &shape.DeriveOptions{Every: 97})
	}
	move := func(ctx context.Context, tx *sql.Tx, l *ingest.Layout, staging string) error {
		return shape.MoveStaged(ctx, tx, l.Dataset, l.Table, staging)
	}
	for _, tc := range []struct {
		name   string
		inputs []string
	}{
		{"first import", []string{part(0, 3000)}},
		{"append", []string{part(0, 1700), part(1700, 3000)}},
		{"rebuild", []string{part(1100, 3000), part(0, 1100)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plainDB, plain := open(t, &ingest.SinkOptions{AfterInsert: derive})
			movedDB, moved := open(t, &ingest.SinkOptions{AfterInsert: derive, Move: move})
			for i, in := range tc.inputs {
				for _, s := range []ingest.Sink{plain, moved} {
					if _, err := ingest.Import(t.Context(), s, l, ingest.NewCSV(fmt.Sprint("part", i), l, strings.NewReader(in))); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, q := range []string{
				`SELECT event_id, CAST(_valid_to AS VARCHAR), _ingest_seq FROM status_events ORDER BY event_id`,
				`SELECT * FROM status_events__cpi ORDER BY _cp`,
				`SELECT * FROM status_events__cp ORDER BY _cp, device_id`,
				`SELECT * FROM status_events__series ORDER BY device_id`,
			} {
				want, got := dump(t, plainDB, q), dump(t, movedDB, q)
				if !bytes.Equal(got, want) {
					t.Errorf("%s: moved with intervals differs from moved plainly (%d bytes, want %d)", q, len(got), len(want))
				}
				if len(want) < 100 {
					t.Errorf("%s: only %d bytes: the test compares nothing", q, len(want))
				}
			}
		})
	}
}

// dump renders every row of a query as text.
func dump(t *testing.T, db *sql.DB, q string) []byte {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out bytes.Buffer
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&out, vals...)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
