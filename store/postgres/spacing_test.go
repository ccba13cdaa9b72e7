package postgres_test

import (
	"testing"

	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestDerive_DefaultSpacing: with no spacing given, checkpoints on
// PostgreSQL fall every as many rows as there are series, at least
// shape.MinEvery (DuckDB, twice that: store/duckdb's test), on a first
// import and on an append of later rows.
func TestDerive_DefaultSpacing(t *testing.T) {
	const n = 40000
	db := pgtest.Open(t)
	series, got := ingesttest.ImportInTwo(t, db, postgres.NewSink(db, shape.ImportOptions(nil)), n, 3000)
	every := max(shape.MinEvery, series)
	if every == shape.MinEvery {
		t.Fatalf("%d series: the test does not reach past the minimum spacing", series)
	}
	// Distinct checkpoint times: rows sharing a time share a checkpoint.
	if upper := n / every; got > upper || got < upper-1 {
		t.Errorf("%d checkpoints over %d rows of %d series, want %d (one every %d rows)", got, n, series, upper, every)
	}
}
