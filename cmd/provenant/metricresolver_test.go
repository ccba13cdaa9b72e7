package main

import (
	"testing"
	"time"

	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/postgres"
)

// TestMetricResolver: the commands serve each database with its
// resolver's settings (from two whole hours of value rollups on both,
// however few the rows on PostgreSQL), and keep settings already made.
func TestMetricResolver(t *testing.T) {
	tests := []struct {
		name       string
		onPostgres bool
		from       time.Duration
		rows       int
		wantFrom   time.Duration
		wantRows   int
	}{
		{"duckdb", false, 0, 0, duckdb.MetricResolveFrom, 0},
		{"postgres", true, 0, 0, postgres.MetricResolveFrom, postgres.MetricResolveRows},
		{"duckdb, set", false, time.Hour, 7, time.Hour, 7},
		{"postgres, set", true, time.Hour, 7, time.Hour, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, rows := metricResolver(tt.onPostgres, tt.from, tt.rows)
			if from != tt.wantFrom || rows != tt.wantRows {
				t.Errorf("metricResolver = %v, %d; want %v, %d", from, rows, tt.wantFrom, tt.wantRows)
			}
		})
	}
	if duckdb.MetricResolveFrom != 2*time.Hour || postgres.MetricResolveFrom != 2*time.Hour || postgres.MetricResolveRows != -1 {
		t.Errorf("settings %v, %v, %d; the README gives two hours on both, the rollups however few the rows on PostgreSQL",
			duckdb.MetricResolveFrom, postgres.MetricResolveFrom, postgres.MetricResolveRows)
	}
}
