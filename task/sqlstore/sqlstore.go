// Package sqlstore keeps a tasks table (package task) in DuckDB or
// PostgreSQL through database/sql: the same portable SQL on both
// (CREATE TABLE IF NOT EXISTS, a primary key and a unique key, $n
// parameters, one transaction per append).
//
// The table's columns:
//
//	task_id      text primary key   task.ID(request_key)
//	request_key  text unique        the client's key
//	tool, kind   text               the write tool and the task's kind
//	subject      text               the subject's ids, JSON with sorted keys
//	quantity     bigint
//	args_sha256  text               task.Request.ArgsHash
//	session      text               the session whose grant allowed it
//	approver     text               the human who approved the grant
//
// Two appends of one key race on the primary key: the loser's insert
// fails, it reads the winner's row and answers from it, so one key opens
// one row on every backend.
package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/provenant/provenant/task"
)

// Store is a tasks table.
type Store struct {
	db    *sql.DB
	table string // quoted
}

var _ task.Store = (*Store)(nil)

var tableRe = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$`)

// Open returns the store of table in db, creating the table when it does
// not exist. table is unquoted (schema.table allowed), as a catalog's
// `writes.table` names it.
func Open(ctx context.Context, db *sql.DB, table string) (*Store, error) {
	if !tableRe.MatchString(table) {
		return nil, fmt.Errorf("open task store: %w: table name", task.ErrInvalid)
	}
	parts := strings.Split(table, ".")
	for i, p := range parts {
		parts[i] = `"` + p + `"`
	}
	s := &Store{db: db, table: strings.Join(parts, ".")}
	if err := Create(ctx, db, table); err != nil {
		return nil, err
	}
	return s, nil
}

// Create creates the tasks table when it does not exist (`provenant
// import` and the engine call it).
func Create(ctx context.Context, db *sql.DB, table string) error {
	if !tableRe.MatchString(table) {
		return fmt.Errorf("create tasks table: %w: table name", task.ErrInvalid)
	}
	parts := strings.Split(table, ".")
	for i, p := range parts {
		parts[i] = `"` + p + `"`
	}
	_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+strings.Join(parts, ".")+` (
	task_id VARCHAR NOT NULL PRIMARY KEY,
	request_key VARCHAR NOT NULL UNIQUE,
	tool VARCHAR NOT NULL,
	kind VARCHAR NOT NULL,
	subject VARCHAR NOT NULL,
	quantity BIGINT NOT NULL,
	args_sha256 VARCHAR NOT NULL,
	session VARCHAR NOT NULL,
	approver VARCHAR NOT NULL
)`)
	if err != nil {
		return fmt.Errorf("create tasks table: %w", err)
	}
	return nil
}

const columns = `task_id, request_key, tool, kind, subject, quantity, args_sha256, session, approver`

// Append opens the task r asks for, or returns the one its key opened.
func (s *Store) Append(ctx context.Context, r task.Request) (task.Task, bool, error) {
	if err := r.Validate(); err != nil {
		return task.Task{}, false, fmt.Errorf("append task: %w", err)
	}
	want := r.Task()
	subject, err := json.Marshal(want.Subject) // map keys sorted
	if err != nil {
		return task.Task{}, false, fmt.Errorf("append task: %w", err)
	}
	got, err := s.Get(ctx, want.ID)
	switch {
	case err == nil:
		return s.same(got, r)
	case !errors.Is(err, task.ErrNotFound):
		return task.Task{}, false, fmt.Errorf("append task: %w", err)
	}
	_, ierr := s.db.ExecContext(ctx, `INSERT INTO `+s.table+` (`+columns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		want.ID, want.Key, want.Tool, want.Kind, string(subject), want.Quantity, want.ArgsHash, want.Session, want.Approver)
	if ierr == nil {
		return want, true, nil
	}
	// Another writer may have opened it first: answer from its row.
	got, err = s.Get(ctx, want.ID)
	if err != nil {
		return task.Task{}, false, fmt.Errorf("append task: %w", ierr)
	}
	return s.same(got, r)
}

func (s *Store) same(got task.Task, r task.Request) (task.Task, bool, error) {
	if !got.Same(r) {
		return task.Task{}, false, fmt.Errorf("append task: %w", task.ErrKeyReused)
	}
	return got, false, nil
}

// Get returns the task with id.
func (s *Store) Get(ctx context.Context, id string) (task.Task, error) {
	var (
		t       task.Task
		subject string
	)
	err := s.db.QueryRowContext(ctx, `SELECT `+columns+` FROM `+s.table+` WHERE task_id = $1`, id).
		Scan(&t.ID, &t.Key, &t.Tool, &t.Kind, &subject, &t.Quantity, &t.ArgsHash, &t.Session, &t.Approver)
	if errors.Is(err, sql.ErrNoRows) {
		return task.Task{}, fmt.Errorf("get task: %w", task.ErrNotFound)
	}
	if err != nil {
		return task.Task{}, fmt.Errorf("get task: %w", err)
	}
	if err := json.Unmarshal([]byte(subject), &t.Subject); err != nil {
		return task.Task{}, fmt.Errorf("get task: subject: %w", err)
	}
	return t, nil
}

// Count returns the number of rows with request key key (0 or 1), for
// tests and audits.
func (s *Store) Count(ctx context.Context, key string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+s.table+` WHERE request_key = $1`, key).Scan(&n)
	return n, err
}
