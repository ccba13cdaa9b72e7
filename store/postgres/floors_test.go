package postgres_test

import (
	"bytes"
	"context"
	"database/sql"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestKeyFloors_Kept: on PostgreSQL the metric key floors (the
// executor's and the resolver's, metric.Rollup.Floors and CheckFloors)
// are kept once per data version when the engine's Pipeliner orders text
// bytewise on demand (shape.KeyOrderer, as serve's does), with the
// Pipeliner's KeyOrder in the metric options; without a Pipeliner none
// are kept (a database's own MIN may follow another collation) and the
// floors are never read.
func TestKeyFloors_Kept(t *testing.T) {
	ctx := t.Context()
	cat := ingesttest.WarehouseCatalog(t)
	l := ingesttest.WarehouseLayout(t)
	db := pgtest.Open(t)
	derive := &shape.DeriveOptions{RollupKeys: true, Catalog: cat}
	sk := postgres.NewSink(db, &ingest.SinkOptions{AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
		return shape.Derive(ctx, tx, l.Dataset, l.Table, derive)
	}})
	if _, err := ingest.Import(ctx, sk, l, ingest.NewJSONL("demo.jsonl", l, bytes.NewReader(ingesttest.DemoJSONL(t, 2000)))); err != nil {
		t.Fatal(err)
	}
	snapshot := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	tests := []struct {
		name     string
		pipeline shape.Pipeliner
		kept     bool
	}{
		{"serve's Pipeliner", postgres.NewPipeliner(db, nil).WithoutSQLDigest(), true},
		{"no Pipeliner", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := shape.New(ctx, cat, shape.Source{DB: db, Snapshot: snapshot, Pipeline: tt.pipeline}, &shape.Options{MetricRollups: true})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			reads := 0
			read := func(context.Context, metric.Querier, string) (*metric.KeyFloors, error) {
				reads++
				return &metric.KeyFloors{Groups: [][]*string{{}}, Least: [][]string{nil}}, nil
			}
			for range 2 {
				s, err := e.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				q, o, err := s.MetricQuerier(ctx)
				if err != nil {
					s.Close()
					t.Fatal(err)
				}
				if (o.KeyOrder != nil) != tt.kept {
					t.Errorf("KeyOrder set %t, want %t", o.KeyOrder != nil, tt.kept)
				}
				r := o.Rollups["status_events"]
				for _, k := range []metric.FloorKeeper{r.Floors, r.CheckFloors} {
					f, err := k.KeyFloors(ctx, q, read)
					if err != nil {
						t.Error(err)
					}
					if (f != nil) != tt.kept {
						t.Errorf("floors given %t, want %t", f != nil, tt.kept)
					}
				}
				s.Close()
			}
			if want := map[bool]int{true: 2, false: 0}[tt.kept]; reads != want {
				t.Errorf("%d reads of the floors over two snapshots, want %d (each keeper's once)", reads, want)
			}
		})
	}
}
