package duckdb_test

import (
	"database/sql"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/metric/metrictest"
	"github.com/provenant/provenant/store/duckdb"
)

var duckMetrics = metrictest.Backend{
	Name: "duckdb",
	Open: func(t *testing.T) *sql.DB {
		db, err := duckdb.OpenMemory(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	},
	Sink: func(db *sql.DB) ingest.Sink { return duckdb.NewSink(db, nil) },
}

// TestMetricFixtures: every example metric, compiled and run on DuckDB and
// re-derived in Go, equals its fixture's hand-computed value.
func TestMetricFixtures(t *testing.T) { metrictest.RunFixtures(t, duckMetrics) }

// TestMetricProperty: on random datasets and requests, the compiled SQL
// run on DuckDB equals the Go re-derivation.
func TestMetricProperty(t *testing.T) { metrictest.RunProperty(t, duckMetrics) }

// TestMetricEveryShape: every metric by every allowed dimension at every
// allowed grain runs on DuckDB and agrees with its re-derivation.
func TestMetricEveryShape(t *testing.T) { metrictest.RunEveryShape(t, duckMetrics) }

// TestMetricRollupKeys: on DuckDB, a provenance summed from per-hour key
// digests equals the re-derived keys' count, lthash and first keys.
func TestMetricRollupKeys(t *testing.T) { metrictest.RunRollupKeys(t, duckMetrics) }

// TestMetricRollupSlices: a window's edge hours summed from the slices
// (metrictest.RunRollupSlices).
func TestMetricRollupSlices(t *testing.T) { metrictest.RunRollupSlices(t, duckMetrics) }

// TestMetricRollupValues: on DuckDB, a metric compiled from per-hour value
// rollups and the edge rows equals the compiled query without them, byte
// for byte, RederiveValues equals RederiveSQL, and an altered rollup is
// caught by the spot check and rebuilt by the next import.
func TestMetricRollupValues(t *testing.T) { metrictest.RunRollupValues(t, duckMetrics) }

// TestMetricRollupKeys_PastEnd: on DuckDB, a row past a window's end
// does not bound its first keys (metrictest.RunRollupKeysPastEnd).
func TestMetricRollupKeys_PastEnd(t *testing.T) { metrictest.RunRollupKeysPastEnd(t, duckMetrics) }

// TestMetricRollupKeys_Before: the rows before a window bound its first
// keys when they alone hold enough (metrictest.RunRollupKeysBefore).
func TestMetricRollupKeys_Before(t *testing.T) { metrictest.RunRollupKeysBefore(t, duckMetrics) }

// TestMetricTies: rows sharing a series and a time, re-derived over their
// validity intervals (metrictest.RunTies).
func TestMetricTies(t *testing.T) { metrictest.RunTies(t, duckMetrics) }

// TestValueSlicesDefault: DuckDB keeps no value rollups by slice unless
// asked (metrictest.RunValueSlicesDefault).
func TestValueSlicesDefault(t *testing.T) { metrictest.RunValueSlicesDefault(t, duckMetrics, false) }

// TestValueSlicesLater: value slices built at the import that makes a
// table dense equal those of one import (metrictest.RunValueSlicesLater).
func TestValueSlicesLater(t *testing.T) { metrictest.RunValueSlicesLater(t, duckMetrics) }

// TestRollupValuesBuilt: every hour of the value rollups is checked
// against the rows when built (metrictest.RunRollupValuesBuilt).
func TestRollupValuesBuilt(t *testing.T) { metrictest.RunRollupValuesBuilt(t, duckMetrics) }
