package duckdb

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/sandbox"
)

// Request is the first of the two messages the parent sends a worker: the
// snapshot it runs on, the tables the policy admits, the limits. The
// worker opens the snapshot and locks its connection on reading it, then
// waits for the Statement: a warm worker has done the first part before
// a statement exists.
type Request struct {
	DB     string         `json:"db"`
	Tables []string       `json:"tables"`
	Limits sandbox.Limits `json:"limits"`
}

// Statement is the second message: the one statement the worker runs
// before it exits.
type Statement struct {
	SQL string `json:"sql"`
}

// Response is the worker's one answer.
type Response struct {
	Outcome  sandbox.Outcome `json:"outcome"`
	Layer    sandbox.Layer   `json:"layer,omitempty"`
	Class    sandbox.Class   `json:"class,omitempty"`
	Kind     string          `json:"kind,omitempty"`
	Position int             `json:"position"`
	Columns  []string        `json:"columns"`
	// Types are the columns' DuckDB type names (BIGINT, DECIMAL(18,3),
	// VARCHAR, TIMESTAMP), so that a reader can tell a HUGEINT written as
	// a string from text.
	Types         []string `json:"types,omitempty"`
	Rows          [][]any  `json:"rows"`
	RowsProcessed int64    `json:"rows_processed"`
}

// result turns the response into a sandbox.Result.
func (r *Response) result() sandbox.Result {
	res := sandbox.Result{Outcome: r.Outcome, Columns: r.Columns, Types: r.Types, Rows: r.Rows, RowsProcessed: r.RowsProcessed}
	if r.Outcome != sandbox.OutcomeOK {
		res.Rejection = &sandbox.Rejection{Layer: r.Layer, Class: r.Class, Kind: r.Kind, Position: r.Position}
	}
	return res
}

func rejected(err error) *Response {
	var rej *sandbox.Rejection
	if !errors.As(err, &rej) {
		rej = &sandbox.Rejection{Layer: sandbox.LayerSandbox, Class: sandbox.ClassSQLError, Kind: "execution", Position: sandbox.NoPosition}
	}
	return &Response{Outcome: rej.Outcome(), Layer: rej.Layer, Class: rej.Class, Kind: rej.Kind, Position: rej.Position}
}

// ServeWorker is the worker process's body: it reads a Request from r,
// opens the snapshot locked down, reads one Statement, runs it and writes
// one Response to w. Only a failure to read a message or write the
// response is an error; everything about the statement is in the
// response.
func ServeWorker(ctx context.Context, r io.Reader, w io.Writer) error {
	var req Request
	dec := json.NewDecoder(io.LimitReader(r, 16<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return fmt.Errorf("read sandbox request: %w", err)
	}
	s, openErr := openSession(ctx, &req)
	if openErr == nil {
		defer s.close()
	}
	var st Statement
	if err := dec.Decode(&st); err != nil {
		return fmt.Errorf("read sandbox statement: %w", err)
	}
	resp := rejected(nil)
	if openErr == nil {
		resp = s.execute(ctx, st.SQL, sandbox.NewPolicy(req.Tables))
	}
	if err := json.NewEncoder(w).Encode(resp); err != nil {
		return fmt.Errorf("write sandbox response: %w", err)
	}
	return nil
}

// session is a worker's locked-down read-only connection to a snapshot.
type session struct {
	conn    *sql.Conn
	closeDB func() error
	limits  sandbox.Limits
}

func openSession(ctx context.Context, req *Request) (*session, error) {
	if err := req.Limits.Validate(); err != nil {
		return nil, err
	}
	conn, closeDB, err := openLocked(ctx, req.DB, req.Limits.MemoryBytes)
	if err != nil {
		return nil, err
	}
	return &session{conn: conn, closeDB: closeDB, limits: req.Limits}, nil
}

func (s *session) close() {
	s.conn.Close()
	s.closeDB()
}

// execute runs one statement, validating it again against policy.
func (s *session) execute(ctx context.Context, stmt string, policy *sandbox.Policy) *Response {
	// Validated again here, on the worker's own parser: what runs is what
	// was judged.
	if err := validate(ctx, s.conn, policy, s.limits, stmt); err != nil {
		return rejected(err)
	}
	est, err := estimatedRows(ctx, s.conn, stmt)
	if err != nil {
		return rejected(classify(err))
	}
	if est > s.limits.RowBudget {
		return rejected(&sandbox.Rejection{Layer: sandbox.LayerBudget, Class: sandbox.ClassBudgetExceeded, Kind: "rows_estimated", Position: sandbox.NoPosition})
	}
	resp, err := run(ctx, s.conn, s.limits, stmt, est)
	if err != nil {
		return rejected(err)
	}
	return resp
}

// execute opens a session for req and runs stmt in it, in this process:
// the worker's body without the process, for tests.
func execute(ctx context.Context, req *Request, stmt string, policy *sandbox.Policy) *Response {
	s, err := openSession(ctx, req)
	if err != nil {
		return rejected(nil)
	}
	defer s.close()
	return s.execute(ctx, stmt, policy)
}

// openLocked opens the snapshot read-only with external access off, turns
// profiling on and locks the configuration.
func openLocked(ctx context.Context, path string, memory int64) (*sql.Conn, func() error, error) {
	c, err := duckdb.NewConnector(path+"?access_mode=read_only&"+lockedConfig(memory), nil)
	if err != nil {
		return nil, nil, err
	}
	db := sql.OpenDB(c)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	// The parser's serializer, loaded before the statement arrives (a
	// warm worker's statement then pays none of it).
	var ast string
	if err := conn.QueryRowContext(ctx, serializeSQL, "SELECT 1").Scan(&ast); err != nil {
		conn.Close()
		db.Close()
		return nil, nil, err
	}
	for _, s := range []string{
		"SET enable_profiling = 'no_output'",
		// Only what the budget (and the fuzz target's oracle) reads.
		`SET custom_profiling_settings = '{"OPERATOR_CARDINALITY": "true", "OPERATOR_TYPE": "true", "EXTRA_INFO": "true"}'`,
		"SET lock_configuration = true",
	} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			conn.Close()
			db.Close()
			return nil, nil, err
		}
	}
	return conn, db.Close, nil
}

// estimatedRows is the sum of the planner's estimated cardinalities over
// the plan's operators: the budget's check before execution.
func estimatedRows(ctx context.Context, conn *sql.Conn, stmt string) (int64, error) {
	var key, plan string
	if err := conn.QueryRowContext(ctx, "EXPLAIN (FORMAT json) "+stmt).Scan(&key, &plan); err != nil {
		return 0, err
	}
	var nodes []planNode
	if err := json.Unmarshal([]byte(plan), &nodes); err != nil {
		return 0, fmt.Errorf("read plan: %w", err)
	}
	var sum int64
	for _, n := range nodes {
		estimate(n, &sum)
	}
	return sum, nil
}

// estimate returns the node's estimated output rows and adds the
// estimates of it and its descendants to sum. An operator the planner
// gives no estimate (a cross product, a nested-loop join) is taken to
// produce the product of its children's rows when it joins, and its
// largest child's otherwise.
func estimate(n planNode, sum *int64) int64 {
	var kids []int64
	for _, c := range n.Children {
		kids = append(kids, estimate(c, sum))
	}
	var est int64
	if s, ok := n.ExtraInfo["Estimated Cardinality"].(string); ok {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
			est = v
		}
	}
	if est == 0 && len(kids) > 0 {
		if strings.Contains(n.Name, "CROSS_PRODUCT") || strings.Contains(n.Name, "NESTED_LOOP") || strings.Contains(n.Name, "BLOCKWISE_NL") || strings.Contains(n.Name, "PIECEWISE_MERGE") {
			est = 1
			for _, k := range kids {
				est = satMul(est, k)
			}
		} else {
			est = slices.Max(kids)
		}
	}
	*sum = satAdd(*sum, est)
	return est
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

type planNode struct {
	Name      string         `json:"name"`
	Children  []planNode     `json:"children"`
	ExtraInfo map[string]any `json:"extra_info"`
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// run executes the statement, reading at most the result limits, then
// checks the rows processed against the budget; est is the plan's
// estimate.
func run(ctx context.Context, conn *sql.Conn, limits sandbox.Limits, stmt string, est int64) (*Response, error) {
	rows, err := conn.QueryContext(ctx, stmt)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, classify(err)
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, classify(err)
	}
	resp := &Response{Outcome: sandbox.OutcomeOK, Columns: cols, Rows: [][]any{}, Position: sandbox.NoPosition}
	for _, t := range types {
		resp.Types = append(resp.Types, t.DatabaseTypeName())
	}
	size := 0
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, classify(err)
		}
		row := make([]any, len(vals))
		for i, v := range vals {
			row[i] = jsonValue(v)
		}
		b, err := json.Marshal(row)
		if err != nil {
			return nil, classify(err)
		}
		size += len(b)
		if len(resp.Rows) == limits.MaxRows {
			return nil, &sandbox.Rejection{Layer: sandbox.LayerBudget, Class: sandbox.ClassBudgetExceeded, Kind: "result_rows", Position: sandbox.NoPosition}
		}
		if size > limits.MaxBytes {
			return nil, &sandbox.Rejection{Layer: sandbox.LayerBudget, Class: sandbox.ClassBudgetExceeded, Kind: "result_bytes", Position: sandbox.NoPosition}
		}
		resp.Rows = append(resp.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, classify(err)
	}
	rows.Close()
	// A plan answered from statistics alone (count(*) of a table) leaves
	// no profile: its estimate, checked already, is then the count.
	resp.RowsProcessed = est
	if info, err := duckdb.GetProfilingInfo(conn); err == nil {
		resp.RowsProcessed = rowsProcessed(info)
	}
	if resp.RowsProcessed > limits.RowBudget {
		return nil, &sandbox.Rejection{Layer: sandbox.LayerBudget, Class: sandbox.ClassBudgetExceeded, Kind: "rows_processed", Position: sandbox.NoPosition}
	}
	return resp, nil
}

// rowsProcessed sums the rows every operator of the profiled plan
// produced.
func rowsProcessed(p duckdb.ProfilingInfo) int64 {
	var sum int64
	if v, err := strconv.ParseInt(p.Metrics["OPERATOR_CARDINALITY"], 10, 64); err == nil && v > 0 {
		sum = v
	}
	for _, c := range p.Children {
		sum = satAdd(sum, rowsProcessed(c))
	}
	return sum
}

// classify maps an error from DuckDB to a rejection in the sandbox layer.
// DuckDB's message is not kept: it may quote the statement.
func classify(err error) error {
	var rej *sandbox.Rejection
	if errors.As(err, &rej) {
		return rej
	}
	r := &sandbox.Rejection{Layer: sandbox.LayerSandbox, Class: sandbox.ClassSQLError, Kind: "execution", Position: sandbox.NoPosition}
	var de *duckdb.Error
	if errors.As(err, &de) {
		switch de.Type {
		case duckdb.ErrorTypeBinder, duckdb.ErrorTypeCatalog:
			r.Class, r.Kind = sandbox.ClassSchemaViolation, "binding"
		case duckdb.ErrorTypePermission:
			r.Class, r.Kind = sandbox.ClassPermissionDenied, "permission"
		case duckdb.ErrorTypeOutOfMemory:
			r.Class, r.Kind = sandbox.ClassBudgetExceeded, "memory"
		}
	}
	return r
}

// jsonValue converts a value scanned from DuckDB into one encoding/json
// writes faithfully.
func jsonValue(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int8, int16, int32, int64, uint8, uint16, uint32, uint64, int, uint:
		return x
	case float32:
		return jsonValue(float64(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		return x
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case *big.Int:
		return x.String()
	case duckdb.Decimal:
		return x.String()
	case duckdb.Interval:
		return map[string]any{"months": x.Months, "days": x.Days, "micros": x.Micros}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	case duckdb.Map:
		out := make([]any, 0, len(x))
		for k, e := range x {
			out = append(out, map[string]any{"key": jsonValue(k), "value": jsonValue(e)})
		}
		// A map's entries in a stable order: by their key's text.
		slices.SortFunc(out, func(a, b any) int {
			return strings.Compare(fmt.Sprint(a.(map[string]any)["key"]), fmt.Sprint(b.(map[string]any)["key"]))
		})
		return out
	}
	return fmt.Sprint(v)
}
