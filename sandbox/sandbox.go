package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Layer is where a statement was stopped.
type Layer string

// The layers, in the order a statement meets them.
const (
	// LayerParse: DuckDB's parser refused the text or serialized no single
	// SELECT (DDL, DML, PRAGMA, SET, ATTACH, COPY, several statements, a
	// syntax error).
	LayerParse Layer = "parse"
	// LayerAllowlist: the syntax tree names a table, a function or a
	// construct outside the policy.
	LayerAllowlist Layer = "allowlist"
	// LayerBudget: the planner's estimate, the rows the query processed
	// or the size of its result is over a limit.
	LayerBudget Layer = "budget"
	// LayerSandbox: the worker failed to run an accepted statement (an
	// error from DuckDB, the memory limit, the wall-clock safety net).
	LayerSandbox Layer = "sandbox"
)

// Class is the failure class of a stopped statement.
type Class string

// The failure classes.
const (
	// ClassPermissionDenied: the statement asks for something the policy
	// forbids (a write, a table or function outside the allowlist, a file
	// or URL reader, a setting).
	ClassPermissionDenied Class = "permission_denied"
	// ClassSchemaViolation: the statement is not well formed SQL, or is
	// well formed but does not fit the tables (an unknown column).
	ClassSchemaViolation Class = "schema_violation"
	// ClassBudgetExceeded: a limit stopped it (rows processed, result
	// size, memory, wall clock).
	ClassBudgetExceeded Class = "budget_exceeded"
	// ClassSQLError: DuckDB failed to run it (a division by zero, a bad
	// cast).
	ClassSQLError Class = "sql_error"
)

// Outcome is what became of a statement.
type Outcome string

// The outcomes.
const (
	OutcomeOK       Outcome = "ok"
	OutcomeRejected Outcome = "rejected" // stopped by parse, allowlist or budget
	OutcomeError    Outcome = "error"    // stopped in the sandbox
)

// ErrRejected matches every *Rejection.
var ErrRejected = errors.New("statement rejected")

// NoPosition is a Rejection's Position when the parser gave none.
const NoPosition = -1

// Rejection is a statement stopped by the sandbox. Its message names the
// layer, the class, the kind of thing refused and its byte offset in the
// statement: never the statement's text or a name from it.
type Rejection struct {
	Layer Layer
	Class Class
	// Kind is what was refused: "statement", "syntax", "table",
	// "qualified_name", "function", "table_function", "construct",
	// "rows_processed", "result_rows", "result_bytes", "memory",
	// "wall_clock", "execution".
	Kind string
	// Position is the byte offset in the statement of the refused part,
	// or NoPosition.
	Position int
}

func (r *Rejection) Error() string {
	msg := fmt.Sprintf("sql %s: %s at layer %s", r.Class, strings.ReplaceAll(r.Kind, "_", " "), r.Layer)
	if r.Position != NoPosition {
		msg += fmt.Sprintf(" (byte %d)", r.Position)
	}
	return msg
}

// Is makes every *Rejection match ErrRejected.
func (r *Rejection) Is(target error) bool { return target == ErrRejected }

// Outcome is the outcome of a statement stopped by r.
func (r *Rejection) Outcome() Outcome {
	if r.Layer == LayerSandbox {
		return OutcomeError
	}
	return OutcomeRejected
}

func reject(l Layer, c Class, kind string, pos int) *Rejection {
	return &Rejection{Layer: l, Class: c, Kind: kind, Position: pos}
}

// Limits bound one statement's run in the sandbox.
type Limits struct {
	// MaxSQLBytes is the longest statement accepted.
	MaxSQLBytes int `json:"max_sql_bytes"`
	// RowBudget is the most rows the query may process: the sum over the
	// plan's operators of the rows each produced (table scans included),
	// as DuckDB's profiler counts them. It is checked before execution
	// against the planner's estimates and after it against the count;
	// both are deterministic for a given snapshot.
	RowBudget int64 `json:"row_budget"`
	// MaxRows and MaxBytes bound the result: its rows, and the bytes of
	// its rows encoded as JSON.
	MaxRows  int `json:"max_rows"`
	MaxBytes int `json:"max_bytes"`
	// MemoryBytes is DuckDB's memory limit in the worker.
	MemoryBytes int64 `json:"memory_bytes"`
	// WallClock is the safety net: the worker is killed after it. It is
	// never the budget: a statement it stops is an error, not a verdict.
	WallClock time.Duration `json:"wall_clock"`
}

// DefaultLimits returns the limits used when none are configured.
func DefaultLimits() Limits {
	return Limits{
		MaxSQLBytes: 64 << 10,
		RowBudget:   10_000_000,
		MaxRows:     1000,
		MaxBytes:    1 << 20,
		MemoryBytes: 256 << 20,
		WallClock:   10 * time.Second,
	}
}

// Validate reports the first limit out of range, by its field name.
func (l Limits) Validate() error {
	switch {
	case l.MaxSQLBytes <= 0:
		return errors.New("validate limits: max_sql_bytes must be positive")
	case l.RowBudget <= 0:
		return errors.New("validate limits: row_budget must be positive")
	case l.MaxRows <= 0:
		return errors.New("validate limits: max_rows must be positive")
	case l.MaxBytes <= 0:
		return errors.New("validate limits: max_bytes must be positive")
	case l.MemoryBytes < 16<<20:
		return errors.New("validate limits: memory_bytes must be at least 16 MiB")
	case l.WallClock <= 0:
		return errors.New("validate limits: wall_clock must be positive")
	}
	return nil
}

// Result is what a statement gave back: its outcome and, when it ran,
// its columns and rows. Rejection is set unless the outcome is ok.
type Result struct {
	Outcome   Outcome
	Rejection *Rejection
	Columns   []string
	// Types are the columns' DuckDB type names ("BIGINT", "DOUBLE",
	// "DECIMAL(18,3)", "VARCHAR", "TIMESTAMP"), one per column.
	Types []string
	// Rows hold JSON values: a number, a string (text, an instant in
	// RFC 3339, a HUGEINT or a DECIMAL written in decimal), a boolean,
	// null, or a list or object.
	Rows [][]any
	// RowsProcessed is the profiler's count of rows the query processed
	// (zero unless it ran).
	RowsProcessed int64
}
