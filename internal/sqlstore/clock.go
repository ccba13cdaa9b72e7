package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
)

// ClockSequence is the name of the sequence that holds the grant store's
// logical clock under Dialect.ClockSequence.
const ClockSequence = "autonomy_clock_seq"

// MaxClock is the largest time the clock's sequence gives: 2^53-1, the
// largest a decision record holds exactly (register.MaxTime).
const MaxClock = 1<<53 - 1

// clockComment marks the view that replaced the clock's row.
const clockComment = "provenant: the autonomy clock is the sequence " + ClockSequence +
	" (a tick is nextval); this view only reads it, so that a provenant from before the sequence, which ticks by UPDATE on this name, fails instead of keeping a clock of its own"

// ClockLockKey is the advisory lock (pg_advisory_xact_lock) that the
// clock's layout is checked and migrated under, per schema: two
// processes that open one schema at once migrate it once.
func ClockLockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("provenant autonomy_clock " + schema))
	return int64(h.Sum64())
}

// migrateClock puts the clock of schema in its sequence, in one
// transaction under the schema's advisory lock (ClockLockKey), so that
// processes opening the schema at once do it once and every other one
// finds it done:
//
//   - no autonomy_clock (a new schema): the sequence is created at 0
//     (the first tick is 1);
//   - autonomy_clock a table (the one-row clock of an earlier version):
//     the table is locked (an earlier version's ticks in flight finish
//     first, and none begins), its time read, the sequence created there
//     (the next tick is one after it) and the table dropped;
//   - autonomy_clock a view (done): nothing.
//
// In the first two cases autonomy_clock becomes a view of the sequence
// (id 1, now: the last time given), which reads as the table did but
// cannot be written: an earlier version fails on it loudly (its open
// inserts the clock's row, its tick updates it) instead of ticking a
// clock of its own beside this one. The sequence is never moved back: an
// existing one is only raised to the table's time.
func migrateClock(ctx context.Context, db *sql.DB, d Dialect, schema string) error {
	clock, seq := schema+".autonomy_clock", schema+"."+ClockSequence
	var mu sync.Mutex
	err := inTx(ctx, db, d, &mu, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", ClockLockKey(schema)); err != nil {
			return err
		}
		var kind string
		err := tx.QueryRowContext(ctx, `SELECT c.relkind::text FROM pg_catalog.pg_class c
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relname = 'autonomy_clock'`, schema).Scan(&kind)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var start int64
		switch kind {
		case "v":
			return nil
		case "":
		case "r":
			if _, err := tx.ExecContext(ctx, "LOCK TABLE "+clock+" IN ACCESS EXCLUSIVE MODE"); err != nil {
				return err
			}
			err := tx.QueryRowContext(ctx, "SELECT now FROM "+clock+" WHERE id = 1").Scan(&start)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if start < 0 || start >= MaxClock {
				return errStop{errors.New("stored time out of range")}
			}
			if _, err := tx.ExecContext(ctx, "DROP TABLE "+clock); err != nil {
				return err
			}
		default:
			return errStop{fmt.Errorf("%s.autonomy_clock is neither the clock's table nor its view", schema)}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("CREATE SEQUENCE IF NOT EXISTS %s AS BIGINT MINVALUE 0 MAXVALUE %d START WITH 0 CACHE 1 NO CYCLE",
			seq, int64(MaxClock))); err != nil {
			return err
		}
		// is_called: the time read (last_value) is the last one given.
		if _, err := tx.ExecContext(ctx, "SELECT setval('"+seq+"', GREATEST($1::BIGINT, last_value), true) FROM "+seq, start); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "CREATE VIEW "+clock+" AS SELECT 1 AS id, last_value AS now FROM "+seq); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "COMMENT ON VIEW "+clock+" IS '"+clockComment+"'"); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migrate clock: %w", err)
	}
	return nil
}
