package duckdb_test

import (
	"database/sql"
	"database/sql/driver"
	"testing"

	duckdbdriver "github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/shape/shapetest"
)

var duckBackend = shapetest.Backend{
	Name: "duckdb",
	Open: func(t *testing.T) (*sql.DB, *sql.TxOptions) {
		db, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db, nil
	},
}

// TestShapeContract runs the shape contract on an in-memory DuckDB.
func TestShapeContract(t *testing.T) { shapetest.Run(t, duckBackend) }

// TestShapeContract_Incremental: deriving after two imports gives what
// one import gives.
func TestShapeContract_Incremental(t *testing.T) { shapetest.RunIncremental(t, duckBackend) }
func TestShapeContract_LateRows(t *testing.T)    { shapetest.RunLateRows(t, duckBackend) }
func TestShapeContract_LateRollups(t *testing.T) { shapetest.RunLateRollups(t, duckBackend) }

// TestShapeContract_Formulations: DuckDB's set-based derivation gives
// the reference formulation's structures, row for row.
func TestShapeContract_Formulations(t *testing.T) { shapetest.RunFormulations(t, duckBackend) }

// TestShapeContract_Reimport: an engine follows an import that rebuilt
// the derived structures.
func TestShapeContract_Reimport(t *testing.T) { shapetest.RunReimport(t, duckBackend) }

// TestShapeDeadline: every read takes the caller's context.
func TestShapeDeadline(t *testing.T) { shapetest.RunDeadline(t, duckBackend) }

// TestShapeAuto: DuckDB is read with the aggregate formulation.
func TestShapeAuto(t *testing.T) {
	db, _ := duckBackend.Open(t)
	if got := shape.Auto(db); got != shape.LatestAggregate {
		t.Errorf("Auto = %s, want %s", got, shape.LatestAggregate)
	}
}

// TestShapeWindowDigests: on DuckDB, a window answered from the per-hour
// window digests has the count, digest and first keys of a full
// recomputation over the rows, with imports between its calls.
func TestShapeWindowDigests(t *testing.T) { shapetest.RunWindowDigests(t, duckBackend) }

// TestShapeWindowEdges: on DuckDB, a window counts [start, end) exactly
// and the resolver refuses a row a second outside it.
func TestShapeWindowEdges(t *testing.T) { shapetest.RunWindowEdges(t, duckBackend) }

// TestShapeMemoryDuplicateKeys: rows held in memory from DuckDB, a key two
// rows share backs nothing.
func TestShapeMemoryDuplicateKeys(t *testing.T) { shapetest.RunMemoryDuplicateKeys(t, duckBackend) }

// TestShapeMemoryStoreWideDays: rows held in memory from DuckDB, store-wide
// questions at instants around the resolver's days.
func TestShapeMemoryStoreWideDays(t *testing.T) { shapetest.RunMemoryStoreWideDays(t, duckBackend) }

// TestShapeSQLTurns: with shape.Options.SQLTurns, calls answered by SQL
// on DuckDB take turns, as many at once as processors.
func TestShapeSQLTurns(t *testing.T) {
	shapetest.RunSQLTurns(t, func(t *testing.T) driver.Connector {
		c, err := duckdbdriver.NewConnector("", nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
}

// TestShapeContract_LateDigests: on DuckDB, an import of late rows adds
// them to the stored key digests, which equal one import's byte for byte
// (shapetest.RunLateDigests).
func TestShapeContract_LateDigests(t *testing.T) { shapetest.RunLateDigests(t, duckBackend) }
