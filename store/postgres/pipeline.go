package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
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
	p := &Pipeliner{db: db}
	if n > 0 {
		p.gate = newGate(n)
	}
	return p
}

// Pipeline runs queries in one read transaction with the options opts
// (nil: PostgreSQL's default isolation, read-write) and returns their
// rows.
func (p *Pipeliner) Pipeline(ctx context.Context, opts *sql.TxOptions, queries []shape.Stmt) ([]shape.Rowset, error) {
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
		for _, q := range queries {
			b.Queue(q.SQL, q.Args...)
		}
		b.Queue("COMMIT")
		out, err = readBatch(c.SendBatch(ctx, b), c.TypeMap(), len(queries))
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

// readBatch reads a batch of BEGIN, n queries and COMMIT.
func readBatch(br pgx.BatchResults, m *pgtype.Map, n int) (_ []shape.Rowset, err error) {
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("begin: %w", err)
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

// readRows reads one query's rows as PostgreSQL sent them (rawRows):
// every value's bytes copied once, decoded only when a formulation scans
// them, into the destination's own type.
func readRows(rows pgx.Rows, m *pgtype.Map) (shape.Rowset, error) {
	fields := rows.FieldDescriptions()
	ncol := len(fields)
	r := &rawRows{m: m, ncol: ncol, cols: make([]rawCol, ncol), perChunk: max(1, rawChunkCells/max(ncol, 1))}
	for j, f := range fields {
		r.cols[j] = rawCol{oid: f.DataTypeOID, format: f.Format, name: f.Name}
		switch f.DataTypeOID {
		case pgtype.TextOID, pgtype.VarcharOID:
			r.cols[j].text = true
		}
	}
	var buf []byte // the block being filled
	var cells []rawCell
	next := rawFirstBlock
	for rows.Next() {
		raw := rows.RawValues()
		if len(raw) != ncol {
			return nil, fmt.Errorf("read rows: %d values for %d columns", len(raw), ncol)
		}
		if r.n%r.perChunk == 0 {
			if cells != nil {
				r.cells = append(r.cells, cells)
			}
			// The first chunk grows as its rows come (a query of a few
			// rows allocates a few cells); the next are whole.
			n := r.perChunk
			if cells == nil {
				n = min(n, 8)
			}
			cells = make([]rawCell, 0, n*ncol)
		}
		for _, b := range raw {
			if b == nil {
				cells = append(cells, rawCell{n: -1})
				continue
			}
			if len(buf)+len(b) > cap(buf) {
				r.seal(buf)
				buf = make([]byte, 0, max(next, len(b)))
				next = min(2*next, rawBlockBytes)
			}
			cells = append(cells, rawCell{block: int32(len(r.blocks)), off: int32(len(buf)), n: int32(len(b))})
			buf = append(buf, b...)
		}
		r.n++
	}
	if cells != nil {
		r.cells = append(r.cells, cells)
	}
	r.seal(buf)
	return r, nil
}

// The blocks values are copied into: the first of rawFirstBlock bytes,
// each next twice the one before up to rawBlockBytes (an allocation
// each, of a small size class: no large slice grown and copied again and
// again as the rows come). rawChunkCells is the most cells a chunk holds.
const (
	rawFirstBlock = 1 << 10
	rawBlockBytes = 16 << 10
	rawChunkCells = 1 << 10
)

// rawRows is a shape.Rowset of one query's rows as PostgreSQL sent them:
// every value's bytes, one after another, in blocks, each with a copy as
// a string. A text value scans as a substring of its block's string and
// a timestamp, integer or float through pgx's scan plan into a value the
// column keeps, so that scanning a row allocates nothing. Any other
// value, or destination, is decoded as pgx's Rows.Values decodes it and
// stored as database/sql would store it (shape.Values). A window's keys
// and rows cost two copies of their bytes, where a value boxed in an
// interface per column cost an allocation each (and the collector's time
// to scan them).
type rawRows struct {
	m        *pgtype.Map
	ncol     int
	n        int
	cols     []rawCol
	perChunk int         // rows per chunk of cells
	cells    [][]rawCell // row i's are cells[i/perChunk][(i%perChunk)*ncol:][:ncol]
	blocks   []rawBlock
}

// rawBlock is a block of values' bytes, and the same as a string.
type rawBlock struct {
	buf []byte
	str string
}

// seal adds a filled block.
func (r *rawRows) seal(buf []byte) {
	if len(buf) > 0 {
		r.blocks = append(r.blocks, rawBlock{buf: buf, str: string(buf)})
	}
}

// rawCell places a value in a block; n < 0 is NULL.
type rawCell struct{ block, off, n int32 }

// rawCol is a column's type and the plans that decode it into typed
// values, made when first needed.
type rawCol struct {
	oid    uint32
	format int16
	name   string
	text   bool // text or varchar: a value's bytes are its string, in either format

	tsPlan   pgtype.ScanPlan
	ts       pgtype.Timestamp
	tstzPlan pgtype.ScanPlan
	tstz     pgtype.Timestamptz
	intPlan  pgtype.ScanPlan
	i        int64
	fltPlan  pgtype.ScanPlan
	f        float64
}

func (r *rawRows) Len() int { return r.n }

// Scan stores row i's values in dest (see shape.Rowset).
func (r *rawRows) Scan(i int, dest ...any) error {
	if i < 0 || i >= r.n {
		return errors.New("scan rows: no row")
	}
	if len(dest) != r.ncol {
		return fmt.Errorf("scan rows: %d destinations for %d columns", len(dest), r.ncol)
	}
	k := (i % r.perChunk) * r.ncol
	cells := r.cells[i/r.perChunk][k : k+r.ncol]
	for j, d := range dest {
		ok, err := r.scanFast(&r.cols[j], cells[j], d)
		if err == nil && !ok {
			err = r.scanValue(&r.cols[j], cells[j], d)
		}
		if err != nil {
			return fmt.Errorf("scan rows: column %s: %w", r.cols[j].name, err)
		}
	}
	return nil
}

// scanFast stores a value without boxing it: a NULL in a nullable
// destination, a text in a string, a timestamp in a time, an integer in
// an int64 and a float in a float64. ok is false for any other pair (and
// an infinite timestamp), which scanValue stores.
func (r *rawRows) scanFast(c *rawCol, cell rawCell, dest any) (ok bool, err error) {
	if cell.n < 0 {
		switch d := dest.(type) {
		case *sql.NullString:
			*d = sql.NullString{}
		case *sql.NullTime:
			*d = sql.NullTime{}
		case *sql.NullInt64:
			*d = sql.NullInt64{}
		case *sql.NullFloat64:
			*d = sql.NullFloat64{}
		default:
			return false, nil
		}
		return true, nil
	}
	switch d := dest.(type) {
	case *sql.NullString:
		if c.text {
			*d = sql.NullString{String: r.str(cell), Valid: true}
			return true, nil
		}
	case *string:
		if c.text {
			*d = r.str(cell)
			return true, nil
		}
	case *sql.NullTime:
		t, ok, err := r.time(c, cell)
		if ok && err == nil {
			*d = sql.NullTime{Time: t, Valid: true}
		}
		return ok, err
	case *time.Time:
		t, ok, err := r.time(c, cell)
		if ok && err == nil {
			*d = t
		}
		return ok, err
	case *sql.NullInt64:
		n, ok, err := r.int(c, cell)
		if ok && err == nil {
			*d = sql.NullInt64{Int64: n, Valid: true}
		}
		return ok, err
	case *int64:
		n, ok, err := r.int(c, cell)
		if ok && err == nil {
			*d = n
		}
		return ok, err
	case *sql.NullFloat64:
		f, ok, err := r.float(c, cell)
		if ok && err == nil {
			*d = sql.NullFloat64{Float64: f, Valid: true}
		}
		return ok, err
	case *float64:
		f, ok, err := r.float(c, cell)
		if ok && err == nil {
			*d = f
		}
		return ok, err
	}
	return false, nil
}

// bytes is a value's bytes; str is the same as a string.
func (r *rawRows) bytes(cell rawCell) []byte {
	return r.blocks[cell.block].buf[cell.off : cell.off+cell.n : cell.off+cell.n]
}

func (r *rawRows) str(cell rawCell) string {
	return r.blocks[cell.block].str[cell.off : cell.off+cell.n]
}

// time decodes a timestamp or timestamptz column's finite value.
func (r *rawRows) time(c *rawCol, cell rawCell) (time.Time, bool, error) {
	switch c.oid {
	case pgtype.TimestampOID:
		if c.tsPlan == nil {
			c.tsPlan = r.m.PlanScan(c.oid, c.format, &c.ts)
		}
		if err := c.tsPlan.Scan(r.bytes(cell), &c.ts); err != nil {
			return time.Time{}, true, err
		}
		return c.ts.Time, c.ts.InfinityModifier == pgtype.Finite, nil
	case pgtype.TimestamptzOID:
		if c.tstzPlan == nil {
			c.tstzPlan = r.m.PlanScan(c.oid, c.format, &c.tstz)
		}
		if err := c.tstzPlan.Scan(r.bytes(cell), &c.tstz); err != nil {
			return time.Time{}, true, err
		}
		return c.tstz.Time, c.tstz.InfinityModifier == pgtype.Finite, nil
	}
	return time.Time{}, false, nil
}

// int decodes an int2, int4 or int8 column's value.
func (r *rawRows) int(c *rawCol, cell rawCell) (int64, bool, error) {
	switch c.oid {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID:
		if c.intPlan == nil {
			c.intPlan = r.m.PlanScan(c.oid, c.format, &c.i)
		}
		err := c.intPlan.Scan(r.bytes(cell), &c.i)
		return c.i, true, err
	}
	return 0, false, nil
}

// float decodes a float4 or float8 column's value.
func (r *rawRows) float(c *rawCol, cell rawCell) (float64, bool, error) {
	switch c.oid {
	case pgtype.Float4OID, pgtype.Float8OID:
		if c.fltPlan == nil {
			c.fltPlan = r.m.PlanScan(c.oid, c.format, &c.f)
		}
		err := c.fltPlan.Scan(r.bytes(cell), &c.f)
		return c.f, true, err
	}
	return 0, false, nil
}

// scanValue decodes a value as pgx's Rows.Values does (its type's codec,
// then driverValue) and stores it as database/sql would.
func (r *rawRows) scanValue(c *rawCol, cell rawCell, dest any) error {
	var v any
	if cell.n >= 0 {
		b := r.bytes(cell)
		if t, ok := r.m.TypeForOID(c.oid); ok {
			var err error
			if v, err = t.Codec.DecodeValue(r.m, c.oid, c.format, b); err == nil {
				v, err = driverValue(v)
			}
			if err != nil {
				return err
			}
		} else if c.format == pgtype.TextFormatCode {
			v = string(b) // an unknown type: what Values gives, its text or bytes
		} else {
			v = slices.Clone(b)
		}
	}
	return shape.Values{{v}}.Scan(0, dest)
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
