package postgres_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/autonomy/autonomytest"
	"github.com/provenant/provenant/autonomy/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// BenchmarkBegin is a request's gate step alone: Store.Begin of a
// session that holds no grant (the one-row clock read and ticked before
// the clock's sequence; after it, one statement), from 1 client and
// from 16 at once on one store (one serve process's pool). calls/s is
// the throughput. Needs PostgreSQL (store/postgres/pgtest).
//
//	CI=true go test -run XXX -bench Begin -benchtime 2000x -count 6 ./autonomy/postgres/
func BenchmarkBegin(b *testing.B) {
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			dsn, schema := pgtest.SchemaNamed(b)
			l, err := postgres.Open(b.Context(), dsn, &postgres.Options{Schema: schema})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { l.Close() })
			s, err := autonomy.NewLedgerStore(l, autonomytest.Tools, &autonomy.GateOptions{Authority: autonomy.NewAuthority()}, nil)
			if err != nil {
				b.Fatal(err)
			}
			begin := func() {
				if _, err := s.Begin(b.Context(), "local"); err != nil {
					b.Error(err)
				}
			}
			if clients == 1 {
				for b.Loop() {
					begin()
				}
			} else {
				b.SetParallelism((clients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						begin()
					}
				})
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
