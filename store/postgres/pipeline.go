package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/provenant/provenant/shape"
)

var _ shape.Pipeliner = (*Pipeliner)(nil)

// Pipeliner runs a snapshot's queries in one round trip: BEGIN, the
// queries and COMMIT sent together as one pgx batch (the extended
// protocol's pipelining, one Sync at the end), on one connection of the
// pool. A statement a connection has not run before is described first
// (pgx's statement cache), a second round trip the first time only.
//
// At most PipelinerOptions.MaxInFlight pipelines are in the database at
// once; the callers past them wait their turn in arrival order (first
// come, first served) or until their context ends. Sixteen point
// questions at once on two cores otherwise keep sixteen PostgreSQL
// backends runnable beside the engine: the kernel shares the cores among
// them all, each backend's cache goes cold between its turns, and a
// waiting connection is handed to a random waiter (database/sql), so that
// some calls wait many turns. Through a gate, on a quiet machine, a
// window's 95th percentile fell by a quarter to a third at 1,000,000 and
// 10,000,000 events; one pipeline per core cost point questions a third
// of their throughput, two per core less (within the rounds' noise)
// (bench/results/pgpoint-gate-quiet.md; under other load,
// bench/results/pgpoint-gate.md). A negative MaxInFlight removes the
// gate.
type Pipeliner struct {
	db   *sql.DB
	gate *gate // nil: no bound
	// generic is the statement that makes a point call's statements use
	// their generic plans (genericPlans); noGeneric is set once the
	// database has refused it as an unknown setting (an engine of the
	// PostgreSQL wire without plan_cache_mode: PostgreSQL before 12,
	// CockroachDB before 23.2), after which it is not sent.
	generic   string
	noGeneric atomic.Bool
}

// PipelinerOptions are NewPipeliner's options; nil means the defaults.
type PipelinerOptions struct {
	// MaxInFlight bounds the pipelines in the database at once: 0 is
	// DefaultMaxInFlight, a negative number no bound.
	MaxInFlight int
}

// DefaultMaxInFlight is the pipelines a Pipeliner lets into the database
// at once by default: two per core the Go runtime uses
// (runtime.GOMAXPROCS), so that while one pipeline's rows travel or are
// read, another keeps the core busy.
func DefaultMaxInFlight() int { return 2 * runtime.GOMAXPROCS(0) }

// NewPipeliner returns the Pipeliner of db (Open), for shape.Source; o
// may be nil.
func NewPipeliner(db *sql.DB, o *PipelinerOptions) *Pipeliner {
	n := DefaultMaxInFlight()
	if o != nil && o.MaxInFlight != 0 {
		n = o.MaxInFlight
	}
	p := &Pipeliner{db: db, generic: genericPlans}
	if n > 0 {
		p.gate = newGate(n)
	}
	return p
}

// Pipeline runs queries in one read transaction with the options opts
// (nil: PostgreSQL's default isolation, read-write) and returns their
// rows.
func (p *Pipeliner) Pipeline(ctx context.Context, opts *sql.TxOptions, queries []shape.Stmt) ([]shape.Rowset, error) {
	generic := !p.noGeneric.Load() && slices.ContainsFunc(queries, func(q shape.Stmt) bool { return q.Generic })
	out, err := p.pipeline(ctx, opts, queries, generic)
	if generic && isUnknownSetting(err) {
		// The database has no plan_cache_mode: its own plans, from now on.
		p.noGeneric.Store(true)
		out, err = p.pipeline(ctx, opts, queries, false)
	}
	return out, err
}

// isUnknownSetting reports whether err is the database's refusal of a
// setting it does not have (SQLSTATE 42704, undefined_object:
// "unrecognized configuration parameter", on PostgreSQL and CockroachDB).
func isUnknownSetting(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42704"
}

// pipeline is Pipeline, with generic plans for its statements when
// generic.
func (p *Pipeliner) pipeline(ctx context.Context, opts *sql.TxOptions, queries []shape.Stmt, generic bool) ([]shape.Rowset, error) {
	begin, err := beginSQL(opts)
	if err != nil {
		return nil, err
	}
	if p.gate != nil {
		if err := p.gate.enter(ctx); err != nil {
			return nil, fmt.Errorf("run pipeline: %w", err)
		}
		defer p.gate.leave()
	}
	conn, err := p.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("run pipeline: %w", err)
	}
	defer conn.Close()
	var out []shape.Rowset
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return errors.New("not a pgx connection")
		}
		c := sc.Conn()
		b := &pgx.Batch{}
		b.Queue(begin)
		pre := 1
		if generic {
			// The transaction's statements keep one plan each on the
			// connection (shape.Stmt.Generic), instead of PostgreSQL's
			// choice, which can plan one anew on every call.
			b.Queue(p.generic)
			pre++
		}
		for _, q := range queries {
			b.Queue(q.SQL, q.Args...)
		}
		b.Queue("COMMIT")
		out, err = readBatch(c.SendBatch(ctx, b), c.TypeMap(), pre, len(queries))
		if err != nil && !c.IsClosed() && c.PgConn().TxStatus() != 'I' {
			// A failed query leaves the transaction open and aborted:
			// end it before the connection goes back to the pool.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
			defer cancel()
			if _, rerr := c.Exec(rctx, "ROLLBACK"); rerr != nil {
				c.Close(rctx) // the pool drops a closed connection
			}
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("run pipeline: %w", err)
	}
	return out, nil
}

// rollbackTimeout bounds the ROLLBACK after a failed pipeline.
const rollbackTimeout = 5 * time.Second

// genericPlans makes the statements after it in its transaction use
// their generic plans (SET LOCAL: until COMMIT).
const genericPlans = "SET LOCAL plan_cache_mode = force_generic_plan"

// readBatch reads a batch of pre statements (BEGIN and the settings
// after it), n queries and COMMIT.
func readBatch(br pgx.BatchResults, m *pgtype.Map, pre, n int) (_ []shape.Rowset, err error) {
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	for range pre {
		if _, err := br.Exec(); err != nil {
			return nil, fmt.Errorf("begin: %w", err)
		}
	}
	out := make([]shape.Rowset, n)
	for i := range n {
		rows, err := br.Query()
		if err != nil {
			return nil, err
		}
		set, err := readRows(rows, m)
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
		if err != nil {
			return nil, err
		}
		out[i] = set
	}
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return out, nil
}

// readRows reads one query's rows as pgx's Rows.Values decodes them
// (each column by its type's codec, then driverValue), with fewer
// allocations: the rows' values are cut from shared blocks, and a text
// column's repeated values (a window's zone and status on every row)
// share one string.
func readRows(rows pgx.Rows, m *pgtype.Map) (shape.Rowset, error) {
	fields := rows.FieldDescriptions()
	ncol := len(fields)
	codecs := make([]pgtype.Codec, ncol)
	interns := make([]interner, ncol)
	for j, f := range fields {
		if t, ok := m.TypeForOID(f.DataTypeOID); ok {
			codecs[j] = t.Codec
		}
		switch f.DataTypeOID {
		case pgtype.TextOID, pgtype.VarcharOID:
			interns[j].text = true
		}
	}
	var set shape.Rowset
	var block []any
	blockRows := 8 // doubled with each block, up to 512 rows
	for rows.Next() {
		raw := rows.RawValues()
		if len(raw) != ncol {
			return nil, fmt.Errorf("read rows: %d values for %d columns", len(raw), ncol)
		}
		if len(block) < ncol {
			block = make([]any, ncol*blockRows)
			blockRows = min(2*blockRows, 512)
		}
		vals := block[:ncol:ncol]
		block = block[ncol:]
		for j, b := range raw {
			var v any
			var err error
			switch {
			case b == nil:
				v = nil
			case interns[j].text:
				v = interns[j].intern(b)
			case codecs[j] != nil:
				if v, err = codecs[j].DecodeValue(m, fields[j].DataTypeOID, fields[j].Format, b); err == nil {
					v, err = driverValue(v)
				}
			default:
				// An unknown type: what Values gives, its text or bytes.
				if fields[j].Format == pgtype.TextFormatCode {
					v = string(b)
				} else {
					v = slices.Clone(b)
				}
			}
			if err != nil {
				return nil, fmt.Errorf("read rows: column %s: %w", fields[j].Name, err)
			}
			vals[j] = v
		}
		set = append(set, vals)
	}
	return set, nil
}

// internLimit is how many distinct values a text column's rows share
// strings for; past it, each new value is a string of its own.
const internLimit = 64

// internMisses is how many values past the intern limit a column may
// miss its shared strings before it stops looking them up (a column of
// keys, each of its own).
const internMisses = 4 * internLimit

// interner shares a text column's repeated values.
type interner struct {
	text bool // the column is text: intern its values
	// first is the column's first value; seen, made at the second (a
	// point call's queries return one row each), the values shared.
	first  any
	seen   map[string]any
	misses int
}

// intern returns b as a string in an interface, the one already made
// for an equal value of the column when there is one (a string put in an
// interface is a second allocation: shared too).
func (in *interner) intern(b []byte) any {
	if in.first == nil {
		var v any = string(b)
		in.first = v
		return v
	}
	if in.seen == nil {
		s := in.first.(string)
		in.seen = map[string]any{s: in.first}
	}
	if in.misses < internMisses {
		if v, ok := in.seen[string(b)]; ok {
			return v
		}
	}
	s := string(b)
	var v any = s
	if len(in.seen) < internLimit {
		in.seen[s] = v
	} else {
		in.misses++
	}
	return v
}

// driverValue turns a value pgx decoded into what database/sql's
// drivers give: int64, float64, bool, []byte, string, time.Time or nil.
func driverValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, int64, float64, bool, []byte, string:
		return x, nil
	case int32:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case float32:
		return float64(x), nil
	case driver.Valuer:
		return x.Value()
	}
	return v, nil // time.Time, and what a destination may take as is
}

// beginSQL renders the BEGIN of a transaction with opts.
func beginSQL(opts *sql.TxOptions) (string, error) {
	s := "BEGIN"
	if opts == nil {
		return s, nil
	}
	switch opts.Isolation {
	case sql.LevelDefault:
	case sql.LevelReadCommitted:
		s += " ISOLATION LEVEL READ COMMITTED"
	case sql.LevelRepeatableRead, sql.LevelSnapshot:
		s += " ISOLATION LEVEL REPEATABLE READ"
	case sql.LevelSerializable:
		s += " ISOLATION LEVEL SERIALIZABLE"
	default:
		return "", fmt.Errorf("run pipeline: isolation level %s is not supported", opts.Isolation)
	}
	if opts.ReadOnly {
		s += " READ ONLY"
	}
	return s, nil
}

var _ shape.Digester = (*Pipeliner)(nil)

// DigestSQL renders shape.Digest of the text column col in SQL: SHA-256
// over the values, each followed by a newline, in bytewise order
// (COLLATE "C", in a UTF8 database the order of Go's string sort), as
// lowercase hex. string_agg with ORDER BY, sha256 (PostgreSQL 11),
// convert_to and encode.
func (p *Pipeliner) DigestSQL(col string) string {
	return "encode(sha256(convert_to(string_agg(" + col + " || chr(10), '' ORDER BY " + p.KeyOrder(col) + "), 'UTF8')), 'hex')"
}

// KeyOrder orders the text column col bytewise.
func (p *Pipeliner) KeyOrder(col string) string { return col + ` COLLATE "C"` }

// WithoutSQLDigest returns p without its shape.Digester capability: a
// window past the provenance limit ships every key of its two
// formulations and Go computes their count and digest, as without a
// pipeline. The engine's sources use it: on this machine the digest in
// SQL measured slower than shipping the keys (bench/results/pg-pipeline.benchstat:
// a week's window 130 ms with it, 84 ms without; random 1–24 h windows
// at 1,000,000 events p50 10.1 ms with it, 7.8 ms without), so it stays
// an option, tested (TestDigestSQL, TestPipeline_OneRoundTrip), until a
// quiet machine says otherwise.
func (p *Pipeliner) WithoutSQLDigest() shape.Pipeliner { return struct{ shape.Pipeliner }{p} }
