package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/provenant/provenant/eventlog"
)

// EventStore is an eventlog.Store in two tables of a schema:
// eventlog_head (one row: the last position) and eventlog_events (pos,
// id, run, producer, seq, logical time, and the event's JSON line).
type EventStore struct {
	closer
	db *sql.DB
	d  Dialect
	mu sync.Mutex

	qHead, qLast, qCheck, qInsert, qLen, qBatch string
}

// NewEventStore creates the schema and tables if missing and returns the
// store; with owns, its Close closes db too.
func NewEventStore(ctx context.Context, db *sql.DB, d Dialect, schema string, owns bool) (*EventStore, error) {
	schema, err := CheckSchema(schema)
	if err != nil {
		return nil, err
	}
	head, events := schema+".eventlog_head", schema+".eventlog_events"
	err = setup(ctx, db, d, []string{
		"CREATE SCHEMA IF NOT EXISTS " + schema,
		"CREATE TABLE IF NOT EXISTS " + head + " (id INTEGER PRIMARY KEY CHECK (id = 1), pos BIGINT NOT NULL)",
		"INSERT INTO " + head + " (id, pos) VALUES (1, 0) ON CONFLICT DO NOTHING",
		"CREATE TABLE IF NOT EXISTS " + events + ` (
			pos BIGINT PRIMARY KEY,
			id TEXT NOT NULL UNIQUE,
			run TEXT NOT NULL,
			producer TEXT NOT NULL,
			seq BIGINT NOT NULL,
			ltime BIGINT NOT NULL,
			line TEXT NOT NULL,
			UNIQUE (run, producer, seq))`,
	})
	if err != nil {
		return nil, fmt.Errorf("create event tables: %w", err)
	}
	return &EventStore{
		closer: closer{owns: owns, db: db},
		db:     db, d: d,
		// Advancing the head locks its row (a concurrent append waits on
		// PostgreSQL, conflicts and retries on DuckDB) and gives the
		// position in one statement; a refused append rolls it back.
		qHead: "UPDATE " + head + " SET pos = pos + 1 WHERE id = 1 RETURNING pos",
		qLast: "SELECT seq, ltime FROM " + events + " WHERE run = $1 AND producer = $2 ORDER BY seq DESC LIMIT 1",
		// The producer's last event and whether the id is taken, in one
		// round trip.
		qCheck: "SELECT l.seq, l.ltime, (SELECT count(*) FROM " + events + " WHERE id = $3) FROM (SELECT 1 AS one) o LEFT JOIN (" +
			"SELECT seq, ltime FROM " + events + " WHERE run = $1 AND producer = $2 ORDER BY seq DESC LIMIT 1) l ON true",
		qInsert: "INSERT INTO " + events + " (pos, id, run, producer, seq, ltime, line) VALUES ($1, $2, $3, $4, $5, $6, $7)",
		qLen:    "SELECT pos FROM " + head + " WHERE id = 1",
		qBatch:  "SELECT pos, run, producer, seq, line FROM " + events + " WHERE pos > $1 AND pos <= $2 ORDER BY pos LIMIT " + fmt.Sprint(scanBatch),
	}, nil
}

// Append stores e at the next position in one transaction that first
// advances the head row, which locks it; it refuses (ErrSequence) an event that does not
// follow its (run, producer)'s last one and (ErrOrder) an id already
// stored. nil means committed.
func (s *EventStore) Append(ctx context.Context, e eventlog.Event) error {
	if err := s.check("append event"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	if err := e.Validate(); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	err = inTx(ctx, s.db, s.d, &s.mu, func(tx *sql.Tx) error {
		var pos int64
		if err := tx.QueryRowContext(ctx, s.qHead).Scan(&pos); err != nil {
			return err
		}
		var seq, ltime sql.NullInt64
		var n int
		if err := tx.QueryRowContext(ctx, s.qCheck, e.Run, e.Producer, e.ID).Scan(&seq, &ltime, &n); err != nil {
			return err
		}
		if err := eventlog.CheckNext(e, seq.Int64, ltime.Int64); err != nil {
			return errStop{err}
		}
		if n > 0 {
			return errStop{fmt.Errorf("%w: duplicate event id", eventlog.ErrOrder)}
		}
		_, err := tx.ExecContext(ctx, s.qInsert, pos, e.ID, e.Run, e.Producer, e.Seq, e.Time, string(line))
		return err
	})
	if err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	return nil
}

// Last returns the seq and logical time of the last stored event of
// (run, producer), 0 and 0 when there is none: what a writer sharing the
// producer with other processes reads before building its next event.
func (s *EventStore) Last(ctx context.Context, run, producer string) (seq, time int64, err error) {
	if err := s.check("read last event"); err != nil {
		return 0, 0, err
	}
	err = s.db.QueryRowContext(ctx, s.qLast, run, producer).Scan(&seq, &time)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read last event: %w", err)
	}
	return seq, time, nil
}

// Len returns how many events the store holds.
func (s *EventStore) Len(ctx context.Context) (int64, error) {
	if err := s.check("count events"); err != nil {
		return 0, err
	}
	var n int64
	if err := s.db.QueryRowContext(ctx, s.qLen).Scan(&n); err != nil {
		return 0, fmt.Errorf("count events: %w", err)
	}
	return n, nil
}

// Scan calls fn for every event committed when it starts, in append
// order, reading a batch at a time. A missing position is ErrGap; a line
// that does not decode, or whose run, producer or seq differ from its
// row's, is eventlog.ErrCorrupt.
func (s *EventStore) Scan(ctx context.Context, fn func(eventlog.Event) error) error {
	if err := s.check("scan events"); err != nil {
		return err
	}
	end, err := s.Len(ctx)
	if err != nil {
		return fmt.Errorf("scan events: %w", err)
	}
	var pos int64
	for pos < end {
		type row struct {
			pos, seq            int64
			run, producer, line string
		}
		var batch []row
		rows, err := s.db.QueryContext(ctx, s.qBatch, pos, end)
		if err != nil {
			return fmt.Errorf("scan events: %w", err)
		}
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.pos, &r.run, &r.producer, &r.seq, &r.line); err != nil {
				rows.Close()
				return fmt.Errorf("scan events: %w", err)
			}
			batch = append(batch, r)
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("scan events: %w", err)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("scan events: %w", err)
		}
		if len(batch) == 0 {
			return fmt.Errorf("scan events: %w: position %d missing", ErrGap, pos+1)
		}
		for _, r := range batch {
			if r.pos != pos+1 {
				return fmt.Errorf("scan events: %w: position %d missing", ErrGap, pos+1)
			}
			e, err := eventlog.Decode([]byte(r.line))
			if err != nil {
				return fmt.Errorf("scan events: position %d: %w: %w", r.pos, eventlog.ErrCorrupt, err)
			}
			if e.Run != r.run || e.Producer != r.producer || e.Seq != r.seq {
				return fmt.Errorf("scan events: position %d: %w: the line differs from its row", r.pos, eventlog.ErrCorrupt)
			}
			if err := fn(e); err != nil {
				return err
			}
			pos = r.pos
		}
	}
	return nil
}
