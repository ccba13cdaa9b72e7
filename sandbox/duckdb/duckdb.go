// Package duckdb is the DuckDB side of package sandbox: the validator
// that asks DuckDB's own parser for a statement's syntax tree
// (json_serialize_sql) and judges it with sandbox.Check, the snapshot of
// the allowlisted tables a worker reads, and the worker itself: a separate
// OS process (the same binary re-executed as a hidden subcommand) that
// runs one statement on a read-only, locked-down connection and answers
// over standard output, so that a runaway query cannot take the server
// down.
//
// The worker's connection: the snapshot file opened read-only; external
// access off (no file, URL, ATTACH, COPY, INSTALL or LOAD), extension
// autoinstall and autoload off, one thread (a parallel float sum depends
// on the order), a memory limit; profiling on, then the configuration
// locked before the statement runs. The statement is validated again
// there, its plan's estimated rows are checked against the row budget,
// it runs, and the rows its operators produced (DuckDB's profiler) are
// checked after; its result is bounded in rows and bytes. The parent
// kills the worker at the wall-clock safety net.
package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/sandbox"
)

// lockedConfig is the configuration every sandbox connection opens with.
func lockedConfig(memory int64) string {
	return "enable_external_access=false&autoinstall_known_extensions=false&autoload_known_extensions=false" +
		"&allow_community_extensions=false&threads=1&memory_limit=" + strconv.FormatInt(memory>>20, 10) + "MB"
}

// Validator judges statements with DuckDB's parser and sandbox.Check. It
// holds an in-memory DuckDB with no tables and no external access: the
// parser needs none.
type Validator struct {
	db     *sql.DB
	policy *sandbox.Policy
	limits sandbox.Limits
}

// NewValidator opens a validator for policy under the options' limits.
func NewValidator(ctx context.Context, policy *sandbox.Policy, opts *Options) (*Validator, error) {
	limits := withDefaults(opts).Limits
	if err := limits.Validate(); err != nil {
		return nil, err
	}
	c, err := duckdb.NewConnector("?"+lockedConfig(64<<20), nil)
	if err != nil {
		return nil, fmt.Errorf("open validator: %w", err)
	}
	db := sql.OpenDB(c)
	if _, err := db.ExecContext(ctx, "SET lock_configuration = true"); err != nil {
		db.Close()
		return nil, fmt.Errorf("open validator: %w", err)
	}
	return &Validator{db: db, policy: policy, limits: limits}, nil
}

// Close releases the validator's database.
func (v *Validator) Close() error { return v.db.Close() }

// Validate returns nil when the statement may run, else a
// *sandbox.Rejection at layer parse or allowlist.
func (v *Validator) Validate(ctx context.Context, stmt string) error {
	return validate(ctx, v.db, v.policy, v.limits, stmt)
}

// queryer is what validate needs of a connection or a database.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// serializeSQL asks DuckDB's parser for the statement's syntax tree as
// JSON text.
const serializeSQL = "SELECT CAST(json_serialize_sql(CAST(? AS VARCHAR)) AS VARCHAR)"

func validate(ctx context.Context, q queryer, p *sandbox.Policy, l sandbox.Limits, stmt string) error {
	if err := sandbox.CheckText(stmt, l.MaxSQLBytes); err != nil {
		return err
	}
	var ast string
	if err := q.QueryRowContext(ctx, serializeSQL, stmt).Scan(&ast); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("validate statement: %w", ctx.Err())
		}
		// The serializer itself failed: treat as unparseable.
		return &sandbox.Rejection{Layer: sandbox.LayerParse, Class: sandbox.ClassSchemaViolation, Kind: "syntax", Position: sandbox.NoPosition}
	}
	return sandbox.Check([]byte(ast), p)
}

// quoteIdent quotes an identifier for DuckDB.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteLiteral quotes a string literal for DuckDB.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
