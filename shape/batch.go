package shape

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Pipeliner is a Source's optional capability to run a snapshot's
// statements in one round trip: store/postgres's, through pgx's pipeline
// mode. Given one call's queries, it sends the snapshot's BEGIN (the
// Source's Snapshot options), the queries and COMMIT at once, and returns
// every query's rows read into memory, in order.
//
// With one, a call's executor and resolver cost one round trip between
// them: the executor's query, the resolver's and the data version are
// read in that one transaction, the executor's answer is built from its
// rows, and the resolver's rows are kept on the Snapshot for Resolve,
// which judges on them in Go. Neither query depends on the other's
// results: the resolver judges the asserted keys on the rows its own
// re-derivation read.
type Pipeliner interface {
	Pipeline(ctx context.Context, opts *sql.TxOptions, queries []Stmt) ([]Rowset, error)
}

// Stmt is one query of a pipeline, with its positional arguments.
type Stmt struct {
	SQL  string
	Args []any
}

// Rowset is one query's rows, read into memory: each value as a
// database/sql driver gives it (int64, float64, bool, []byte, string,
// time.Time or nil).
type Rowset [][]any

// errPending ends a formulation at its first query while a pipeline's
// queries are collected (Snapshot.executeBatched); the query is recorded.
var errPending = errors.New("query collected for a pipeline")

// rowReader is what a formulation reads a query's rows through: *sql.Rows, or
// a pipeline's Rowset replayed (replay).
type rowReader interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// stmtKey identifies a query by its text and arguments.
func stmtKey(sqlText string, args []any) string {
	var b strings.Builder
	b.WriteString(sqlText)
	for _, a := range args {
		b.WriteByte(0)
		if t, ok := a.(time.Time); ok {
			b.WriteString(t.UTC().Format(time.RFC3339Nano))
			continue
		}
		fmt.Fprint(&b, a)
	}
	return b.String()
}

// executeBatched answers c as Execute does, and reads the resolver's
// rows beside, in one round trip (Source.Pipeline). ok is false when the
// call cannot be answered so (no pipeline, a transaction already open, a
// checkpoint index not kept yet or of another version than the
// snapshot's, a formulation that needs a query more): the caller then
// answers it the ordinary way, in a transaction of the snapshot's own.
func (s *Snapshot) executeBatched(ctx context.Context, p *plan, c Call) (res Result, ok bool, err error) {
	ds := p.ds.Name.Value
	if s.e.src.Pipeline == nil || s.tx != nil || s.batched || s.listAll || s.knowsVersion(ds) {
		return Result{}, false, nil
	}
	var cps *checkpoints
	if p.derived {
		if cps = s.e.index(p); cps == nil {
			return Result{}, false, nil
		}
		// Both formulations use the index kept now, whatever another
		// call keeps after.
		s.cps, s.cpsRel = cps, p.cpiRel
	}
	// Collect: each formulation runs up to its first query.
	s.collecting, s.fold = true, true
	s.pending = nil
	_, _, execErr := s.execute(ctx, p, c)
	nExec := len(s.pending)
	_, resErr := s.rederive(ctx, p, c, nil)
	s.collecting, s.fold, s.foldIndex = false, false, ""
	pending := s.pending
	s.pending = nil
	if !errors.Is(execErr, errPending) || !errors.Is(resErr, errPending) || nExec != 1 || len(pending) != 2 {
		s.cps = nil
		if execErr != nil && !errors.Is(execErr, errPending) {
			return Result{}, false, execErr // a bad argument, say
		}
		return Result{}, false, nil
	}
	version := Stmt{SQL: "SELECT MAX(" + ident(SeqColumn) + ") FROM " + p.rel}
	sets, err := s.e.src.Pipeline.Pipeline(ctx, s.e.src.Snapshot, append([]Stmt{version}, pending...))
	if err != nil {
		return Result{}, false, fmt.Errorf("execute %s: %w", p.tool.Name.Value, err)
	}
	if len(sets) != 3 || len(sets[0]) != 1 || len(sets[0][0]) != 1 {
		return Result{}, false, fmt.Errorf("execute %s: pipeline returned %d results", p.tool.Name.Value, len(sets))
	}
	var seq sql.NullInt64
	if err := seq.Scan(sets[0][0][0]); err != nil {
		return Result{}, false, fmt.Errorf("read data version: %w", err)
	}
	v := fmt.Sprintf("seq:%d", seq.Int64)
	if cps != nil && cps.version != v {
		// The kept index is of another version: answer the ordinary way,
		// which reads the snapshot's own.
		s.cps = nil
		return Result{}, false, nil
	}
	s.batched = true
	s.versions[ds] = v
	s.replay = map[string]Rowset{
		stmtKey(pending[0].SQL, pending[0].Args): sets[1],
		stmtKey(pending[1].SQL, pending[1].Args): sets[2],
	}
	val, keys, err := s.execute(ctx, p, c)
	if err != nil {
		return Result{}, false, err
	}
	res, err = s.result(ctx, p, val, keys)
	return res, err == nil, err
}

// query runs one of a call's queries: recorded while a pipeline's
// queries are collected, from the pipeline's rows when it read them, else
// in the snapshot's transaction, as a prepared statement.
func (s *Snapshot) query(ctx context.Context, sqlText string, args ...any) (rowReader, error) {
	if s.collecting {
		s.pending = append(s.pending, Stmt{SQL: sqlText, Args: args})
		return nil, errPending
	}
	if set, ok := s.replay[stmtKey(sqlText, args)]; ok {
		return &replayRows{set: set, i: -1}, nil
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	st := s.e.stmt(sqlText)
	if st == nil {
		return s.tx.QueryContext(ctx, sqlText, args...)
	}
	return s.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
}

// resume opens the transaction of a snapshot whose first reads came from
// a pipeline (committed since): a query that was not in it (a lookup of
// keys the resolver's re-derivation did not read, records) reads a new
// transaction, which must hold the same data version of every dataset
// read; the versions name the data, so the two transactions see the same
// rows.
func (s *Snapshot) resume(ctx context.Context) error {
	want := s.versions
	s.versions = map[string]string{}
	for ds, v := range want {
		if _, fixed := s.e.src.Versions[ds]; fixed {
			continue
		}
		got, err := s.DataVersion(ctx, ds)
		if err != nil {
			return err
		}
		if got != v {
			return fmt.Errorf("resume snapshot: dataset %s is at data version %s, not %s", ds, got, v)
		}
	}
	s.versions = want
	return nil
}

// replayRows reads a Rowset as *sql.Rows reads a query's rows.
type replayRows struct {
	set Rowset
	i   int
}

func (r *replayRows) Next() bool   { r.i++; return r.i < len(r.set) }
func (r *replayRows) Err() error   { return nil }
func (r *replayRows) Close() error { return nil }

func (r *replayRows) Scan(dest ...any) error {
	if r.i < 0 || r.i >= len(r.set) {
		return errors.New("scan replayed rows: no row")
	}
	row := r.set[r.i]
	if len(dest) != len(row) {
		return fmt.Errorf("scan replayed rows: %d destinations for %d columns", len(dest), len(row))
	}
	for i, d := range dest {
		if err := assign(d, row[i]); err != nil {
			return fmt.Errorf("scan replayed rows: column %d: %w", i, err)
		}
	}
	return nil
}

// assign stores a driver value in a scan destination, as database/sql
// does for the destinations the formulations use.
func assign(dest, v any) error {
	if sc, ok := dest.(sql.Scanner); ok {
		return sc.Scan(v)
	}
	switch d := dest.(type) {
	case *any:
		*d = v
		return nil
	case *string:
		switch x := v.(type) {
		case string:
			*d = x
			return nil
		case []byte:
			*d = string(x)
			return nil
		}
	case *int64:
		switch x := v.(type) {
		case int64:
			*d = x
			return nil
		case string:
			n, err := strconv.ParseInt(x, 10, 64)
			*d = n
			return err
		}
	case *float64:
		switch x := v.(type) {
		case float64:
			*d = x
			return nil
		case int64:
			*d = float64(x)
			return nil
		}
	case *time.Time:
		if x, ok := v.(time.Time); ok {
			*d = x
			return nil
		}
	}
	return fmt.Errorf("cannot store %T in %T", v, dest)
}

// index returns the checkpoint index a plan's formulations use in this
// snapshot: the one a pipelined call used (executeBatched), else the one
// the engine keeps, or nil.
func (s *Snapshot) index(p *plan) *checkpoints {
	if s.cps != nil && s.cpsRel == p.cpiRel {
		return s.cps
	}
	return s.e.index(p)
}
