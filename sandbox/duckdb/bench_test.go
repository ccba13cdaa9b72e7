package duckdb

import (
	"context"
	"database/sql"
	"testing"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/sandbox"
)

// benchSQL is a statement a model might write for a question no tool
// covers: out-of-stock scans per store over the fixture's 20,000 events.
const benchSQL = "SELECT store_id, count(*) AS n FROM events WHERE state = 'OUT_OF_STOCK' GROUP BY store_id ORDER BY store_id"

// BenchmarkIsolation is the price of isolation: the same statement run
// in-process on an open connection to the snapshot, validated only, and
// validated then run by a worker process (start, open the snapshot
// read-only, lock, validate again, estimate, run, profile, answer).
// roundtrip_warm is the same with two workers kept started ahead of need
// (Options.Warm), measured with a worker ready (the wait for the refill
// is off the clock): the latency of a statement that arrives when the
// server is not saturated. Back to back, statements outrun the refill
// (each start costs a process and a database open). Compare each with
// inprocess for the ratio.
func BenchmarkIsolation(b *testing.B) {
	ctx := context.Background()
	s := snapshotOf(b)
	b.Run("inprocess", func(b *testing.B) {
		c, err := duckdb.NewConnector(s.Path+"?access_mode=read_only&threads=1", nil)
		if err != nil {
			b.Fatal(err)
		}
		db := sql.OpenDB(c)
		defer db.Close()
		conn, err := db.Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		for b.Loop() {
			rows, err := conn.QueryContext(ctx, benchSQL)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rows.Next() {
				var id string
				var c int64
				if err := rows.Scan(&id, &c); err != nil {
					b.Fatal(err)
				}
				n++
			}
			rows.Close()
			if n != 5 {
				b.Fatalf("%d rows, want 5", n)
			}
		}
	})
	b.Run("validate", func(b *testing.B) {
		v, err := NewValidator(ctx, sandbox.NewPolicy(allowed), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer v.Close()
		for b.Loop() {
			if err := v.Validate(ctx, benchSQL); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, warm := range []int{0, 2} {
		name := "roundtrip"
		if warm > 0 {
			name = "roundtrip_warm"
		}
		b.Run(name, func(b *testing.B) {
			r := newWarmRunner(b, sandbox.Limits{}, warm)
			for b.Loop() {
				if warm > 0 {
					// Latency with a worker ready: wait, off the clock,
					// for the refill and for the workers to open.
					b.StopTimer()
					for len(r.spares) < warm {
						time.Sleep(time.Millisecond)
					}
					time.Sleep(100 * time.Millisecond)
					b.StartTimer()
				}
				res, err := r.Run(ctx, benchSQL)
				if err != nil || res.Outcome != sandbox.OutcomeOK || len(res.Rows) != 5 {
					b.Fatalf("result %+v, %v", res, err)
				}
			}
		})
	}
}
