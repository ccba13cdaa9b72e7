package postgres_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/metric/metrictest"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

var pgMetrics = metrictest.Backend{
	Name: "postgres",
	Open: func(t *testing.T) *sql.DB { return pgtest.Open(t) },
	Sink: func(db *sql.DB) ingest.Sink { return postgres.NewSink(db, nil) },
	// The engine's own: the Pipeliner's (shape.KeyOrderer).
	KeyOrder: (&postgres.Pipeliner{}).KeyOrder,
	// ICU's American English: lower case before upper, so that MIN is
	// not the bytewise least key.
	NonBytewise: func(ctx context.Context, db *sql.DB, table, column string) error {
		_, err := db.ExecContext(ctx, "ALTER TABLE "+ingest.Quote(table)+" ALTER COLUMN "+ingest.Quote(column)+` TYPE text COLLATE "en-US-x-icu"`)
		return err
	},
}

// TestMetricFloorsKeyOrder: on a key column in ICU's en-US order, the
// metric key floors read with the Pipeliner's KeyOrder are the bytewise
// least keys (metrictest.RunFloorsKeyOrder).
func TestMetricFloorsKeyOrder(t *testing.T) { metrictest.RunFloorsKeyOrder(t, pgMetrics) }

// TestMetricFixtures: every example metric, compiled and run on PostgreSQL
// and re-derived in Go, equals its fixture's hand-computed value. Skipped
// without PROVENANT_POSTGRES_DSN outside CI (pgtest).
func TestMetricFixtures(t *testing.T) { metrictest.RunFixtures(t, pgMetrics) }

// TestMetricProperty: on random datasets and requests, the compiled SQL
// run on PostgreSQL equals the Go re-derivation.
func TestMetricProperty(t *testing.T) { metrictest.RunProperty(t, pgMetrics) }

// TestMetricEveryShape: every metric by every allowed dimension at every
// allowed grain runs on PostgreSQL and agrees with its re-derivation.
func TestMetricEveryShape(t *testing.T) { metrictest.RunEveryShape(t, pgMetrics) }

// TestMetricRollupKeys: on PostgreSQL, a provenance summed from per-hour
// key digests equals the re-derived keys' count, lthash and first keys.
func TestMetricRollupKeys(t *testing.T) { metrictest.RunRollupKeys(t, pgMetrics) }

// TestMetricRollupSlices: a window's edge hours summed from the slices
// (metrictest.RunRollupSlices).
func TestMetricRollupSlices(t *testing.T) { metrictest.RunRollupSlices(t, pgMetrics) }

// TestMetricRollupValues: on PostgreSQL, a metric compiled from per-hour
// value rollups and the edge rows equals the compiled query without them,
// byte for byte, RederiveValues equals RederiveSQL, and an altered rollup
// is caught by the spot check and rebuilt by the next import.
func TestMetricRollupValues(t *testing.T) { metrictest.RunRollupValues(t, pgMetrics) }

// TestMetricEdges: on PostgreSQL, the compiled query bounded by the
// checkpoints and the re-derivation bounded by the checkpoint before (the edges'
// reads, metric.Options.Edges) give exactly the tables and keys of the
// unbounded ones.
func TestMetricEdges(t *testing.T) { metrictest.RunEdges(t, pgMetrics) }

// TestMetricEdgeCases: on PostgreSQL, the edge bounds at their boundaries
// (a window starting at a checkpoint's row, whose previous row's validity
// ends at the start; a window starting between rows) give the
// hand-computed values.
func TestMetricEdgeCases(t *testing.T) { metrictest.RunEdgeCases(t, pgMetrics) }

// TestMetricRollupKeys_PastEnd: on PostgreSQL, a row past a window's end
// does not bound its first keys (metrictest.RunRollupKeysPastEnd).
func TestMetricRollupKeys_PastEnd(t *testing.T) { metrictest.RunRollupKeysPastEnd(t, pgMetrics) }

// TestMetricRollupKeys_Before: the rows before a window bound its first
// keys when they alone hold enough (metrictest.RunRollupKeysBefore).
func TestMetricRollupKeys_Before(t *testing.T) { metrictest.RunRollupKeysBefore(t, pgMetrics) }

// TestMetricTies: rows sharing a series and a time, re-derived over their
// validity intervals (metrictest.RunTies).
func TestMetricTies(t *testing.T) { metrictest.RunTies(t, pgMetrics) }

// TestValueSlicesDefault: PostgreSQL keeps the value rollups by slice once
// the rows are dense enough (metrictest.RunValueSlicesDefault).
func TestValueSlicesDefault(t *testing.T) { metrictest.RunValueSlicesDefault(t, pgMetrics, true) }

// TestValueSlicesLater: value slices built at the import that makes a
// table dense equal those of one import (metrictest.RunValueSlicesLater).
func TestValueSlicesLater(t *testing.T) { metrictest.RunValueSlicesLater(t, pgMetrics) }

// TestMetricSecondsOnce: PostgreSQL plans every re-derivation statement
// to compute a row's seconds inside the window once
// (metrictest.RunSecondsOnce; the derived table computing them is fenced
// with OFFSET 0, without which its expression was written in at each of
// its references, ten times in a week's statement).
func TestMetricSecondsOnce(t *testing.T) {
	metrictest.RunSecondsOnce(t, pgMetrics, func(ctx context.Context, db *sql.DB, query string, args []any) (string, error) {
		rows, err := db.QueryContext(ctx, "EXPLAIN (VERBOSE) "+query, args...)
		if err != nil {
			return "", err
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				return "", err
			}
			b.WriteString(line + "\n")
		}
		return b.String(), rows.Err()
	})
}

// TestRollupValuesBuilt: every hour of the value rollups is checked
// against the rows when built (metrictest.RunRollupValuesBuilt).
func TestRollupValuesBuilt(t *testing.T) { metrictest.RunRollupValuesBuilt(t, pgMetrics) }
