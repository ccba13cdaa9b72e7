package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/repair"
	"github.com/provenant/provenant/sandbox"
	"github.com/provenant/provenant/tool"
)

// SQLRunner runs one free SQL statement in the sandbox: validated by
// DuckDB's parser and the sandbox policy, then executed by a worker
// process on a snapshot of the allowlisted tables, never in this process.
// Each Run takes a worker of its own (sandbox/duckdb's Runner: one
// statement per worker, which then exits), so a second Run of a statement
// is a fresh execution. The error is the runner's own failure, never the
// statement's: what became of the statement is in the result.
type SQLRunner interface {
	Run(ctx context.Context, stmt string) (sandbox.Result, error)
}

// FreeSQL configures free SQL: the tool whose calls run in the sandbox
// (query_sql, on the menu only when the catalog opts in) and the runner.
type FreeSQL struct {
	// Tool is the free SQL tool's name; its one Statement parameter is
	// the statement.
	Tool string
	// Runner runs statements in the sandbox.
	Runner SQLRunner
	// Tables are the tables the runner's snapshot holds (the allowlist):
	// what an answer's provenance says the statement could read.
	Tables []string
}

// StatementFailure is an executor's error for a free SQL statement that
// did not give a table: the sandbox stopped it, or it returned no row.
// The pipeline turns it into a rejection with its class; it never holds
// the statement's text.
type StatementFailure struct {
	Class answer.ReasonKind // one of answer.StatementRejectKinds
	// Rejection is the sandbox's, nil for an empty result.
	Rejection *sandbox.Rejection
	// SQLHash is the statement's SHA-256 in hex, for the log.
	SQLHash string
}

func (f *StatementFailure) Error() string {
	if f.Rejection == nil {
		return "run statement: " + string(f.Class)
	}
	return "run statement: " + f.Rejection.Error()
}

// detail is the rejection's text for a caller: what was refused and
// where, never the statement.
func (f *StatementFailure) detail() string {
	if f.Rejection == nil {
		return "the statement returned no row"
	}
	r := f.Rejection
	return repair.StatementDetail(r.Kind, string(r.Layer), r.Position)
}

// statementRejection turns an executor's StatementFailure into the
// answer to give and records its class and the statement's hash; ok is
// false for any other error.
func statementRejection(err error, c tool.Call, rec *Record) (answer.Answer, bool) {
	f, ok := errors.AsType[*StatementFailure](err)
	if !ok {
		return answer.Answer{}, false
	}
	rec.FailureClass = string(f.Class)
	rec.ErrorDetail = "sql_sha256=" + f.SQLHash + " " + f.Error()
	return answer.RejectStatement(c.Tool(), f.Class, f.detail()), true
}

// classOf maps a sandbox failure class to the rejection's reason kind.
func classOf(c sandbox.Class) answer.ReasonKind {
	switch c {
	case sandbox.ClassPermissionDenied:
		return answer.ReasonPermissionDenied
	case sandbox.ClassSchemaViolation:
		return answer.ReasonSchemaViolation
	case sandbox.ClassBudgetExceeded:
		return answer.ReasonBudgetExceeded
	}
	return answer.ReasonSQLError
}

// freeSQL is the executor, resolver and pinner of a pipeline with free
// SQL: calls of the free SQL tool go to the sandbox, every other call to
// the wrapped executor and resolver.
type freeSQL struct {
	cfg  FreeSQL
	exec Executor
	res  Resolver
}

var (
	_ Executor = (*freeSQL)(nil)
	_ Resolver = (*freeSQL)(nil)
	_ Pinner   = (*freeSQL)(nil)
)

// withFreeSQL wraps exec and res so that the free SQL tool's calls run in
// the sandbox.
func withFreeSQL(cfg FreeSQL, exec Executor, res Resolver) *freeSQL {
	cfg.Tables = slices.Clone(cfg.Tables)
	return &freeSQL{cfg: cfg, exec: exec, res: res}
}

// Pin pins the wrapped executor's snapshot, when it reads a database; the
// sandbox reads its own snapshot.
func (f *freeSQL) Pin(ctx context.Context) (context.Context, func()) {
	if p, ok := f.exec.(Pinner); ok {
		return p.Pin(ctx)
	}
	return ctx, func() {}
}

// statement returns the call's statement: the text of its one Statement
// parameter.
func statement(c tool.Call) string {
	for _, q := range c.Def().Params {
		if q.Kind == tool.Statement {
			return c.Arg(q.Name)
		}
	}
	return ""
}

// Execute runs a free SQL call in the sandbox and returns its table,
// resting on the statement's provenance; any other call goes to the
// wrapped executor. A statement the sandbox stops, or one that returns no
// row, is a *StatementFailure.
func (f *freeSQL) Execute(ctx context.Context, c tool.Call) (fact.Result, error) {
	if c.Tool() != f.cfg.Tool {
		return f.exec.Execute(ctx, c)
	}
	stmt := statement(c)
	hash := statementHash(stmt)
	res, err := f.cfg.Runner.Run(ctx, stmt)
	if err != nil {
		return fact.Result{}, fmt.Errorf("run statement %s: %w", hash, err)
	}
	if res.Outcome != sandbox.OutcomeOK {
		rej := res.Rejection
		if rej == nil {
			rej = &sandbox.Rejection{Layer: sandbox.LayerSandbox, Class: sandbox.ClassSQLError, Kind: "execution", Position: sandbox.NoPosition}
		}
		return fact.Result{}, &StatementFailure{Class: classOf(rej.Class), Rejection: rej, SQLHash: hash}
	}
	if len(res.Rows) == 0 {
		return fact.Result{}, &StatementFailure{Class: answer.ReasonEmptyResult, SQLHash: hash}
	}
	t, err := StatementTable(res)
	if err != nil {
		rej := &sandbox.Rejection{Layer: sandbox.LayerSandbox, Class: sandbox.ClassSchemaViolation, Kind: "result_type", Position: sandbox.NoPosition}
		return fact.Result{}, &StatementFailure{Class: answer.ReasonSchemaViolation, Rejection: rej, SQLHash: hash}
	}
	prov, err := fact.Ran(fact.Statement{SQLHash: hash, Tables: f.cfg.Tables, RowsProcessed: res.RowsProcessed, ReExecuted: true})
	if err != nil {
		return fact.Result{}, fmt.Errorf("run statement %s: %w", hash, err)
	}
	return fact.NewResult(c.Tool(), c.Args(), fact.TableValue(t), prov)
}

// Resolve verifies a free SQL result by re-execution: the statement runs
// again in a fresh worker on the same snapshot, and the two tables must be
// equal cell for cell (one thread, so a float sum does not depend on the
// order). That is not an independent re-derivation (nothing but the
// statement says what its numbers mean), and the provenance says so. Any
// other call goes to the wrapped resolver.
func (f *freeSQL) Resolve(ctx context.Context, c tool.Call, r fact.Result) (fact.Verdict, error) {
	if c.Tool() != f.cfg.Tool {
		return f.res.Resolve(ctx, c, r)
	}
	stmt := statement(c)
	st, ran := r.Provenance.Statement()
	if !ran || st.SQLHash != statementHash(stmt) {
		return fact.Verdict{}, nil
	}
	again, err := f.cfg.Runner.Run(ctx, stmt)
	if err != nil {
		return fact.Verdict{}, fmt.Errorf("re-execute statement %s: %w", st.SQLHash, err)
	}
	v := fact.Verdict{ProvenanceValid: again.Outcome == sandbox.OutcomeOK && again.RowsProcessed == st.RowsProcessed}
	if again.Outcome == sandbox.OutcomeOK && r.Value.Kind == fact.KindTable {
		if t, err := StatementTable(again); err == nil {
			v.ValueMatches = t.Equal(r.Value.Table)
			v.Enumerated = len(t.Rows)
		}
	}
	v.Complete = v.ValueMatches
	return v, nil
}

// statementHash is a statement's SHA-256 in lowercase hex: what the log
// and the provenance keep of it.
func statementHash(stmt string) string {
	h := sha256.Sum256([]byte(stmt))
	return hex.EncodeToString(h[:])
}

// ErrResultType is returned by StatementTable for a result it cannot
// type: a column count that disagrees with the types, a number that is not
// finite, a value of another shape than its column's.
var ErrResultType = errors.New("statement result does not fit a table")

// StatementTable types a sandbox result as a table: numeric columns
// (integers, HUGEINT and DECIMAL included) as numbers, TIMESTAMP and DATE
// columns as instants, every other column as text (a boolean as true or
// false, a list or struct as its JSON). Columns keep their names; a
// repeated or empty name gets a suffix (_2, _3, ...), since a table's
// names are unique. Numbers carry no unit: nothing but the statement says
// what they measure.
func StatementTable(res sandbox.Result) (*fact.Table, error) {
	if len(res.Types) != len(res.Columns) || len(res.Columns) == 0 {
		return nil, ErrResultType
	}
	cols := make([]fact.Column, len(res.Columns))
	seen := map[string]bool{}
	for i, name := range res.Columns {
		base := name
		if base == "" {
			base = "column"
		}
		name = base
		for n := 2; seen[name]; n++ {
			name = base + "_" + strconv.Itoa(n)
		}
		seen[name] = true
		cols[i] = fact.Column{Name: name, Type: cellType(res.Types[i])}
	}
	rows := make([][]fact.Cell, len(res.Rows))
	for i, r := range res.Rows {
		if len(r) != len(cols) {
			return nil, ErrResultType
		}
		rows[i] = make([]fact.Cell, len(r))
		for j, v := range r {
			c, err := cell(cols[j].Type, v)
			if err != nil {
				return nil, err
			}
			rows[i][j] = c
		}
	}
	t, err := fact.NewTable(cols, rows)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrResultType, err)
	}
	return t, nil
}

// cellType is the cell type of a DuckDB column type.
func cellType(dbType string) fact.CellType {
	t := strings.ToUpper(strings.TrimSpace(dbType))
	if i := strings.IndexByte(t, '('); i >= 0 {
		t = t[:i]
	}
	switch t {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
		"UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL", "REAL", "INT", "INT1", "INT2", "INT4", "INT8":
		return fact.CellNumber
	case "TIMESTAMP", "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE", "DATE", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", "DATETIME":
		return fact.CellInstant
	}
	return fact.CellText
}

// cell types one JSON value of a sandbox row.
func cell(t fact.CellType, v any) (fact.Cell, error) {
	if v == nil {
		return fact.NullCell(), nil
	}
	switch t {
	case fact.CellNumber:
		var x float64
		switch n := v.(type) {
		case float64:
			x = n
		case json.Number:
			f, err := n.Float64()
			if err != nil {
				return fact.Cell{}, ErrResultType
			}
			x = f
		case string: // HUGEINT, DECIMAL
			f, err := strconv.ParseFloat(n, 64)
			if err != nil {
				return fact.Cell{}, ErrResultType
			}
			x = f
		default:
			return fact.Cell{}, ErrResultType
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fact.Cell{}, ErrResultType
		}
		return fact.NumberCell(x), nil
	case fact.CellInstant:
		s, ok := v.(string)
		if !ok {
			return fact.Cell{}, ErrResultType
		}
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return fact.Cell{}, ErrResultType
		}
		return fact.InstantCell(at), nil
	}
	switch x := v.(type) {
	case string:
		return fact.TextCell(x), nil
	case bool:
		return fact.TextCell(strconv.FormatBool(x)), nil
	case float64:
		return fact.TextCell(strconv.FormatFloat(x, 'g', -1, 64)), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fact.Cell{}, ErrResultType
	}
	return fact.TextCell(string(b)), nil
}
