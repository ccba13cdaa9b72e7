package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
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
// pool (with PipelinerOptions.Pools, the queries alone, on a connection
// of SnapshotPools). A statement a connection has not run before is
// described first (pgx's statement cache), a second round trip the first
// time only.
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
	// pools, when set, run the batches on the engine's snapshot without
	// BEGIN and COMMIT (SnapshotPools).
	pools *SnapshotPools
}

// PipelinerOptions are NewPipeliner's options; nil means the defaults.
type PipelinerOptions struct {
	// MaxInFlight bounds the pipelines in the database at once: 0 is
	// DefaultMaxInFlight, a negative number no bound.
	MaxInFlight int
	// Pools, when not nil, are OpenSnapshotPools' connections to the same
	// database: a batch on a read-only REPEATABLE READ snapshot (the
	// engine's) runs on them without BEGIN, SET LOCAL and COMMIT, in
	// the implicit transaction their connections' defaults make of it.
	Pools *SnapshotPools
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
	if o != nil {
		p.pools = o.Pools
	}
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
	if p.pools != nil && isSnapshot(opts) {
		pool := p.pools.Others
		if generic && p.pools.Points != nil {
			pool = p.pools.Points
		}
		return p.implicitPipeline(ctx, pool, queries)
	}
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
	var out []shape.Rowset
	err = p.onConn(ctx, p.db, func(c *pgx.Conn) error {
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
		out, err = readBatch(c.SendBatch(ctx, b), c.TypeMap(), pre, len(queries), true)
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
		return nil, err
	}
	return out, nil
}

// rollbackTimeout bounds the ROLLBACK after a failed pipeline.
const rollbackTimeout = 5 * time.Second

// genericPlans makes the statements after it in its transaction use
// their generic plans (SET LOCAL: until COMMIT).
const genericPlans = "SET LOCAL plan_cache_mode = force_generic_plan"

// readBatch reads a batch of pre statements (BEGIN and the settings
// after it), n queries and, when commit, COMMIT.
func readBatch(br pgx.BatchResults, m *pgtype.Map, pre, n int, commit bool) (_ []shape.Rowset, err error) {
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
	if !commit {
		return out, nil
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
	r := &rawRows{m: m, ncol: ncol, cols: make([]rawCol, ncol)}
	for j, f := range fields {
		r.cols[j] = rawCol{oid: f.DataTypeOID, format: f.Format, name: f.Name}
		switch f.DataTypeOID {
		case pgtype.TextOID, pgtype.VarcharOID:
			r.cols[j].text = true
		}
	}
	var cur strings.Builder // the block being filled
	var index []rawRow      // the chunk of the index being filled
	next := rawFirstBlock
	var lenBuf [binary.MaxVarintLen64]byte
	for rows.Next() {
		raw := rows.RawValues()
		if len(raw) != ncol {
			return nil, fmt.Errorf("read rows: %d values for %d columns", len(raw), ncol)
		}
		need := 0
		for _, b := range raw {
			need += len(b) + binary.MaxVarintLen64
		}
		if cur.Len()+need > cur.Cap() { // a row is in one block
			r.seal(&cur)
			cur.Grow(max(next, need))
			next = min(2*next, rawBlockBytes)
		}
		if len(index) == cap(index) {
			switch {
			case index == nil:
				index = make([]rawRow, 0, 8)
			case len(r.index) == 0 && cap(index) < rawChunkRows:
				// The first chunk grows as its rows come (a query of a
				// few rows indexes a few); the next are whole.
				index = slices.Grow(index, len(index))
			default:
				r.index = append(r.index, index)
				index = make([]rawRow, 0, rawChunkRows)
			}
		}
		index = append(index, rawRow{block: int32(len(r.blocks)), off: int32(cur.Len())})
		for _, b := range raw {
			// Each value is its length plus one (0: NULL), as a uvarint,
			// then its bytes.
			n := uint64(0)
			if b != nil {
				n = uint64(len(b)) + 1
			}
			cur.Write(binary.AppendUvarint(lenBuf[:0], n))
			cur.Write(b)
		}
		r.n++
	}
	if index != nil {
		r.index = append(r.index, index)
	}
	r.seal(&cur)
	return r, nil
}

// The blocks values are copied into: the first of rawFirstBlock bytes
// (a point call's queries return a row of a hundred or two bytes each),
// each next twice the one before up to rawBlockBytes (an allocation
// each, of a small size class: no large slice grown and copied again and
// again as the rows come). rawChunkRows is how many rows a chunk of the
// index holds (all but the first, which grows to at least as many).
const (
	rawFirstBlock = 1 << 8
	rawBlockBytes = 16 << 10
	rawChunkRows  = 1 << 10
)

// rawRows is a shape.Rowset of one query's rows as PostgreSQL sent them:
// each row's values, each its length and bytes, one after another in
// blocks of bytes kept as strings. A text value scans as a substring of
// its block and a timestamp, integer or float through pgx's scan plan
// into a value the column keeps, so that scanning a row allocates
// nothing. Any other value, or destination, is decoded as pgx's
// Rows.Values decodes it and stored as database/sql would store it
// (shape.Values). A window's rows cost their bytes and a few per row,
// where a value boxed in an interface per column cost an allocation each
// (and the collector's time to scan them).
type rawRows struct {
	m      *pgtype.Map
	ncol   int
	n      int
	cols   []rawCol
	index  [][]rawRow // the rows' places: the first chunk's, then rawChunkRows a chunk
	blocks []string
}

// rawRow places a row in a block.
type rawRow struct{ block, off int32 }

// seal adds the filled block, if any, and leaves cur empty.
func (r *rawRows) seal(cur *strings.Builder) {
	if cur.Len() > 0 {
		r.blocks = append(r.blocks, cur.String())
	}
	*cur = strings.Builder{}
}

// rawCol is a column's type and, once a value of it is decoded, its
// decoder.
type rawCol struct {
	oid    uint32
	format int16
	name   string
	text   bool        // text or varchar: a value's bytes are its string, in either format
	dec    *rawDecoder // made when the column's first typed value is decoded
}

// rawDecoder decodes a column's values into typed values: the plan,
// made for the column's type, and the values it decodes from and into.
// A column has one type, so one plan; text columns, most of a point
// call's, never need one (a point call reads a row of each of three
// queries, and a decoder kept for each of their columns cost more than
// the rows).
type rawDecoder struct {
	src  []byte // the value the plan decodes, copied from its block
	plan pgtype.ScanPlan
	ts   pgtype.Timestamp
	tstz pgtype.Timestamptz
	i    int64
	f    float64
}

// decoder returns c's decoder, made when first needed.
func (c *rawCol) decoder() *rawDecoder {
	if c.dec == nil {
		c.dec = &rawDecoder{}
	}
	return c.dec
}

func (r *rawRows) Len() int { return r.n }

// row returns row i's block and where its values start.
func (r *rawRows) row(i int) (string, int) {
	var at rawRow
	if first := len(r.index[0]); i < first {
		at = r.index[0][i]
	} else {
		i -= first
		at = r.index[1+i/rawChunkRows][i%rawChunkRows]
	}
	return r.blocks[at.block], int(at.off)
}

// Scan stores row i's values in dest (see shape.Rowset).
func (r *rawRows) Scan(i int, dest ...any) error {
	if i < 0 || i >= r.n {
		return errors.New("scan rows: no row")
	}
	if len(dest) != r.ncol {
		return fmt.Errorf("scan rows: %d destinations for %d columns", len(dest), r.ncol)
	}
	block, pos := r.row(i)
	for j, d := range dest {
		// A uvarint: the value's length plus one, 0 for NULL.
		var n uint64
		for shift := 0; ; shift += 7 {
			b := block[pos]
			pos++
			n |= uint64(b&0x7f) << shift
			if b < 0x80 {
				break
			}
		}
		var v string
		null := n == 0
		if !null {
			v = block[pos : pos+int(n-1)]
			pos += int(n - 1)
		}
		c := &r.cols[j]
		ok, err := r.scanFast(c, v, null, d)
		if err == nil && !ok {
			err = r.scanValue(c, v, null, d)
		}
		if err != nil {
			return fmt.Errorf("scan rows: column %s: %w", c.name, err)
		}
	}
	return nil
}

// scanFast stores a value without boxing it: a NULL in a nullable
// destination, a text in a string, a timestamp in a time, an integer in
// an int64 and a float in a float64. ok is false for any other pair (and
// an infinite timestamp), which scanValue stores.
func (r *rawRows) scanFast(c *rawCol, v string, null bool, dest any) (ok bool, err error) {
	if null {
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
			*d = sql.NullString{String: v, Valid: true}
			return true, nil
		}
	case *string:
		if c.text {
			*d = v
			return true, nil
		}
	case *sql.NullTime:
		t, ok, err := r.time(c, v)
		if ok && err == nil {
			*d = sql.NullTime{Time: t, Valid: true}
		}
		return ok, err
	case *time.Time:
		t, ok, err := r.time(c, v)
		if ok && err == nil {
			*d = t
		}
		return ok, err
	case *sql.NullInt64:
		n, ok, err := r.int(c, v)
		if ok && err == nil {
			*d = sql.NullInt64{Int64: n, Valid: true}
		}
		return ok, err
	case *int64:
		n, ok, err := r.int(c, v)
		if ok && err == nil {
			*d = n
		}
		return ok, err
	case *sql.NullFloat64:
		f, ok, err := r.float(c, v)
		if ok && err == nil {
			*d = sql.NullFloat64{Float64: f, Valid: true}
		}
		return ok, err
	case *float64:
		f, ok, err := r.float(c, v)
		if ok && err == nil {
			*d = f
		}
		return ok, err
	}
	return false, nil
}

// time decodes a timestamp or timestamptz column's finite value.
func (r *rawRows) time(c *rawCol, v string) (time.Time, bool, error) {
	switch c.oid {
	case pgtype.TimestampOID:
		ts, err := decodeInto(r, c, v, func(d *rawDecoder) *pgtype.Timestamp { return &d.ts })
		if err != nil {
			return time.Time{}, true, err
		}
		return ts.Time, ts.InfinityModifier == pgtype.Finite, nil
	case pgtype.TimestamptzOID:
		ts, err := decodeInto(r, c, v, func(d *rawDecoder) *pgtype.Timestamptz { return &d.tstz })
		if err != nil {
			return time.Time{}, true, err
		}
		return ts.Time, ts.InfinityModifier == pgtype.Finite, nil
	}
	return time.Time{}, false, nil
}

// int decodes an int2, int4 or int8 column's value.
func (r *rawRows) int(c *rawCol, v string) (int64, bool, error) {
	switch c.oid {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID:
		i, err := decodeInto(r, c, v, func(d *rawDecoder) *int64 { return &d.i })
		return *i, true, err
	}
	return 0, false, nil
}

// float decodes a float4 or float8 column's value.
func (r *rawRows) float(c *rawCol, v string) (float64, bool, error) {
	switch c.oid {
	case pgtype.Float4OID, pgtype.Float8OID:
		f, err := decodeInto(r, c, v, func(d *rawDecoder) *float64 { return &d.f })
		return *f, true, err
	}
	return 0, false, nil
}

// decodeInto decodes v, a value of column c, into the decoder's field
// that field names (the same field on every call for a column: its plan
// is made for that field's type on the first call) and returns it.
func decodeInto[T any](r *rawRows, c *rawCol, v string, field func(*rawDecoder) *T) (*T, error) {
	d := c.decoder()
	dst := field(d)
	if d.plan == nil {
		d.plan = r.m.PlanScan(c.oid, c.format, dst)
	}
	d.src = append(d.src[:0], v...)
	return dst, d.plan.Scan(d.src, dst)
}

// scanValue decodes a value as pgx's Rows.Values does (its type's codec,
// on a copy of its bytes of its own, then driverValue) and stores it as
// database/sql would.
func (r *rawRows) scanValue(c *rawCol, v string, null bool, dest any) error {
	var val any
	if !null {
		b := []byte(v)
		if t, ok := r.m.TypeForOID(c.oid); ok {
			var err error
			if val, err = t.Codec.DecodeValue(r.m, c.oid, c.format, b); err == nil {
				val, err = driverValue(val)
			}
			if err != nil {
				return err
			}
		} else if c.format == pgtype.TextFormatCode {
			val = v // an unknown type: what Values gives, its text or bytes
		} else {
			val = b
		}
	}
	return shape.Values{{val}}.Scan(0, dest)
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
func (p *Pipeliner) KeyOrder(col string) string { return collateC(col) }

// collateC renders the text expression col in collation "C": ordered by
// its bytes, as Go's strings and DuckDB's are.
func collateC(col string) string { return col + ` COLLATE "C"` }

// WithoutSQLDigest returns p without its shape.Digester capability: a
// window past the provenance limit ships every key of its two
// formulations and Go computes their count and digest, as without a
// pipeline. The engine's sources use it: on this machine the digest in
// SQL measured slower than shipping the keys (bench/results/pg-pipeline.benchstat:
// a week's window 130 ms with it, 84 ms without; random 1–24 h windows
// at 1,000,000 events p50 10.1 ms with it, 7.8 ms without), so it stays
// an option, tested (TestDigestSQL, TestPipeline_OneRoundTrip), until a
// quiet machine says otherwise.
func (p *Pipeliner) WithoutSQLDigest() shape.Pipeliner { return keyOrdered{p} }

// keyOrdered is a Pipeliner without its Digester, keeping its
// shape.KeyOrderer (the metric key floors' bytewise MIN).
type keyOrdered struct{ shape.Pipeliner }

func (keyOrdered) KeyOrder(col string) string { return collateC(col) }

// SnapshotPools are the connections a Pipeliner sends batches on without
// BEGIN and COMMIT. Each connection starts read-only at REPEATABLE READ
// (default_transaction_isolation, default_transaction_read_only): a
// batch of statements sent with one Sync and no BEGIN is one implicit
// transaction (the extended query protocol's), which these settings
// make one read-only snapshot for every statement. A point call's batch
// (its statements marked shape.Stmt.Generic) runs on Points, whose
// connections also keep their prepared statements' generic plans
// (plan_cache_mode, see genericPlans); every other batch on Others, on
// PostgreSQL's own plans.
type SnapshotPools struct {
	Points *sql.DB // nil when the database refused plan_cache_mode: point calls use Others
	Others *sql.DB
}

// The settings of SnapshotPools' connections.
var (
	snapshotParams = map[string]string{
		"default_transaction_isolation": "repeatable read",
		"default_transaction_read_only": "on",
	}
	pointParams = map[string]string{
		"default_transaction_isolation": "repeatable read",
		"default_transaction_read_only": "on",
		"plan_cache_mode":               "force_generic_plan",
	}
)

// OpenSnapshotPools opens SnapshotPools to dsn for PipelinerOptions.Pools,
// each of as many connections as maxInFlight lets pipelines into the
// database at once (PipelinerOptions.MaxInFlight: 0 is
// DefaultMaxInFlight; a negative number, no bound, gives each MaxConns/2,
// so that with Open's pool they hold at most 2 × MaxConns backends,
// within PostgreSQL's default max_connections of 100). A point call's batch then
// costs the database three statements instead of six (BEGIN, SET LOCAL
// plan_cache_mode and COMMIT): at 16 clients on two cores, point calls'
// throughput rose by a tenth to a fifth and their p95 fell by 0.5 to 0.9
// ms at 100,000 to 10,000,000 events, PostgreSQL's CPU a call lower in 8
// of 9 alternated pairs (bench/results/pgpoint3.md); other batches save
// BEGIN and COMMIT. A database that refuses the snapshot settings at
// connection (SQLSTATE 42704, an engine of the PostgreSQL wire without
// them), or whose transactions do not show them (a pooler that drops
// them), gets no pools: OpenSnapshotPools returns nil and no error, and
// the Pipeliner sends each batch in its own transaction as before; one
// that refuses only plan_cache_mode (PostgreSQL before 12, CockroachDB
// before 23.2) gets no Points. The error never quotes the DSN.
func OpenSnapshotPools(ctx context.Context, dsn string, maxInFlight int) (*SnapshotPools, error) {
	conns := maxInFlight
	switch {
	case conns == 0:
		conns = DefaultMaxInFlight()
	case conns < 0:
		conns = MaxConns / 2
	}
	return openSnapshotPools(ctx, dsn, conns, snapshotParams, pointParams)
}

func openSnapshotPools(ctx context.Context, dsn string, conns int, others, points map[string]string) (*SnapshotPools, error) {
	o, err := openPool(ctx, dsn, conns, others)
	if isUnknownSetting(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// A connection pooler may accept the settings and drop them (PgBouncer
	// with ignore_startup_parameters): a batch would then run at READ
	// COMMITTED, each statement on a snapshot of its own. Ask the server.
	if ok, err := takesSnapshotSettings(ctx, o); err != nil || !ok {
		o.Close()
		return nil, err
	}
	p, err := openPool(ctx, dsn, conns, points)
	if err != nil && !isUnknownSetting(err) {
		o.Close()
		return nil, err
	}
	return &SnapshotPools{Points: p, Others: o}, nil
}

// takesSnapshotSettings reports whether a transaction on a connection of
// db is read-only at REPEATABLE READ (or SERIALIZABLE, stronger: an engine
// that runs every transaction so).
func takesSnapshotSettings(ctx context.Context, db *sql.DB) (bool, error) {
	var iso, ro string
	err := db.QueryRowContext(ctx, `SELECT current_setting('transaction_isolation'), current_setting('transaction_read_only')`).Scan(&iso, &ro)
	if err != nil {
		return false, fmt.Errorf("open snapshot pools: %w", err)
	}
	return (iso == "repeatable read" || iso == "serializable") && ro == "on", nil
}

// Close closes the pools.
func (s *SnapshotPools) Close() error {
	if s.Points != nil {
		s.Points.Close()
	}
	return s.Others.Close()
}

// isSnapshot reports whether opts asks for what SnapshotPools'
// connections give every batch: a read-only REPEATABLE READ transaction.
func isSnapshot(opts *sql.TxOptions) bool {
	return opts != nil && opts.ReadOnly && (opts.Isolation == sql.LevelRepeatableRead || opts.Isolation == sql.LevelSnapshot)
}

// implicitPipeline runs queries on a connection of pool: the queries
// and one Sync, which the connection's defaults make one read-only
// REPEATABLE READ transaction.
func (p *Pipeliner) implicitPipeline(ctx context.Context, pool *sql.DB, queries []shape.Stmt) ([]shape.Rowset, error) {
	var out []shape.Rowset
	err := p.onConn(ctx, pool, func(c *pgx.Conn) error {
		b := &pgx.Batch{}
		for _, q := range queries {
			b.Queue(q.SQL, q.Args...)
		}
		// A failed statement ends the implicit transaction at the Sync,
		// rolled back: nothing to end here.
		var err error
		out, err = readBatch(c.SendBatch(ctx, b), c.TypeMap(), 0, len(queries), false)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// onConn runs fn on a connection of pool once the gate lets it in (the
// gate counts every pipeline, whichever pool it runs on).
//
// A connection the server ended (a restart, a failover,
// pg_terminate_backend) goes back to database/sql's pool unnoticed when
// it was used within the last second (pgx pings only a connection idle
// for longer), and a batch sent on it fails with the server's FATAL. A
// batch only reads, so when fn failed on a connection that is closed
// after it, while ctx lasts, fn runs again on another connection: at most
// once more than the pool held connections, each failed one being
// dropped from the pool.
func (p *Pipeliner) onConn(ctx context.Context, pool *sql.DB, fn func(*pgx.Conn) error) error {
	if p.gate != nil {
		if err := p.gate.enter(ctx); err != nil {
			return fmt.Errorf("run pipeline: %w", err)
		}
		defer p.gate.leave()
	}
	tries := pool.Stats().OpenConnections + 1
	for try := 1; ; try++ {
		lost, err := onConnOnce(ctx, pool, fn)
		if err == nil {
			return nil
		}
		if !lost || ctx.Err() != nil || try >= tries {
			return fmt.Errorf("run pipeline: %w", err)
		}
	}
}

// onConnOnce runs fn on a connection of pool and reports whether the
// connection was closed after fn failed.
func onConnOnce(ctx context.Context, pool *sql.DB, fn func(*pgx.Conn) error) (lost bool, err error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return errors.New("not a pgx connection")
		}
		err := fn(sc.Conn())
		lost = err != nil && sc.Conn().IsClosed()
		return err
	})
	return lost, err
}
