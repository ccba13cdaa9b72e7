package postgres

import (
	"context"
	"database/sql"
)

// SetGenericStatement replaces the statement a Pipeliner sends for
// generic plans, so that a test can play a database without
// plan_cache_mode.
func SetGenericStatement(p *Pipeliner, stmt string) { p.generic = stmt }

// GenericPlansOff reports whether p has stopped asking for generic plans.
func GenericPlansOff(p *Pipeliner) bool { return p.noGeneric.Load() }

// OpenPointPoolWith is OpenPointPool with the connection settings params
// (nil: the point pool's own), so that a test can play a database that
// refuses one.
func OpenPointPoolWith(ctx context.Context, dsn string, conns int, params map[string]string) (*sql.DB, error) {
	if params == nil {
		params = pointParams
	}
	return openPointPool(ctx, dsn, conns, params)
}
