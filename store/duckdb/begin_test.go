package duckdb_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
)

// TestBegin_CancelledLeavesNoTransaction cancels snapshots' contexts while
// they begin, at random moments around DuckDB's BEGIN, then begins and
// reads on every pooled connection. The driver runs BEGIN under the
// context: a cancellation that interrupted it after DuckDB had begun the
// transaction returned an error while the connection went back to the
// pool inside it, and every later snapshot on that connection failed with
// "cannot start a transaction within a transaction" (an eval under load
// saw whole self-consistency votes fail so).
func TestBegin_CancelledLeavesNoTransaction(t *testing.T) {
	ctx := t.Context()
	cat := ingesttest.WarehouseCatalog(t)
	l := ingesttest.WarehouseLayout(t)
	db, err := duckdb.OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(2)
	sk := duckdb.NewSink(db, nil)
	if _, err := ingest.Import(ctx, sk, l, ingest.NewJSONL("demo.jsonl", l, bytes.NewReader(ingesttest.DemoJSONL(t, 200)))); err != nil {
		t.Fatal(err)
	}
	e, err := shape.New(ctx, cat, shape.Source{DB: db}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ds := cat.Datasets[0].Name.Value
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		cctx, cancel := context.WithCancel(ctx)
		d := time.Duration(r.IntN(60)) * time.Microsecond
		go func() {
			for start := time.Now(); time.Since(start) < d; {
			}
			cancel()
		}()
		if s, err := e.Begin(cctx); err == nil {
			s.DataVersion(cctx, ds)
			s.Close()
		}
		cancel()
	}
	for i := range 8 {
		s, err := e.Begin(ctx)
		if err != nil {
			t.Fatalf("begin %d after cancelled begins: %v", i, err)
		}
		if _, err := s.DataVersion(ctx, ds); err != nil {
			t.Fatalf("read %d after cancelled begins: %v", i, err)
		}
		s.Close()
	}
}
