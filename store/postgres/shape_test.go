package postgres_test

import (
	"database/sql"
	"testing"

	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/shape/shapetest"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

var pgBackend = shapetest.Backend{
	Name: "postgres",
	Open: func(t *testing.T) (*sql.DB, *sql.TxOptions) {
		return pgtest.Open(t), &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	},
	Pipeline: func(db *sql.DB) shape.Pipeliner { return postgres.NewPipeliner(db, nil) },
}

// pgShipped is pgBackend as the engine serves PostgreSQL: pipelined, a
// window's keys shipped to Go (WithoutSQLDigest) rather than counted and
// digested in SQL, so that a window's resolver is its one read.
var pgShipped = shapetest.Backend{
	Name:     "postgres",
	Open:     pgBackend.Open,
	Pipeline: func(db *sql.DB) shape.Pipeliner { return postgres.NewPipeliner(db, nil).WithoutSQLDigest() },
}

// TestShapeContract_Incremental: deriving after two imports gives what
// one import gives.
func TestShapeContract_Incremental(t *testing.T) { shapetest.RunIncremental(t, pgBackend) }
func TestShapeContract_LateRows(t *testing.T)    { shapetest.RunLateRows(t, pgBackend) }
func TestShapeContract_LateRollups(t *testing.T) { shapetest.RunLateRollups(t, pgBackend) }

// TestShapeContract runs the shape contract on PostgreSQL, in a schema of
// its own, with snapshots at REPEATABLE READ.
func TestShapeContract(t *testing.T) {
	shapetest.Run(t, pgBackend)
}

// TestShapeContract_KeysShipped runs the shape contract as the engine
// serves PostgreSQL (pgShipped).
func TestShapeContract_KeysShipped(t *testing.T) { shapetest.Run(t, pgShipped) }

// TestShapeContract_Reimport: an engine follows an import that rebuilt
// the derived structures.
func TestShapeContract_Reimport(t *testing.T) { shapetest.RunReimport(t, pgBackend) }

// TestShapeDeadline: every read takes the caller's context.
func TestShapeDeadline(t *testing.T) { shapetest.RunDeadline(t, pgBackend) }

// TestShapeAuto: PostgreSQL is read with the window formulation.
func TestShapeAuto(t *testing.T) {
	db, _ := pgBackend.Open(t)
	if got := shape.Auto(db); got != shape.LatestWindow {
		t.Errorf("Auto = %s, want %s", got, shape.LatestWindow)
	}
}

// TestShapeWindowDigests: on PostgreSQL, a window answered from the
// per-hour window digests has the count, digest and first keys of a full
// recomputation over the rows, with imports between its calls.
func TestShapeWindowDigests(t *testing.T) { shapetest.RunWindowDigests(t, pgBackend) }

// TestShapeWindowEdges: on PostgreSQL, a window counts [start, end)
// exactly and the resolver refuses a row a second outside it, pipelined.
func TestShapeWindowEdges(t *testing.T) { shapetest.RunWindowEdges(t, pgBackend) }

// TestShapeWindowEdges_KeysShipped is TestShapeWindowEdges as the engine
// serves PostgreSQL (pgShipped).
func TestShapeWindowEdges_KeysShipped(t *testing.T) { shapetest.RunWindowEdges(t, pgShipped) }

// TestShapeMemoryDuplicateKeys: rows held in memory from PostgreSQL, a key
// two rows share backs nothing.
func TestShapeMemoryDuplicateKeys(t *testing.T) { shapetest.RunMemoryDuplicateKeys(t, pgBackend) }

// TestShapeMemoryStoreWideDays: rows held in memory from PostgreSQL,
// store-wide questions at instants around the resolver's days.
func TestShapeMemoryStoreWideDays(t *testing.T) { shapetest.RunMemoryStoreWideDays(t, pgBackend) }

// TestShapeRebuildBeneathSnapshot: a snapshot open while an import that
// rebuilds the derived structures commits still answers from its own
// data, verified.
func TestShapeRebuildBeneathSnapshot(t *testing.T) {
	shapetest.RunRebuildBeneathSnapshot(t, shapetest.Backend{Name: "postgres", Open: pgBackend.Open})
}

// TestShapeLateBeneathSnapshot: the same for an import of late rows,
// derived in place.
func TestShapeLateBeneathSnapshot(t *testing.T) {
	shapetest.RunLateBeneathSnapshot(t, shapetest.Backend{Name: "postgres", Open: pgBackend.Open})
}

// TestShapeContract_LateDigests: on PostgreSQL, an import of late rows
// adds them to the stored key digests, which equal one import's byte for
// byte (shapetest.RunLateDigests).
func TestShapeContract_LateDigests(t *testing.T) { shapetest.RunLateDigests(t, pgBackend) }
