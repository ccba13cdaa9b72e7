package postgres_test

import (
	"testing"

	"github.com/provenant/provenant/internal/govchild"
	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/register/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// benchStores opens n handles on one fresh schema.
func benchStores(b *testing.B, n int) []register.Store {
	b.Helper()
	dsn, schema := pgtest.SchemaNamed(b)
	var out []register.Store
	for range n {
		s, err := postgres.Open(b.Context(), dsn, &postgres.Options{Schema: schema})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		out = append(out, s)
	}
	return out
}

// BenchmarkRecordPostgresAppend: one writer's committed appends.
func BenchmarkRecordPostgresAppend(b *testing.B) { govchild.BenchAppendRecords(b, benchStores(b, 1)) }

// BenchmarkRecordPostgresAppend4: four writers on one register, each
// with its own connection pool, catching up when the head moves.
func BenchmarkRecordPostgresAppend4(b *testing.B) { govchild.BenchAppendRecords(b, benchStores(b, 4)) }

// BenchmarkRecordPostgresVerify: register.Verify over 1,000 records.
func BenchmarkRecordPostgresVerify(b *testing.B) {
	govchild.BenchVerifyRecords(b, benchStores(b, 1)[0])
}
