// Package sqljournal is the memory journal over database/sql, shared by
// the DuckDB and PostgreSQL stores (memory/duckdb, memory/postgres): one
// append-only table, memory_journal, whose rows hold each record and its
// visibility as JSON beside the columns retrieval filters on (agent, kind,
// target, folded subject, logical time, validity), and a table of each
// annotation's ancestry (what its targets lead to), so that a chain of
// any depth is one indexed read, and the chains of a sheet one query
// (memory.ChainsReader). The SQL is the subset both databases speak: $n
// parameters, a recursive CTE to rebuild the ancestry after a Load.
//
// Retrieval filters in SQL on what SQL can judge exactly (subject,
// partition, time, validity, exclusions, kind) and leaves the rest to
// memory.Retrieval.Admits and the declared rank (memory.SortRank) in Go,
// so that every store ranks with the same six-decimal rounding.
package sqljournal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/provenant/provenant/internal/dbtx"
	"github.com/provenant/provenant/memory"
)

// Table is the journal's table.
const Table = "memory_journal"

// Schema creates the journal's table and indexes if missing; DuckDB and
// PostgreSQL accept the statements as written.
var Schema = []string{
	`CREATE TABLE IF NOT EXISTS memory_journal (
		key TEXT PRIMARY KEY,
		seq BIGINT NOT NULL,
		agent TEXT NOT NULL,
		kind TEXT NOT NULL,
		target TEXT NOT NULL,
		subject_fold TEXT NOT NULL,
		time BIGINT NOT NULL,
		valid_from BIGINT NOT NULL,
		valid_to BIGINT NOT NULL,
		record TEXT NOT NULL,
		visibility TEXT NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS memory_journal_target ON memory_journal (target)`,
	`CREATE INDEX IF NOT EXISTS memory_journal_subject ON memory_journal (subject_fold)`,
	// memory_ancestry holds, for each annotation, every record its
	// targets lead to (its target, its target's target, ...): the chain
	// of a key is the records whose ancestry names it, one indexed read
	// whatever its depth. Append adds a record's rows; Load rebuilds it.
	`CREATE TABLE IF NOT EXISTS memory_ancestry (
		key TEXT NOT NULL,
		ancestor TEXT NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS memory_ancestry_ancestor ON memory_ancestry (ancestor)`,
}

// rebuildAncestry recomputes memory_ancestry from the targets (UNION, so
// that a cycle of corrupt records ends; a record is never its own
// ancestor).
var rebuildAncestry = []string{
	`DELETE FROM memory_ancestry`,
	`INSERT INTO memory_ancestry (key, ancestor)
	WITH RECURSIVE up(key, ancestor) AS (
		SELECT key, target FROM memory_journal WHERE target <> ''
		UNION
		SELECT u.key, j.target FROM up u JOIN memory_journal j ON j.key = u.ancestor WHERE j.target <> ''
	)
	SELECT key, ancestor FROM up WHERE key <> ancestor`,
}

// Store is a memory journal in a SQL database.
type Store struct {
	db *sql.DB
}

var _ memory.Journal = (*Store)(nil)

// Open creates the journal's table in db if missing and returns a store
// over it. The caller closes db.
func Open(ctx context.Context, db *sql.DB) (*Store, error) {
	for _, stmt := range Schema {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("create memory journal: %w", err)
		}
	}
	return &Store{db: db}, nil
}

// DB is the database the store reads and writes.
func (s *Store) DB() *sql.DB { return s.db }

const insert = `INSERT INTO memory_journal
	(key, seq, agent, kind, target, subject_fold, time, valid_from, valid_to, record, visibility)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`

const insertMany = `INSERT INTO memory_journal
	(key, seq, agent, kind, target, subject_fold, time, valid_from, valid_to, record, visibility) VALUES `

func row(e memory.Entry, seq int64) ([]any, error) {
	rec, err := json.Marshal(e.Record)
	if err != nil {
		return nil, err
	}
	vis, err := json.Marshal(e.Visibility)
	if err != nil {
		return nil, err
	}
	r := e.Record
	return []any{r.Key, seq, r.Agent, string(r.Kind), r.Target, memory.FoldSubject(r.Subject),
		r.Time, r.Valid.From, r.Valid.To, string(rec), string(vis)}, nil
}

// Append adds a validated record with its visibility, in one
// transaction: the key must be new (memory.ErrDuplicateKey) and an
// annotation's target already in the journal (memory.ErrUnknownTarget).
func (s *Store) Append(ctx context.Context, r memory.Record, v memory.Visibility) error {
	if err := memory.Validate(r); err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	if err := v.Validate(); err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	tx, err := dbtx.Begin(ctx, s.db, nil)
	if err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memory_journal WHERE key = $1`, r.Key).Scan(&n); err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	if n > 0 {
		return fmt.Errorf("append record: %w", memory.ErrDuplicateKey)
	}
	if r.Target != "" {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memory_journal WHERE key = $1`, r.Target).Scan(&n); err != nil {
			return fmt.Errorf("append record: %w", err)
		}
		if n == 0 {
			return fmt.Errorf("append record: %w", memory.ErrUnknownTarget)
		}
	}
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM memory_journal`).Scan(&seq); err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	args, err := row(memory.Entry{Record: r, Visibility: v}, seq)
	if err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	if _, err := tx.ExecContext(ctx, insert, args...); err != nil {
		// A concurrent append of the same key loses on the primary key.
		return fmt.Errorf("append record: %w", err)
	}
	if r.Target != "" {
		// The target is older than the record, so its ancestry is
		// complete: the record's is the target and the target's.
		if _, err := tx.ExecContext(ctx, `INSERT INTO memory_ancestry (key, ancestor)
			SELECT CAST($1 AS TEXT), CAST($2 AS TEXT) UNION SELECT CAST($1 AS TEXT), ancestor FROM memory_ancestry WHERE key = $2`, r.Key, r.Target); err != nil {
			return fmt.Errorf("append record: %w", err)
		}
	}
	if err := dbtx.Commit(ctx, tx); err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	return nil
}

// Load appends a snapshot's entries as they are, corrupt records
// included (a journal read back can hold what Append would refuse), in
// one transaction; a key already in the journal fails it whole.
func (s *Store) Load(ctx context.Context, entries []memory.Entry) error {
	tx, err := dbtx.Begin(ctx, s.db, nil)
	if err != nil {
		return fmt.Errorf("load journal: %w", err)
	}
	defer tx.Rollback()
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM memory_journal`).Scan(&seq); err != nil {
		return fmt.Errorf("load journal: %w", err)
	}
	// Many rows per statement: a statement's fixed cost, not a row's,
	// is what a bulk load pays.
	const perStatement = 256
	for len(entries) > 0 {
		n := min(perStatement, len(entries))
		var args []any
		values := make([]string, n)
		for i, e := range entries[:n] {
			seq++
			vals, err := row(e, seq)
			if err != nil {
				return fmt.Errorf("load journal: %w", err)
			}
			ph := make([]string, len(vals))
			for k, v := range vals {
				args = append(args, v)
				ph[k] = "$" + strconv.Itoa(len(args))
			}
			values[i] = "(" + strings.Join(ph, ", ") + ")"
		}
		if _, err := tx.ExecContext(ctx, insertMany+strings.Join(values, ", "), args...); err != nil {
			return fmt.Errorf("load journal: %w", err)
		}
		entries = entries[n:]
	}
	for _, stmt := range rebuildAncestry {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("load journal: %w", err)
		}
	}
	if err := dbtx.Commit(ctx, tx); err != nil {
		return fmt.Errorf("load journal: %w", err)
	}
	return nil
}

// Entries reads the whole journal in append order.
func (s *Store) Entries(ctx context.Context) ([]memory.Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT record, visibility FROM memory_journal ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	defer rows.Close()
	var out []memory.Entry
	for rows.Next() {
		var rec, vis string
		if err := rows.Scan(&rec, &vis); err != nil {
			return nil, fmt.Errorf("read journal: %w", err)
		}
		var e memory.Entry
		if err := json.Unmarshal([]byte(rec), &e.Record); err != nil {
			return nil, fmt.Errorf("read journal: decode record: %w", err)
		}
		if err := json.Unmarshal([]byte(vis), &e.Visibility); err != nil {
			e.Visibility = memory.Visibility{Agent: " "} // invalid: the gate fails closed
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	return out, nil
}

// Len is the number of records in the journal.
func (s *Store) Len(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM memory_journal`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count records: %w", err)
	}
	return n, nil
}

// params appends $n placeholders for xs to args and returns them joined.
func params(args *[]any, xs []string) string {
	ph := make([]string, len(xs))
	for i, x := range xs {
		*args = append(*args, x)
		ph[i] = "$" + strconv.Itoa(len(*args))
	}
	return strings.Join(ph, ", ")
}

// Retrieve selects the rows SQL can judge (subject, partition, time,
// validity, exclusions, kind), keeps those q admits, ranks them in the
// declared order and returns the page.
func (s *Store) Retrieve(ctx context.Context, q memory.Retrieval) ([]memory.Record, error) {
	es, err := s.retrieve(ctx, q, false)
	if err != nil {
		return nil, err
	}
	recs := make([]memory.Record, len(es))
	for i, e := range es {
		recs[i] = e.Record
	}
	return recs, nil
}

// RetrieveEntries is Retrieve with each record's visibility, from the same
// rows (memory.EntryRetriever); a visibility that does not decode is an
// error wrapping memory.ErrUndecided.
func (s *Store) RetrieveEntries(ctx context.Context, q memory.Retrieval) ([]memory.Entry, error) {
	return s.retrieve(ctx, q, true)
}

// retrieve reads the records q admits with their visibility; with
// needVisibility, one that does not decode is an error, else it is left
// zero (Retrieve returns the records alone).
func (s *Store) retrieve(ctx context.Context, q memory.Retrieval, needVisibility bool) ([]memory.Entry, error) {
	if q.Offset < 0 || q.Limit < 0 {
		return nil, errors.New("retrieve records: negative offset or limit")
	}
	args := []any{q.AsOf}
	where := []string{
		"time <= $1", "valid_from <= $1", "(valid_to = 0 OR $1 < valid_to)",
		"NOT (kind IN ('confirm', 'retract') AND target <> '')",
	}
	if strings.TrimSpace(q.Cues.Subject) != "" {
		where = append(where, "subject_fold = "+params(&args, []string{memory.FoldSubject(q.Cues.Subject)}))
	}
	if len(q.Partition) > 0 {
		where = append(where, "agent IN ("+params(&args, q.Partition)+")")
	}
	if len(q.Exclude) > 0 {
		where = append(where, "key NOT IN ("+params(&args, q.Exclude)+")")
	}
	rows, err := s.db.QueryContext(ctx, "SELECT record, visibility FROM memory_journal WHERE "+strings.Join(where, " AND "), args...)
	if err != nil {
		return nil, fmt.Errorf("retrieve records: %w", err)
	}
	defer rows.Close()
	var hits []memory.Entry
	for rows.Next() {
		var raw, vis string
		if err := rows.Scan(&raw, &vis); err != nil {
			return nil, fmt.Errorf("retrieve records: %w", err)
		}
		var r memory.Record
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			return nil, fmt.Errorf("retrieve records: decode record: %w", err)
		}
		if !q.Admits(r) {
			continue
		}
		var v memory.Visibility
		if err := json.Unmarshal([]byte(vis), &v); err != nil && needVisibility {
			return nil, fmt.Errorf("retrieve records: visibility of a record: %w", memory.ErrUndecided)
		}
		hits = append(hits, memory.Entry{Record: r, Visibility: v})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("retrieve records: %w", err)
	}
	memory.SortRankEntries(hits, q.AsOf)
	if q.Offset >= len(hits) {
		return nil, nil
	}
	hits = hits[q.Offset:]
	return hits[:min(q.Limit, len(hits))], nil
}

// Visibility reads the visibility of keys in one query; an unknown key
// is left out, and a visibility that does not decode is left out too (a
// failure to decide, which the reader gate fails closed on).
func (s *Store) Visibility(ctx context.Context, keys []string) (map[string]memory.Visibility, error) {
	out := make(map[string]memory.Visibility, len(keys))
	if len(keys) == 0 {
		return out, ctx.Err()
	}
	var args []any
	rows, err := s.db.QueryContext(ctx, "SELECT key, visibility FROM memory_journal WHERE key IN ("+params(&args, keys)+")", args...)
	if err != nil {
		return nil, fmt.Errorf("read visibility: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key, raw string
		if err := rows.Scan(&key, &raw); err != nil {
			return nil, fmt.Errorf("read visibility: %w", err)
		}
		var v memory.Visibility
		if json.Unmarshal([]byte(raw), &v) == nil {
			out[key] = v
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read visibility: %w", err)
	}
	return out, nil
}

// Chain reads the annotation chain of key: one indexed read of the
// records whose ancestry names it.
func (s *Store) Chain(ctx context.Context, key string) ([]memory.Entry, error) {
	chains, err := s.Chains(ctx, []string{key})
	if err != nil {
		return nil, err
	}
	return chains[key], nil
}

// Chains reads the annotation chains of keys in one query
// (memory.ChainsReader).
func (s *Store) Chains(ctx context.Context, keys []string) (map[string][]memory.Entry, error) {
	out := make(map[string][]memory.Entry, len(keys))
	if len(keys) == 0 {
		return out, ctx.Err()
	}
	var args []any
	rows, err := s.db.QueryContext(ctx, `SELECT a.ancestor, j.record, j.visibility
		FROM memory_ancestry a JOIN memory_journal j ON j.key = a.key
		WHERE a.ancestor IN (`+params(&args, keys)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read chain: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var root, rec, vis string
		if err := rows.Scan(&root, &rec, &vis); err != nil {
			return nil, fmt.Errorf("read chain: %w", err)
		}
		var e memory.Entry
		if err := json.Unmarshal([]byte(rec), &e.Record); err != nil {
			return nil, fmt.Errorf("read chain: decode record: %w", err)
		}
		if err := json.Unmarshal([]byte(vis), &e.Visibility); err != nil {
			// An undecodable visibility is an invalid one: the gate fails
			// closed on it.
			e.Visibility = memory.Visibility{Agent: " "}
		}
		out[root] = append(out[root], e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read chain: %w", err)
	}
	return out, nil
}
