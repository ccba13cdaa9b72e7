package postgres_test

import (
	"testing"

	"github.com/provenant/provenant/eventlog"

	"github.com/provenant/provenant/eventlog/postgres"
	"github.com/provenant/provenant/internal/govchild"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

func benchStore(b *testing.B) *postgres.Store {
	b.Helper()
	dsn, schema := pgtest.SchemaNamed(b)
	s, err := postgres.Open(b.Context(), dsn, &postgres.Options{Schema: schema})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkEventPostgresAppend: one writer's committed appends.
func BenchmarkEventPostgresAppend(b *testing.B) { govchild.BenchAppendEvents(b, benchStore(b), 1) }

// BenchmarkEventPostgresAppend4: four writers at once, each its own run.
func BenchmarkEventPostgresAppend4(b *testing.B) { govchild.BenchAppendEvents(b, benchStore(b), 4) }

// BenchmarkEventPostgresVerify: read back, export and verify 1,000 events.
func BenchmarkEventPostgresVerify(b *testing.B) { govchild.BenchVerifyEvents(b, benchStore(b)) }

// BenchmarkEventPostgresRequest: requests of 9 events through one Log,
// waiting for each event (mode=append) or once per request
// (mode=submit), from 1 and 4 writers.
func BenchmarkEventPostgresRequest(b *testing.B) {
	govchild.BenchRequestModes(b, func(b *testing.B) eventlog.Store { return benchStore(b) })
}
