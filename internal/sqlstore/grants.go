package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/provenant/provenant/autonomy"
)

// GrantStore is an autonomy.Ledger in three tables of a schema:
// autonomy_clock (one row: the shared logical clock), autonomy_sessions
// (a row per session: its last logical time; the row an Update locks)
// and autonomy_grants (a row per live grant, keyed by session and grant
// id, UNIQUE on session and order). A grant that lapses or is revoked is
// deleted in the Update that ends it, under the session row's lock, so
// exactly one Update (in one process) sees it end; the DELETE must
// remove the row, or the Update is refused, as a backstop.
type GrantStore struct {
	closer
	db *sql.DB
	d  Dialect
	mu sync.Mutex

	qTick, qClock, qTouch, qNewSession, qSession, qSetSession,
	qGrants, qInsert, qDelete, qCount string
}

var _ autonomy.Ledger = (*GrantStore)(nil)

// NewGrantStore creates the schema and tables if missing and returns the
// store; with owns, its Close closes db too.
func NewGrantStore(ctx context.Context, db *sql.DB, d Dialect, schema string, owns bool) (*GrantStore, error) {
	schema, err := CheckSchema(schema)
	if err != nil {
		return nil, err
	}
	clock, sessions, grants := schema+".autonomy_clock", schema+".autonomy_sessions", schema+".autonomy_grants"
	err = setup(ctx, db, d, []string{
		"CREATE SCHEMA IF NOT EXISTS " + schema,
		"CREATE TABLE IF NOT EXISTS " + clock + " (id INTEGER PRIMARY KEY CHECK (id = 1), now BIGINT NOT NULL)",
		"INSERT INTO " + clock + " (id, now) VALUES (1, 0) ON CONFLICT DO NOTHING",
		"CREATE TABLE IF NOT EXISTS " + sessions + " (session TEXT PRIMARY KEY, now BIGINT NOT NULL)",
		"CREATE TABLE IF NOT EXISTS " + grants + ` (
			session TEXT NOT NULL,
			grant_id TEXT NOT NULL,
			seq BIGINT NOT NULL,
			tools TEXT NOT NULL,
			tier INTEGER NOT NULL,
			approver TEXT NOT NULL,
			granted BIGINT NOT NULL,
			questions BIGINT NOT NULL,
			max_questions BIGINT NOT NULL,
			max_age BIGINT NOT NULL,
			PRIMARY KEY (session, grant_id),
			UNIQUE (session, seq))`,
	})
	if err != nil {
		return nil, fmt.Errorf("create autonomy tables: %w", err)
	}
	cols := "grant_id, seq, tools, tier, approver, granted, questions, max_questions, max_age"
	return &GrantStore{
		closer: closer{owns: owns, db: db},
		db:     db, d: d,
		// One statement: the row locked, moved and read, committed on
		// its own (the lock is held for the statement and its commit).
		qTick: "UPDATE " + clock + " SET now = now + 1 WHERE id = 1 RETURNING now",
		// Writing the session's row takes its lock and reads it.
		qTouch: "UPDATE " + sessions + " SET now = now WHERE session = $1 RETURNING now",
		qClock: "SELECT now FROM " + clock + " WHERE id = 1",
		qNewSession: "INSERT INTO " + sessions + " (session, now) SELECT $1, now FROM " + clock +
			" WHERE id = 1 ON CONFLICT DO NOTHING",
		qSession:    "SELECT now FROM " + sessions + " WHERE session = $1",
		qSetSession: "UPDATE " + sessions + " SET now = $2 WHERE session = $1",
		qGrants:     "SELECT " + cols + " FROM " + grants + " WHERE session = $1 ORDER BY seq",
		qInsert:     "INSERT INTO " + grants + " (session, " + cols + ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
		qDelete:     "DELETE FROM " + grants + " WHERE session = $1 AND grant_id = $2",
		qCount:      "UPDATE " + grants + " SET questions = $3 WHERE session = $1 AND grant_id = $2",
	}, nil
}

// OpenGrants is OpenEvents for a grant store.
func OpenGrants(ctx context.Context, connect Opener, target string, db *sql.DB, d Dialect, opts *Options) (*GrantStore, error) {
	return open(ctx, connect, target, db, "grant store", func(db *sql.DB, owns bool) (*GrantStore, error) {
		return NewGrantStore(ctx, db, d, schemaOf(opts), owns)
	})
}

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// grantRow is a stored grant and its order.
type grantRow struct {
	autonomy.GrantRow
	seq int64
}

func (s *GrantStore) grants(ctx context.Context, q querier, session string) ([]grantRow, error) {
	rows, err := q.QueryContext(ctx, s.qGrants, session)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []grantRow
	for rows.Next() {
		var (
			r     grantRow
			tools string
			tier  int64
		)
		if err := rows.Scan(&r.ID, &r.seq, &tools, &tier, &r.Approver, &r.Granted, &r.Questions, &r.MaxQuestions, &r.MaxAge); err != nil {
			return nil, err
		}
		r.Tools = strings.Split(tools, ",")
		r.Tier = autonomy.Tier(tier)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Load implements autonomy.Ledger.
func (s *GrantStore) Load(ctx context.Context, session string) (autonomy.SessionState, error) {
	if err := s.check("load grants"); err != nil {
		return autonomy.SessionState{}, err
	}
	var st autonomy.SessionState
	err := s.db.QueryRowContext(ctx, s.qSession, session).Scan(&st.Now)
	if err != nil && err != sql.ErrNoRows {
		return autonomy.SessionState{}, fmt.Errorf("load grants: %w", err)
	}
	rows, err := s.grants(ctx, s.db, session)
	if err != nil {
		return autonomy.SessionState{}, fmt.Errorf("load grants: %w", err)
	}
	for _, r := range rows {
		st.Grants = append(st.Grants, r.GrantRow)
	}
	return st, nil
}

// Update implements autonomy.Ledger: one transaction that locks the
// session's row (creating it at the clock's time), reads its grants,
// runs fn, and writes what changed.
func (s *GrantStore) Update(ctx context.Context, session string, fn func(*autonomy.SessionState) error) error {
	if err := s.check("update grants"); err != nil {
		return err
	}
	err := inTx(ctx, s.db, s.d, &s.mu, func(tx *sql.Tx) error {
		// A new session starts at the clock's time.
		if _, err := tx.ExecContext(ctx, s.qNewSession, session); err != nil {
			return err
		}
		// Writing the session's row first takes its lock in every
		// database (DuckDB, without FOR UPDATE, meets a concurrent
		// Update of the session as a conflict, retried), and reads it.
		var st autonomy.SessionState
		if err := tx.QueryRowContext(ctx, s.qTouch, session).Scan(&st.Now); err != nil {
			return err
		}
		old, err := s.grants(ctx, tx, session)
		if err != nil {
			return err
		}
		next := int64(0)
		for _, r := range old {
			st.Grants = append(st.Grants, r.GrantRow)
			next = max(next, r.seq+1)
		}
		before := st.Now
		if err := fn(&st); err != nil {
			return errStop{err}
		}
		kept := map[string]autonomy.GrantRow{}
		for _, r := range st.Grants {
			kept[r.ID] = r
		}
		for _, r := range old {
			k, ok := kept[r.ID]
			switch {
			case !ok:
				res, err := tx.ExecContext(ctx, s.qDelete, session, r.ID)
				if err != nil {
					return err
				}
				if n, err := res.RowsAffected(); err != nil || n != 1 {
					// Ended by another Update past the lock: not twice.
					return errStop{fmt.Errorf("%w: grant ended concurrently", ErrConflict)}
				}
			case k.Questions != r.Questions:
				if _, err := tx.ExecContext(ctx, s.qCount, session, r.ID, k.Questions); err != nil {
					return err
				}
			}
			delete(kept, r.ID)
		}
		for _, r := range st.Grants {
			if _, isNew := kept[r.ID]; !isNew {
				continue
			}
			if slices.ContainsFunc(r.Tools, func(t string) bool { return t == "" || strings.Contains(t, ",") }) {
				return errStop{fmt.Errorf("%w: tool name", autonomy.ErrGrant)}
			}
			if _, err := tx.ExecContext(ctx, s.qInsert, session, r.ID, next, strings.Join(r.Tools, ","), int64(r.Tier),
				r.Approver, r.Granted, r.Questions, r.MaxQuestions, r.MaxAge); err != nil {
				if s.d.Classify(err) == KindUnique {
					return errStop{fmt.Errorf("%w: grant id in use", autonomy.ErrGrant)}
				}
				return err
			}
			next++
		}
		if st.Now != before {
			if _, err := tx.ExecContext(ctx, s.qSetSession, session, st.Now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("update grants: %w", err)
	}
	return nil
}

// Tick implements autonomy.Ledger: the clock row, locked, moved by one.
func (s *GrantStore) Tick(ctx context.Context) (int64, error) {
	if err := s.check("tick clock"); err != nil {
		return 0, err
	}
	var now int64
	// The UPDATE takes the row's write lock (or, in DuckDB, meets a
	// concurrent tick as a conflict, retried) and returns the new time.
	err := inStmt(ctx, s.d, &s.mu, func() error {
		return s.db.QueryRowContext(ctx, s.qTick).Scan(&now)
	})
	if err != nil {
		return 0, fmt.Errorf("tick clock: %w", err)
	}
	return now, nil
}

// Now implements autonomy.Ledger.
func (s *GrantStore) Now(ctx context.Context) (int64, error) {
	if err := s.check("read clock"); err != nil {
		return 0, err
	}
	var now int64
	if err := s.db.QueryRowContext(ctx, s.qClock).Scan(&now); err != nil {
		return 0, fmt.Errorf("read clock: %w", err)
	}
	return now, nil
}
