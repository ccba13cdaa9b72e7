package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
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
	events, qHeadN                              string
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
		db:     db, d: d, events: events,
		qHeadN: "UPDATE " + head + " SET pos = pos + $1 WHERE id = 1 RETURNING pos",
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
	line, err := eventlog.Encode(e)
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

// The bounds of one statement of AppendBatch: rows of a multi-row
// INSERT, ids of one check.
const (
	insertRows = 256
	checkIDs   = 1000
)

// AppendBatch stores events at the next positions in one transaction:
// the head advanced by len(events) (which locks it), one query for the
// last event of each (run, producer) in the batch and for ids already
// stored, the checks in order (a batch may hold several events of one
// (run, producer)), then multi-row inserts. Any refusal (ErrSequence,
// ErrOrder for a duplicate id) rolls back the whole batch. nil means
// committed.
func (s *EventStore) AppendBatch(ctx context.Context, events []eventlog.Event) error {
	if err := s.check("append events"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	if len(events) == 0 {
		return nil
	}
	type key struct{ run, producer string }
	var keys []key
	index := map[key]int{}
	lines := make([]string, len(events))
	for i, e := range events {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("append events: event %d: %w", i, err)
		}
		line, err := eventlog.Encode(e)
		if err != nil {
			return fmt.Errorf("append events: event %d: %w", i, err)
		}
		lines[i] = string(line)
		k := key{e.Run, e.Producer}
		if _, ok := index[k]; !ok {
			index[k] = len(keys)
			keys = append(keys, k)
		}
	}
	err := inTx(ctx, s.db, s.d, &s.mu, func(tx *sql.Tx) error {
		var end int64
		if err := tx.QueryRowContext(ctx, s.qHeadN, len(events)).Scan(&end); err != nil {
			return err
		}
		type state struct{ seq, time int64 }
		last := make([]state, len(keys))
		taken := int64(0)
		for lo := 0; lo < len(events); lo += checkIDs {
			hi := min(lo+checkIDs, len(events))
			var q strings.Builder
			var args []any
			if lo == 0 {
				// The (run, producer)s' last events ride with the first ids.
				for i, k := range keys {
					fmt.Fprintf(&q, "(SELECT %d AS k, seq, ltime FROM %s WHERE run = $%d AND producer = $%d ORDER BY seq DESC LIMIT 1) UNION ALL ",
						i, s.events, len(args)+1, len(args)+2)
					args = append(args, k.run, k.producer)
				}
			}
			fmt.Fprintf(&q, "(SELECT -1 AS k, count(*), 0 FROM %s WHERE id IN (", s.events)
			for i, e := range events[lo:hi] {
				if i > 0 {
					q.WriteString(", ")
				}
				args = append(args, e.ID)
				fmt.Fprintf(&q, "$%d", len(args))
			}
			q.WriteString("))")
			rows, err := tx.QueryContext(ctx, q.String(), args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var k, seq, ltime int64
				if err := rows.Scan(&k, &seq, &ltime); err != nil {
					rows.Close()
					return err
				}
				if k < 0 {
					taken += seq
				} else if k < int64(len(keys)) {
					last[k] = state{seq, ltime}
				}
			}
			if err := rows.Close(); err != nil {
				return err
			}
			if err := rows.Err(); err != nil {
				return err
			}
		}
		seen := make(map[string]bool, len(events))
		for i, e := range events {
			st := &last[index[key{e.Run, e.Producer}]]
			if err := eventlog.CheckNext(e, st.seq, st.time); err != nil {
				return errStop{fmt.Errorf("event %d: %w", i, err)}
			}
			if seen[e.ID] {
				return errStop{fmt.Errorf("event %d: %w: duplicate event id", i, eventlog.ErrOrder)}
			}
			seen[e.ID] = true
			st.seq, st.time = e.Seq, e.Time
		}
		if taken > 0 {
			return errStop{fmt.Errorf("%w: duplicate event id", eventlog.ErrOrder)}
		}
		first := end - int64(len(events)) + 1
		for lo := 0; lo < len(events); lo += insertRows {
			hi := min(lo+insertRows, len(events))
			var q strings.Builder
			q.WriteString("INSERT INTO " + s.events + " (pos, id, run, producer, seq, ltime, line) VALUES ")
			args := make([]any, 0, 7*(hi-lo))
			for i := lo; i < hi; i++ {
				e := events[i]
				if i > lo {
					q.WriteString(", ")
				}
				n := len(args)
				fmt.Fprintf(&q, "($%d, $%d, $%d, $%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4, n+5, n+6, n+7)
				args = append(args, first+int64(i), e.ID, e.Run, e.Producer, e.Seq, e.Time, lines[i])
			}
			if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("append events: %w", err)
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
