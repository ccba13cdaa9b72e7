package engine_test

import (
	"bytes"
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
	"github.com/provenant/provenant/tool"
)

// TestOpenCatalog_OneConnection: a request never waits for a second
// connection while its snapshot holds one. With a pool of one connection,
// every tool and a metric answer (a request that needed a second one
// would wait for ever: its own snapshot holds the only one). This is what
// keeps a server whose in-flight limit exceeds its pool from stalling
// when every connection holds a snapshot of a request preparing a
// statement it has not run before.
func TestOpenCatalog_OneConnection(t *testing.T) {
	backends := []struct {
		name string
		open func(t *testing.T) (*sql.DB, ingest.Sink, shape.Source)
	}{
		{"duckdb", func(t *testing.T) (*sql.DB, ingest.Sink, shape.Source) {
			db, err := duckdb.OpenMemory(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db, duckdb.NewSink(db, derivedSink()), shape.Source{DB: db}
		}},
		{"postgres", func(t *testing.T) (*sql.DB, ingest.Sink, shape.Source) {
			db := pgtest.Open(t)
			src := shape.Source{DB: db, Snapshot: &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}}
			return db, postgres.NewSink(db, derivedSink()), src
		}},
	}
	questions := []string{
		"What is the status of dev-0007 as of 2026-01-06T12:00:00Z?",
		"What's the battery level of dev-0007 at 2026-01-06T12:00:00Z?",
		"How many devices have condition NEEDS_ATTENTION as of 2026-01-06T12:00:00Z?",
		"Which devices are in status RUNNING in zone-02 as of 2026-01-06T12:00:00Z?",
		"How many RUNNING events were recorded in zone-02 in [2026-01-05T00:00:00Z, 2026-01-06T00:00:00Z)?",
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := t.Context()
			db, sink, src := b.open(t)
			cat, l := warehouseLayout(t)
			if _, err := ingest.Import(ctx, sink, l, ingest.NewJSONL("demo.jsonl", l, bytes.NewReader(ingesttest.DemoJSONL(t, 3000)))); err != nil {
				t.Fatal(err)
			}
			db.SetMaxOpenConns(1)
			e, err := engine.OpenCatalog(ctx, cat, src, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			for _, q := range questions {
				// Twice: the first run of a statement and a later one.
				for range 2 {
					qctx, cancel := context.WithTimeout(ctx, 20*time.Second)
					a := e.Pipeline.Ask(qctx, q)
					cancel()
					if a.Outcome() != answer.Answered {
						t.Fatalf("%q: outcome %s (%s), want answered", q, a.Outcome(), a.Reason())
					}
				}
			}
			p := tool.Proposal{Tool: shape.QueryMetric, Params: map[string]any{"metric": "availability", "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}}
			qctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			if a := e.Pipeline.Call(qctx, p); a.Outcome() != answer.Answered {
				t.Fatalf("availability: outcome %s (%s), want answered", a.Outcome(), a.Reason())
			}
		})
	}
}

func derivedSink() *ingest.SinkOptions {
	return &ingest.SinkOptions{AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
		return shape.Derive(ctx, tx, l.Dataset, l.Table, nil)
	}}
}
