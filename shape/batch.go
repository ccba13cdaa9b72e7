package shape

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
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
	// Generic: the query's best plan does not depend on its arguments'
	// values (index probes of one series), so a database that caches
	// plans may keep one for every call. PostgreSQL's own choice
	// (plan_cache_mode auto) plans a point call's resolver query anew on
	// every call at 10,000,000 events, its generic plan's estimate of the
	// rows since the checkpoint (8 to 25) being above each custom plan's
	// (1): 0.5 to 0.7 ms of backend CPU a call
	// (bench/results/pgpoint2-generic.md).
	Generic bool
}

// Rowset is one query's rows, read into memory.
type Rowset interface {
	// Len is the number of rows.
	Len() int
	// Scan stores the values of row i (0 <= i < Len) in dest, one
	// destination per column, as *sql.Rows's Scan does for the
	// destinations the formulations use: *sql.NullString,
	// *sql.NullInt64, *sql.NullFloat64, *sql.NullTime, *string, *int64,
	// *float64, *time.Time, any sql.Scanner and *any. The strings it
	// stores may share memory with the Rowset's other strings (they are
	// never changed). Not safe for concurrent use.
	Scan(i int, dest ...any) error
}

// Values is a Rowset of values as a database/sql driver gives them
// (int64, float64, bool, []byte, string, time.Time or nil), row by row.
type Values [][]any

// Len is the number of rows.
func (v Values) Len() int { return len(v) }

// Scan stores row i's values in dest, as database/sql would.
func (v Values) Scan(i int, dest ...any) error {
	if i < 0 || i >= len(v) {
		return errors.New("scan rows: no row")
	}
	row := v[i]
	if len(dest) != len(row) {
		return fmt.Errorf("scan rows: %d destinations for %d columns", len(dest), len(row))
	}
	for j, d := range dest {
		if err := assign(d, row[j]); err != nil {
			return fmt.Errorf("scan rows: column %d: %w", j, err)
		}
	}
	return nil
}

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

// replayed is a query a pipeline read, and its rows.
type replayed struct {
	stmt Stmt
	rows Rowset
}

// is reports whether st is the query sqlText with args: the same text
// and equal arguments (times equal as instants).
func (st Stmt) is(sqlText string, args []any) bool {
	if st.SQL != sqlText || len(st.Args) != len(args) {
		return false
	}
	for i, a := range args {
		if !sameArg(st.Args[i], a) {
			return false
		}
	}
	return true
}

// sameArg compares two query arguments: by value for the kinds a
// formulation binds, times as instants; any other kind by its printed
// form.
func sameArg(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case int:
		y, ok := b.(int)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	}
	return fmt.Sprintf("%T %v", a, a) == fmt.Sprintf("%T %v", b, b)
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
	// A window's formulations read no checkpoint (the prefixes of a
	// Digester's do: they are not pipelined without the index).
	if p.derived && (p.tool.Shape.Value != catalog.ShapeCountRowsInWindow || s.digester() != nil) {
		if cps = s.e.index(p); cps == nil {
			return Result{}, false, nil
		}
		// Both formulations use the index kept now, whatever another
		// call keeps after.
		s.cps, s.cpsRel = cps, p.cpiRel
	}
	// A window its digests may serve is pipelined only when the kept
	// counts (of any version) say it is not summed; they must be of the
	// snapshot's version, checked below, so that the executor's route is
	// the one the resolver takes.
	winVersion, ok := s.pipelinedWindow(p, c)
	if !ok {
		s.cps = nil
		return Result{}, false, nil
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
	version := Stmt{SQL: p.versionSQL}
	if p.tool.Shape.Value == catalog.ShapeLatestValue {
		// A point call's statements each probe one series: one plan
		// serves every call.
		version.Generic = true
		for i := range pending {
			pending[i].Generic = true
		}
	}
	sets, err := s.e.src.Pipeline.Pipeline(ctx, s.e.src.Snapshot, append([]Stmt{version}, pending...))
	if err != nil {
		return Result{}, false, fmt.Errorf("execute %s: %w", p.tool.Name.Value, err)
	}
	if len(sets) != 3 || sets[0].Len() != 1 {
		return Result{}, false, fmt.Errorf("execute %s: pipeline returned %d results", p.tool.Name.Value, len(sets))
	}
	var seq sql.NullInt64
	if err := sets[0].Scan(0, &seq); err != nil {
		return Result{}, false, fmt.Errorf("read data version: %w", err)
	}
	v := fmt.Sprintf("seq:%d", seq.Int64)
	if cps != nil && cps.version != v || p.win != nil && winVersion != v {
		// The kept index is of another version: answer the ordinary way,
		// which reads the snapshot's own.
		s.cps = nil
		return Result{}, false, nil
	}
	s.batched = true
	s.versions[ds] = v
	s.replay = []replayed{{pending[0], sets[1]}, {pending[1], sets[2]}}
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
	s.replayedRows = 0
	for _, r := range s.replay {
		if r.stmt.is(sqlText, args) {
			s.replayedRows = r.rows.Len()
			return &replayRows{set: r.rows, i: -1}, nil
		}
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

func (r *replayRows) Next() bool   { r.i++; return r.i < r.set.Len() }
func (r *replayRows) Err() error   { return nil }
func (r *replayRows) Close() error { return nil }

func (r *replayRows) Scan(dest ...any) error {
	if r.i < 0 || r.i >= r.set.Len() {
		return errors.New("scan replayed rows: no row")
	}
	if err := r.set.Scan(r.i, dest...); err != nil {
		return fmt.Errorf("scan replayed rows: %w", err)
	}
	return nil
}

// assign stores a driver value in a scan destination, as database/sql
// does for the destinations the formulations use.
func assign(dest, v any) error {
	// The nullable destinations of the values they take as they are:
	// what their Scan gives, without its conversion's type switches.
	switch d := dest.(type) {
	case *sql.NullString:
		switch x := v.(type) {
		case nil:
			*d = sql.NullString{}
			return nil
		case string:
			*d = sql.NullString{String: x, Valid: true}
			return nil
		}
	case *sql.NullFloat64:
		switch x := v.(type) {
		case nil:
			*d = sql.NullFloat64{}
			return nil
		case float64:
			*d = sql.NullFloat64{Float64: x, Valid: true}
			return nil
		}
	case *sql.NullTime:
		switch x := v.(type) {
		case nil:
			*d = sql.NullTime{}
			return nil
		case time.Time:
			*d = sql.NullTime{Time: x, Valid: true}
			return nil
		}
	case *sql.NullInt64:
		switch x := v.(type) {
		case nil:
			*d = sql.NullInt64{}
			return nil
		case int64:
			*d = sql.NullInt64{Int64: x, Valid: true}
			return nil
		}
	}
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

// Digester is a Pipeliner's optional capability to compute a key set's
// count and digest in the database (store/postgres's), so that a window
// past the provenance limit ships its first keys only, not every key of
// the window (twice: the executor's and the resolver's).
type Digester interface {
	// DigestSQL renders an aggregate over the text column col of the
	// rows it aggregates: Digest of its values (each followed by a
	// newline, in bytewise order, SHA-256, lowercase hex), NULL over none.
	DigestSQL(col string) string
	// KeyOrder renders an ORDER BY term that orders the text column col
	// bytewise, as Go's sort of the keys does.
	KeyOrder(col string) string
}

// A KeyOrderer is a Pipeliner's optional capability to render a text
// expression so that the database orders it bytewise whatever the
// column's collation (store/postgres's: COLLATE "C"): the metric key
// floors (metric.Options.KeyOrder) are then kept on that database too.
// Every Digester is one.
type KeyOrderer interface {
	KeyOrder(col string) string
}

// keyOrder returns the Source's KeyOrderer's KeyOrder, or nil.
func (e *Engine) keyOrder() func(string) string {
	if ko, ok := e.src.Pipeline.(KeyOrderer); ok {
		return ko.KeyOrder
	}
	return nil
}

// digester returns the Source's Digester, or nil: none, or the call lists
// every key (ExecuteAll).
func (s *Snapshot) digester() Digester {
	if s.listAll {
		return nil
	}
	dg, _ := s.e.src.Pipeline.(Digester)
	return dg
}

// keySet is a set of provenance keys by its count, its digest and its
// first keys (sorted; all of them up to the engine's MaxKeys).
type keySet struct {
	n      int
	digest string
	listed []string
}

// fullSet is the key set of keys, all of them read.
func (s *Snapshot) fullSet(keys []string) keySet {
	keys = distinctSorted(keys)
	listed := keys
	if len(listed) > s.e.maxKeys {
		listed = listed[:s.e.maxKeys:s.e.maxKeys]
	}
	return keySet{n: len(keys), digest: Digest(keys), listed: listed}
}

// named aliases a projection's columns _p0, _p1, … (a set operation's
// columns are its first query's), so that a query over its rows can name
// them.
func named(proj []string) []string {
	out := make([]string, len(proj))
	for i, e := range proj {
		out[i] = e + " AS _p" + strconv.Itoa(i)
	}
	return out
}

// digestQuery renders, over the rows of rel (a query whose column key
// is a provenance key), one query that returns the number of rows, the
// number of distinct keys and, when they are more than MaxKeys, their
// digest (a subquery PostgreSQL evaluates only then), in every row, and
// beside them the first MaxKeys rows by key (cols of them; none when
// there are no rows: a one-row relation left-joined).
func (s *Snapshot) digestQuery(dg Digester, q *query, rel, key string, cols []string) string {
	f := make([]string, len(cols))
	for i, c := range cols {
		f[i] = "f." + c
	}
	limit := q.param(int64(s.e.maxKeys))
	return "WITH _r AS (" + rel + ") SELECT a._n, a._nd, CASE WHEN a._nd > " + limit + " THEN (SELECT " + dg.DigestSQL("d."+key) +
		" FROM (SELECT DISTINCT " + key + " FROM _r) d) END, " + strings.Join(f, ", ") +
		" FROM (SELECT COUNT(*) AS _n, COUNT(DISTINCT " + key + ") AS _nd FROM _r) a LEFT JOIN (SELECT * FROM _r ORDER BY " +
		dg.KeyOrder(key) + " LIMIT " + limit + ") f ON 1 = 1"
}

// digestHead reads a digestQuery's first columns: the row count, the
// key count and the digest.
type digestHead struct {
	n, nd sql.NullInt64
	d     sql.NullString
}

func (h *digestHead) dest() []any { return []any{&h.n, &h.nd, &h.d} }

// set is the key set of keys (the first rows' keys): all of them when
// the query found no more than MaxKeys, else the first ones with the
// count and digest read in SQL.
func (h *digestHead) set(s *Snapshot, keys []string) keySet {
	if int(h.nd.Int64) <= s.e.maxKeys {
		return s.fullSet(keys)
	}
	listed := distinctSorted(keys)
	return keySet{n: int(h.nd.Int64), digest: h.d.String, listed: listed}
}

// execWindowDigest is execWindow with the count and digest in SQL: the
// keys of sqlText (column _k), the first MaxKeys of them shipped.
func (s *Snapshot) execWindowDigest(ctx context.Context, p *plan, dg Digester, q *query, sqlText string) (fact.Value, []string, error) {
	var h digestHead
	var k sql.NullString
	var keys []string
	err := s.execRows(ctx, p, s.digestQuery(dg, q, sqlText, "_k", []string{"_k"}), q.args, append(h.dest(), &k), func() error {
		if k.Valid {
			keys = append(keys, k.String)
		}
		return nil
	})
	if err != nil {
		return fact.Value{}, nil, fmt.Errorf("query %s: %w", p.tool.Name.Value, err)
	}
	set := h.set(s, keys)
	s.agg = &set
	return fact.RowCount(int(h.n.Int64)), keys, nil
}

// resolveWindowDigest is resolveWindow's read with the count and digest
// in SQL: the rows of sqlText (a rowProjection, named), the first
// MaxKeys of them shipped, those of asserted keys kept.
func (s *Snapshot) resolveWindowDigest(ctx context.Context, p *plan, dg Digester, q *query, sqlText string, asserted map[string]struct{}) (fact.Value, []string, knownRows, *keySet, error) {
	cols := make([]string, len(p.rowProjection("a")))
	for i := range cols {
		cols[i] = "_p" + strconv.Itoa(i)
	}
	rs, err := s.query(ctx, s.digestQuery(dg, q, sqlText, "_p0", cols), q.args...)
	if err != nil {
		return fact.Value{}, nil, nil, nil, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
	}
	defer rs.Close()
	var h digestHead
	sc := p.newRowScan()
	dest := append(h.dest(), sc.nullDest()...)
	known := map[string]row{}
	var keys []string
	for rs.Next() {
		if err := rs.Scan(dest...); err != nil {
			return fact.Value{}, nil, nil, nil, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
		}
		if !sc.nk.Valid {
			continue // no rows: the counts' row alone
		}
		sc.fromNull()
		keys = append(keys, sc.key)
		if _, ok := asserted[sc.key]; ok {
			addRow(known, sc.key, sc.row(p))
		}
	}
	if err := rs.Err(); err != nil {
		return fact.Value{}, nil, nil, nil, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
	}
	set := h.set(s, keys)
	return fact.RowCount(int(h.n.Int64)), keys, rowMap(known), &set, nil
}
