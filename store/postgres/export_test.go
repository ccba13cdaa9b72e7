package postgres

import (
	"context"
)

// SetGenericStatement replaces the statement a Pipeliner sends for
// generic plans, so that a test can play a database without
// plan_cache_mode.
func SetGenericStatement(p *Pipeliner, stmt string) { p.generic = stmt }

// GenericPlansOff reports whether p has stopped asking for generic plans.
func GenericPlansOff(p *Pipeliner) bool { return p.noGeneric.Load() }

// OpenSnapshotPoolsWith is OpenSnapshotPools with the connection
// settings of each pool (nil: the pool's own), so that a test can play a
// database that refuses one.
func OpenSnapshotPoolsWith(ctx context.Context, dsn string, conns int, others, points map[string]string) (*SnapshotPools, error) {
	if others == nil {
		others = snapshotParams
	}
	if points == nil {
		points = pointParams
	}
	return openSnapshotPools(ctx, dsn, conns, others, points)
}
