package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/provenant/provenant/register"
)

// RegisterStore is a register.Store in two tables of a schema:
// register_head (one row: the record count and the last hash) and
// register_records (idx, id, prev, hash, and the record's canonical JSON
// line). prev is UNIQUE: two records can never follow one head, so the
// chain cannot fork even past the head row's lock.
type RegisterStore struct {
	closer
	db *sql.DB
	d  Dialect
	mu sync.Mutex

	qHead, qInsert, qMove, qLen, qBatch string
}

// NewRegisterStore creates the schema and tables if missing and returns
// the store; with owns, its Close closes db too.
func NewRegisterStore(ctx context.Context, db *sql.DB, d Dialect, schema string, owns bool) (*RegisterStore, error) {
	schema, err := CheckSchema(schema)
	if err != nil {
		return nil, err
	}
	head, recs := schema+".register_head", schema+".register_records"
	err = setup(ctx, db, d, []string{
		"CREATE SCHEMA IF NOT EXISTS " + schema,
		"CREATE TABLE IF NOT EXISTS " + head + " (id INTEGER PRIMARY KEY CHECK (id = 1), len BIGINT NOT NULL, hash TEXT NOT NULL)",
		"INSERT INTO " + head + " (id, len, hash) VALUES (1, 0, '" + register.GenesisHash + "') ON CONFLICT DO NOTHING",
		"CREATE TABLE IF NOT EXISTS " + recs + ` (
			idx BIGINT PRIMARY KEY,
			id TEXT NOT NULL UNIQUE,
			prev TEXT NOT NULL UNIQUE,
			hash TEXT NOT NULL,
			line TEXT NOT NULL)`,
	})
	if err != nil {
		return nil, fmt.Errorf("create register tables: %w", err)
	}
	return &RegisterStore{
		closer: closer{owns: owns, db: db},
		db:     db, d: d,
		qHead:   "SELECT len, hash FROM " + head + " WHERE id = 1" + d.ForUpdate,
		qInsert: "INSERT INTO " + recs + " (idx, id, prev, hash, line) VALUES ($1, $2, $3, $4, $5)",
		qMove:   "UPDATE " + head + " SET len = $1, hash = $2 WHERE id = 1",
		qLen:    "SELECT len FROM " + head + " WHERE id = 1",
		qBatch:  "SELECT idx, line FROM " + recs + " WHERE idx >= $1 AND idx < $2 ORDER BY idx LIMIT " + fmt.Sprint(scanBatch),
	}, nil
}

// Append stores r after the head if r.Prev is the head's hash, in one
// transaction that first locks the head row; otherwise it stores nothing
// and returns an error wrapping register.ErrStale. nil means committed.
func (s *RegisterStore) Append(ctx context.Context, r register.Record) error {
	if err := s.check("append record"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	line, err := register.Canonical(r)
	if err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	err = inTx(ctx, s.db, s.d, &s.mu, func(tx *sql.Tx) error {
		var n int64
		var hash string
		if err := tx.QueryRowContext(ctx, s.qHead).Scan(&n, &hash); err != nil {
			return err
		}
		if r.Prev != hash {
			return errStop{register.ErrStale}
		}
		if _, err := tx.ExecContext(ctx, s.qInsert, n, r.ID, r.Prev, r.Hash, string(line)); err != nil {
			if s.d.Classify(err) == KindUnique {
				// A concurrent append took r's place (where the head
				// row is not locked): the head moved.
				return errStop{register.ErrStale}
			}
			return err
		}
		_, err := tx.ExecContext(ctx, s.qMove, n+1, r.Hash)
		return err
	})
	if err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	return nil
}

// AppendLocked locks the head row, calls link with the head, and stores
// the record link returns after it, in one transaction; link runs again
// if the transaction meets a conflict and is tried anew. A record whose
// Prev is not the head's hash is refused with register.ErrStale.
func (s *RegisterStore) AppendLocked(ctx context.Context, link func(context.Context, register.Head) (register.Record, error)) error {
	if err := s.check("append record"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	var linkErr error
	err := inTx(ctx, s.db, s.d, &s.mu, func(tx *sql.Tx) error {
		var n int64
		var hash string
		if err := tx.QueryRowContext(ctx, s.qHead).Scan(&n, &hash); err != nil {
			return err
		}
		r, err := link(ctx, register.Head{Len: int(n), Hash: hash})
		if err != nil {
			linkErr = err
			return errStop{err}
		}
		return s.insert(ctx, tx, n, hash, r)
	})
	if linkErr != nil {
		return linkErr
	}
	if err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	return nil
}

// insert stores r at index n after a head whose hash is hash, and moves
// the head.
func (s *RegisterStore) insert(ctx context.Context, tx *sql.Tx, n int64, hash string, r register.Record) error {
	if r.Prev != hash {
		return errStop{register.ErrStale}
	}
	line, err := register.Canonical(r)
	if err != nil {
		return errStop{err}
	}
	if _, err := tx.ExecContext(ctx, s.qInsert, n, r.ID, r.Prev, r.Hash, string(line)); err != nil {
		if s.d.Classify(err) == KindUnique {
			// A concurrent append took r's place (where the head row
			// is not locked): the head moved.
			return errStop{register.ErrStale}
		}
		return err
	}
	_, err = tx.ExecContext(ctx, s.qMove, n+1, r.Hash)
	return err
}

// Len returns how many records the store holds.
func (s *RegisterStore) Len(ctx context.Context) (int, error) {
	if err := s.check("count records"); err != nil {
		return 0, err
	}
	var n int64
	if err := s.db.QueryRowContext(ctx, s.qLen).Scan(&n); err != nil {
		return 0, fmt.Errorf("count records: %w", err)
	}
	return int(n), nil
}

// Scan calls fn with each record from index from on, up to the head as
// it was when Scan started, reading a batch at a time. A missing index is
// ErrGap; a line that is not a record's canonical JSON is a
// *register.DecodeError.
func (s *RegisterStore) Scan(ctx context.Context, from int, fn func(int, register.Record) error) error {
	if err := s.check("scan register"); err != nil {
		return err
	}
	end, err := s.Len(ctx)
	if err != nil {
		return fmt.Errorf("scan register: %w", err)
	}
	i := max(from, 0)
	for i < end {
		type row struct {
			idx  int64
			line string
		}
		var batch []row
		rows, err := s.db.QueryContext(ctx, s.qBatch, i, end)
		if err != nil {
			return fmt.Errorf("scan register: %w", err)
		}
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.idx, &r.line); err != nil {
				rows.Close()
				return fmt.Errorf("scan register: %w", err)
			}
			batch = append(batch, r)
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("scan register: %w", err)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("scan register: %w", err)
		}
		if len(batch) == 0 {
			return fmt.Errorf("scan register: %w: record %d missing", ErrGap, i)
		}
		for _, r := range batch {
			if r.idx != int64(i) {
				return fmt.Errorf("scan register: %w: record %d missing", ErrGap, i)
			}
			rec, err := register.NewDecoder(bytes.NewReader(append([]byte(r.line), '\n'))).Next()
			if err != nil {
				return fmt.Errorf("scan register: record %d: %w", i, err)
			}
			if err := fn(i, rec); err != nil {
				return err
			}
			i++
		}
	}
	return nil
}
