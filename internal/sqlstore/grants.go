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

// GrantStore is an autonomy.Ledger in a schema: the shared logical
// clock, autonomy_sessions (a row per session: its last logical time;
// the row an Update or a TickUpdate locks) and autonomy_grants (a row per
// live grant, keyed by session and grant id, UNIQUE on session and
// order). A grant that lapses or is revoked is deleted in the Update (or
// TickUpdate) that ends it, under the session row's lock, so exactly one
// of them (in one process) sees it end; the DELETE must remove the row,
// or the change is refused, as a backstop. A transaction that locks both
// the session's row and the clock (TickUpdate) locks the session's first.
//
// The clock is where the dialects differ. With Dialect.ClockSequence
// (PostgreSQL) it is the sequence autonomy_clock_seq: a tick is
// nextval, which takes no row lock and is not undone by a rollback, so
// a tick never waits for another's commit, and a transaction that ticked
// and then failed leaves its time unused (a gap). autonomy_clock is then
// a read-only view of the sequence (see migrateClock). Otherwise (DuckDB,
// one writing process) the clock is the one row of the table
// autonomy_clock, ticked by UPDATE … RETURNING, and a failed
// transaction's tick is rolled back with it.
//
// What logical time guarantees, in both layouts: a tick returns a time
// after every time a tick that completed before it began returned (in
// any process on the schema), so no two ticks share one; Now is at least
// every time a completed tick returned. It does not guarantee density:
// with the sequence a failed transaction (or a database crash, which
// resumes a sequence up to 32 values on) skips a time. Nothing needs
// density: question ids and decision records need distinct times, a
// session's time never goes back (GREATEST with the tick, under the
// session's lock), a grant's question count counts questions, not
// times, and a grant's age is the clock's distance from its grant, so a
// skipped time can only make it lapse earlier, never later (fail
// closed); each lapse is still reported once, under the session's lock
// (autonomytest's GapsAreHarmless).
type GrantStore struct {
	closer
	db *sql.DB
	d  Dialect
	mu sync.Mutex

	qTick, qClock, qTouch, qNewSession, qSession, qSetSession,
	qGrants, qInsert, qDelete, qCount string
	// With Dialect.WritableCTE: qLock creates or locks the session's
	// row and reads it in one statement; qTickSession ticks the clock
	// and raises the session's time to it in one statement.
	qLock, qTickSession string
	// With Dialect.ClockSequence: qTickBare reads the session's time and
	// its count of grants and, when it has none, ticks, in one statement;
	// qTickBareGroup does it for an array of sessions.
	qTickBare, qTickBareGroup string

	// TickBare calls made while one group's statement runs wait for the
	// next (tickBareGrouped): concurrent questions share a round trip.
	tmu       sync.Mutex
	tickDone  *sync.Cond // signalled when a group's statement ends
	tickQueue []*bareTick
	ticking   bool
}

// bareTick is one TickBare call waiting for its group's statement.
type bareTick struct {
	session  string
	done     bool
	tick, at sql.NullInt64
	grants   int64
	err      error
}

// maxTickGroup bounds the sessions of one grouped TickBare statement.
const maxTickGroup = 256

var (
	_ autonomy.Ledger     = (*GrantStore)(nil)
	_ autonomy.BareTicker = (*GrantStore)(nil)
)

// NewGrantStore creates the schema and tables if missing (with
// Dialect.ClockSequence, moving a clock row left by an earlier version
// into the sequence: migrateClock) and returns the store; with owns, its
// Close closes db too.
func NewGrantStore(ctx context.Context, db *sql.DB, d Dialect, schema string, owns bool) (*GrantStore, error) {
	schema, err := CheckSchema(schema)
	if err != nil {
		return nil, err
	}
	clock, sessions, grants := schema+".autonomy_clock", schema+".autonomy_sessions", schema+".autonomy_grants"
	stmts := []string{"CREATE SCHEMA IF NOT EXISTS " + schema}
	if !d.ClockSequence {
		stmts = append(stmts,
			"CREATE TABLE IF NOT EXISTS "+clock+" (id INTEGER PRIMARY KEY CHECK (id = 1), now BIGINT NOT NULL)",
			"INSERT INTO "+clock+" (id, now) VALUES (1, 0) ON CONFLICT DO NOTHING")
	}
	stmts = append(stmts,
		"CREATE TABLE IF NOT EXISTS "+sessions+" (session TEXT PRIMARY KEY, now BIGINT NOT NULL)",
		"CREATE TABLE IF NOT EXISTS "+grants+` (
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
			UNIQUE (session, seq))`)
	if err := setup(ctx, db, d, stmts); err != nil {
		return nil, fmt.Errorf("create autonomy tables: %w", err)
	}
	// The clock's time, its tick, and its tick with the session's time
	// raised to it (after the session's row is locked).
	clockNow := "SELECT now FROM " + clock + " WHERE id = 1"
	tick := "UPDATE " + clock + " SET now = now + 1 WHERE id = 1 RETURNING now"
	tickCTE := tick
	tickBare, tickBareGroup := "", ""
	if d.ClockSequence {
		if err := migrateClock(ctx, db, d, schema); err != nil {
			return nil, fmt.Errorf("create autonomy tables: %w", err)
		}
		seq := schema + "." + ClockSequence
		clockNow = "SELECT last_value AS now FROM " + seq
		tick = "SELECT nextval('" + seq + "')"
		tickCTE = "SELECT nextval('" + seq + "') AS now"
		// CASE evaluates nextval only when the count is 0.
		tickBare = "SELECT CASE WHEN g.n = 0 THEN nextval('" + seq + "') END, s.now, g.n FROM (SELECT count(*) AS n FROM " +
			grants + " WHERE session = $1) g LEFT JOIN " + sessions + " s ON s.session = $1"
		// The same for each session of an array, in one statement: each
		// row its own count and, when 0, its own nextval.
		tickBareGroup = "SELECT u.i, CASE WHEN g.n = 0 THEN nextval('" + seq + "') END, s.now, g.n" +
			" FROM unnest(CAST($1 AS text[])) WITH ORDINALITY AS u(session, i)" +
			" CROSS JOIN LATERAL (SELECT count(*) AS n FROM " + grants + " r WHERE r.session = u.session) g" +
			" LEFT JOIN " + sessions + " s ON s.session = u.session"
	}
	cols := "grant_id, seq, tools, tier, approver, granted, questions, max_questions, max_age"
	gs := &GrantStore{
		closer: closer{owns: owns, db: db},
		db:     db, d: d,
		// One statement, committed on its own: on the row, the row
		// locked, moved and read (the lock is held for the statement and
		// its commit); on the sequence, nextval.
		qTick: tick,
		// Writing the session's row takes its lock and reads it.
		qTouch:      "UPDATE " + sessions + " SET now = now WHERE session = $1 RETURNING now",
		qClock:      clockNow,
		qNewSession: "INSERT INTO " + sessions + " (session, now) SELECT $1, now FROM (" + clockNow + ") c ON CONFLICT DO NOTHING",
		qSession:    "SELECT now FROM " + sessions + " WHERE session = $1",
		qSetSession: "UPDATE " + sessions + " SET now = $2 WHERE session = $1",
		qGrants:     "SELECT " + cols + " FROM " + grants + " WHERE session = $1 ORDER BY seq",
		qInsert:     "INSERT INTO " + grants + " (session, " + cols + ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
		qDelete:     "DELETE FROM " + grants + " WHERE session = $1 AND grant_id = $2",
		qCount:      "UPDATE " + grants + " SET questions = $3 WHERE session = $1 AND grant_id = $2",
		qLock: "INSERT INTO " + sessions + " AS s (session, now) SELECT $1, now FROM (" + clockNow +
			") c ON CONFLICT (session) DO UPDATE SET now = s.now RETURNING s.now",
		qTickSession: "WITH c AS (" + tickCTE + ") UPDATE " + sessions +
			" AS s SET now = GREATEST(s.now, c.now) FROM c WHERE s.session = $1 RETURNING c.now, s.now",
		qTickBare:      tickBare,
		qTickBareGroup: tickBareGroup,
	}
	gs.tickDone = sync.NewCond(&gs.tmu)
	return gs, nil
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
	_, err := s.update(ctx, session, false, func(_ int64, st *autonomy.SessionState) error { return fn(st) })
	if err != nil {
		return fmt.Errorf("update grants: %w", err)
	}
	return nil
}

// TickUpdate implements autonomy.Ledger: Update's transaction, with the
// clock's row moved by one (and locked) after the session's row is
// locked and before fn runs. The locks are taken in one order, the
// session's row then the clock's, by every transaction that takes both;
// Tick takes only the clock's, Update only the session's.
func (s *GrantStore) TickUpdate(ctx context.Context, session string, fn func(int64, *autonomy.SessionState) error) (int64, error) {
	if err := s.check("tick and update grants"); err != nil {
		return 0, err
	}
	now, err := s.update(ctx, session, true, fn)
	if err != nil {
		return 0, fmt.Errorf("tick and update grants: %w", err)
	}
	return now, nil
}

// update is Update, and TickUpdate when tick is set (fn then hears the
// new time; without tick, 0). It returns the new time.
func (s *GrantStore) update(ctx context.Context, session string, tick bool, fn func(int64, *autonomy.SessionState) error) (int64, error) {
	var now int64
	err := inTx(ctx, s.db, s.d, &s.mu, func(tx *sql.Tx) error {
		var st autonomy.SessionState
		if s.d.WritableCTE {
			// One statement: the session's row created at the clock's
			// time, or locked, and read.
			if err := tx.QueryRowContext(ctx, s.qLock, session).Scan(&st.Now); err != nil {
				return err
			}
		} else {
			// A new session starts at the clock's time.
			if _, err := tx.ExecContext(ctx, s.qNewSession, session); err != nil {
				return err
			}
			// Writing the session's row first takes its lock in every
			// database (DuckDB, without FOR UPDATE, meets a concurrent
			// Update of the session as a conflict, retried), and reads
			// it.
			if err := tx.QueryRowContext(ctx, s.qTouch, session).Scan(&st.Now); err != nil {
				return err
			}
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
		switch {
		case tick && s.d.WritableCTE:
			// The clock's row, after the session's (its lock is held
			// from here to the commit, so last), moved by one, and the
			// session's time raised to it, in one statement.
			if err := tx.QueryRowContext(ctx, s.qTickSession, session).Scan(&now, &before); err != nil {
				return err
			}
		case tick:
			// The clock's row, after the session's: its lock is held
			// from here to the commit.
			if err := tx.QueryRowContext(ctx, s.qTick).Scan(&now); err != nil {
				return err
			}
		}
		if err := fn(now, &st); err != nil {
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
	return now, err
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

// TickBare implements autonomy.BareTicker: with Dialect.ClockSequence one
// statement, which reads the session's time and its count of grants and
// calls nextval only when the count is 0 (one snapshot, then the tick:
// as Load then Tick, in one round trip and one commit that writes no
// row); otherwise Load, then Tick when the session holds no grant.
func (s *GrantStore) TickBare(ctx context.Context, session string) (int64, autonomy.SessionState, bool, error) {
	if err := s.check("tick bare session"); err != nil {
		return 0, autonomy.SessionState{}, false, err
	}
	if s.qTickBare == "" {
		st, err := s.Load(ctx, session)
		if err != nil || len(st.Grants) != 0 {
			return 0, autonomy.SessionState{}, false, err
		}
		now, err := s.Tick(ctx)
		if err != nil {
			return 0, autonomy.SessionState{}, false, err
		}
		return now, st, true, nil
	}
	if err := ctx.Err(); err != nil {
		return 0, autonomy.SessionState{}, false, fmt.Errorf("tick bare session: %w", err)
	}
	t := s.tickBareGrouped(ctx, session)
	if t.err != nil {
		return 0, autonomy.SessionState{}, false, fmt.Errorf("tick bare session: %w", t.err)
	}
	if t.grants != 0 {
		return 0, autonomy.SessionState{}, false, nil
	}
	if !t.tick.Valid {
		return 0, autonomy.SessionState{}, false, fmt.Errorf("tick bare session: no time given")
	}
	return t.tick.Int64, autonomy.SessionState{Now: t.at.Int64}, true, nil
}

// tickBareGrouped queues session's bare tick and returns it done: run
// by the first caller that finds no group's statement running, with
// every call queued by then (up to maxTickGroup), while calls made
// meanwhile wait for the next group. So each call's statement begins
// after the call did, and its tick is after every tick that completed
// before the call began, as Tick's; the times of one group are distinct
// and none completed before another began. A group's statement runs
// without its caller's cancellation (the others wait on it), capped at
// autonomy.LedgerTimeout; an error fails every call of the group.
func (s *GrantStore) tickBareGrouped(ctx context.Context, session string) *bareTick {
	t := &bareTick{session: session}
	s.tmu.Lock()
	defer s.tmu.Unlock()
	s.tickQueue = append(s.tickQueue, t)
	for !t.done {
		if s.ticking {
			s.tickDone.Wait()
			continue
		}
		s.tickGroup(context.WithoutCancel(ctx))
	}
	return t
}

// tickGroup runs the first queued bare ticks in one statement; s.tmu is
// held on entry and on return, and released during the statement.
func (s *GrantStore) tickGroup(ctx context.Context) {
	n := min(len(s.tickQueue), maxTickGroup)
	group := s.tickQueue[:n:n]
	s.tickQueue = append([]*bareTick(nil), s.tickQueue[n:]...)
	s.ticking = true
	s.tmu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, autonomy.LedgerTimeout)
	// The statement reads and ticks the clock, which a lost connection
	// may leave with a time unused, never given twice: it is tried again
	// on another connection, at most once more than the pool holds
	// (KindLost).
	err := s.runTickGroup(ctx, group)
	for try := 1; err != nil && s.d.Classify(err) == KindLost && ctx.Err() == nil && try <= s.db.Stats().OpenConnections; try++ {
		err = s.runTickGroup(ctx, group)
	}
	cancel()
	s.tmu.Lock()
	s.ticking = false
	for _, t := range group {
		t.done = true
		if err != nil {
			t.err = err
		}
	}
	s.tickDone.Broadcast()
}

// runTickGroup reads and ticks group's sessions: one alone by
// qTickBare (the statement every call made before grouping), several by
// qTickBareGroup, each row matched to its call by its ordinal.
func (s *GrantStore) runTickGroup(ctx context.Context, group []*bareTick) error {
	if len(group) == 1 {
		t := group[0]
		return s.db.QueryRowContext(ctx, s.qTickBare, t.session).Scan(&t.tick, &t.at, &t.grants)
	}
	sessions := make([]string, len(group))
	for i, t := range group {
		sessions[i] = t.session
	}
	rows, err := s.db.QueryContext(ctx, s.qTickBareGroup, sessions)
	if err != nil {
		return err
	}
	defer rows.Close()
	seen := make([]bool, len(group))
	n := 0
	for rows.Next() {
		var i int64
		var r bareTick
		if err := rows.Scan(&i, &r.tick, &r.at, &r.grants); err != nil {
			return err
		}
		if i < 1 || i > int64(len(group)) || seen[i-1] {
			return fmt.Errorf("grouped tick: row for session %d of %d unexpected", i, len(group))
		}
		seen[i-1] = true
		t := group[i-1]
		t.tick, t.at, t.grants = r.tick, r.at, r.grants
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n != len(group) {
		return fmt.Errorf("grouped tick: %d rows for %d sessions", n, len(group))
	}
	return nil
}
