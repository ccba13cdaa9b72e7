package ingest

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"time"
)

// decoder reads the rows of one input format into fields in layout
// order.
type decoder interface {
	// next reads one row into fields. It returns the row's number and the
	// problems that make the row unreadable (then fields is not valid);
	// fatal means the input cannot be read further. It returns io.EOF
	// after the last row and any other error for a failed read.
	next(fields []raw) (row int64, errs []*RowError, fatal bool, err error)
}

// Reader reads and validates the rows of one input. Not safe for
// concurrent use.
type Reader struct {
	input  string
	v      *validator
	dec    decoder
	fields []raw
	out    []any
	done   bool
}

func newReader(input string, l *Layout, dec decoder) *Reader {
	return &Reader{input: input, v: newValidator(l), dec: dec, fields: make([]raw, len(l.Columns)), out: make([]any, len(l.Columns))}
}

// Next reads the next row and returns its stored values (in the Layout's
// column order: string, time.Time, int64, float64, or nil for an empty
// optional attribute; the slice is reused by the next call) and its
// 1-based number. A row that is not valid is an Errors (call Next again
// for the next row); a malformed input's error is the last one before
// io.EOF. io.EOF ends the input; any other error is a failed read.
func (r *Reader) Next() (vals []any, row int64, err error) {
	if r.done {
		return nil, 0, io.EOF
	}
	for i := range r.fields {
		r.fields[i] = raw{}
	}
	row, errs, fatal, err := r.dec.next(r.fields)
	if err != nil {
		r.done = true
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		return nil, row, fmt.Errorf("read %s: %w", r.input, err)
	}
	if fatal {
		r.done = true
	}
	if len(errs) == 0 {
		errs = r.v.row(r.input, row, r.fields, r.out, errs)
	}
	if len(errs) > 0 {
		for _, e := range errs {
			e.Input = r.input
		}
		return nil, row, Errors(errs)
	}
	return r.out, row, nil
}

// WithContext returns r that fails with ctx's error once ctx is done. A
// Reader checks no context itself, and one row of an input may never end
// (a line without a newline, /dev/zero): reading it through WithContext
// stops when the import is cancelled.
func WithContext(ctx context.Context, r io.Reader) io.Reader { return &ctxReader{ctx: ctx, r: r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// header maps input column names to layout positions, reporting unknown,
// duplicate and missing columns as errors at row 0.
func header(l *Layout, names []string) (pos []int, errs []*RowError) {
	pos = make([]int, len(names))
	seen := make([]bool, len(l.Columns))
	for i, n := range names {
		if i == 0 {
			n = trimBOM(n)
		}
		j := l.ColumnIndex(n)
		pos[i] = j
		switch {
		case j < 0:
			errs = append(errs, &RowError{Reason: fmt.Sprintf("unknown column (column %d of the header)", i+1)})
		case seen[j]:
			errs = append(errs, &RowError{Field: n, Reason: "duplicate column"})
		default:
			seen[j] = true
		}
	}
	for j, ok := range seen {
		if !ok {
			errs = append(errs, &RowError{Field: l.Columns[j].Name, Reason: "missing column"})
		}
	}
	return pos, errs
}

func trimBOM(s string) string {
	if len(s) >= 3 && s[:3] == "\uFEFF" {
		return s[3:]
	}
	return s
}

// NewCSV returns a Reader of CSV (RFC 4180) from r: a header row naming
// the columns, in any order, then one row per record. An empty field is
// null. A row is numbered from 1 after the header; header problems are at
// row 0. A record with the wrong number of fields is an error at its row;
// any other malformation (a bare quote) ends the input with an error at
// its row.
func NewCSV(input string, l *Layout, r io.Reader) *Reader {
	lim := &recordLimit{r: &skipBOM{r: r}}
	cr := csv.NewReader(lim)
	cr.ReuseRecord = true
	return newReader(input, l, &csvDecoder{l: l, r: cr, lim: lim})
}

type csvDecoder struct {
	l   *Layout
	r   *csv.Reader
	lim *recordLimit
	pos []int // input column -> layout column
	row int64
}

// skipBOM drops a UTF-8 byte-order mark at the start of r, before
// encoding/csv reads it: a mark before a quoted first field (as Excel's
// "CSV UTF-8" writes a header) made the field's quote a bare one.
type skipBOM struct {
	r    io.Reader
	head []byte // what was read of the start and is not a mark
	done bool
}

func (s *skipBOM) Read(p []byte) (int, error) {
	if !s.done {
		buf := make([]byte, 3)
		n, err := io.ReadFull(s.r, buf)
		if n == 0 && err != nil {
			return 0, err
		}
		s.done = true
		if n < 3 || string(buf) != "\uFEFF" {
			s.head = buf[:n]
		}
	}
	if len(s.head) > 0 {
		n := copy(p, s.head)
		s.head = s.head[n:]
		return n, nil
	}
	return s.r.Read(p)
}

// errRecordTooLong stops a CSV record longer than maxLine, which
// encoding/csv would otherwise gather whole however long it runs.
var errRecordTooLong = errors.New("record too long")

// recordLimit fails a read once more than maxLine bytes, and a read-ahead
// buffer's worth, were read past the start of the record being read.
type recordLimit struct {
	r     io.Reader
	read  int64 // bytes read
	start int64 // the input offset of the record being read
}

func (l *recordLimit) Read(p []byte) (int, error) {
	if l.read-l.start > maxLine+64<<10 {
		return 0, errRecordTooLong
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	return n, err
}

func (d *csvDecoder) next(fields []raw) (int64, []*RowError, bool, error) {
	if d.pos == nil {
		names, err := d.r.Read()
		if err == io.EOF {
			return 0, []*RowError{{Reason: "no header row"}}, true, nil
		}
		if errors.Is(err, errRecordTooLong) {
			return 0, []*RowError{{Reason: fmt.Sprintf("header longer than %d bytes", maxLine)}}, true, nil
		}
		if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
			return 0, []*RowError{{Reason: "malformed CSV: " + pe.Err.Error()}}, true, nil
		}
		if err != nil {
			return 0, nil, true, err
		}
		pos, errs := header(d.l, names)
		if len(errs) > 0 {
			return 0, errs, true, nil
		}
		d.pos = pos
		d.r.FieldsPerRecord = len(names)
	}
	d.lim.start = d.r.InputOffset()
	rec, err := d.r.Read()
	if err == io.EOF {
		return 0, nil, false, io.EOF
	}
	d.row++
	if errors.Is(err, errRecordTooLong) {
		return d.row, []*RowError{{Row: d.row, Reason: fmt.Sprintf("record longer than %d bytes", maxLine)}}, true, nil
	}
	if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return d.row, []*RowError{{Row: d.row, Reason: fmt.Sprintf("want %d fields, as the header has, not %d", len(d.pos), len(rec))}}, false, nil
		}
		return d.row, []*RowError{{Row: d.row, Reason: "malformed CSV: " + pe.Err.Error()}}, true, nil
	}
	if err != nil {
		return d.row, nil, true, err
	}
	for i, s := range rec {
		if s == "" {
			fields[d.pos[i]] = raw{kind: rawNull}
		} else {
			fields[d.pos[i]] = raw{kind: rawText, s: s}
		}
	}
	return d.row, nil, false, nil
}

// Records is a source of records with named columns, such as a Parquet
// file read through DuckDB.
type Records interface {
	// Columns names the record's columns, in order.
	Columns() []string
	// Next fills rec (one value per column) with the next record, or
	// returns io.EOF after the last. A value is nil (NULL), a string
	// (text, validated as a CSV field is), an int64, a float64 or a
	// time.Time (UTC); any other type is rejected at its field.
	Next(rec []any) error
}

// NewRecords returns a Reader of src. A string is validated as a CSV field
// is (empty is null); an int64 or float64 is accepted for a numeric column
// (a float64 only for type number, and only finite), a time.Time for the
// time column; nil is null. Rows are numbered from 1; column problems are
// at row 0.
func NewRecords(input string, l *Layout, src Records) *Reader {
	return newReader(input, l, &recordsDecoder{l: l, src: src})
}

type recordsDecoder struct {
	l   *Layout
	src Records
	pos []int
	rec []any
	row int64
}

func (d *recordsDecoder) next(fields []raw) (int64, []*RowError, bool, error) {
	if d.pos == nil {
		pos, errs := header(d.l, d.src.Columns())
		if len(errs) > 0 {
			return 0, errs, true, nil
		}
		d.pos = pos
		d.rec = make([]any, len(pos))
	}
	clear(d.rec)
	if err := d.src.Next(d.rec); err != nil {
		return 0, nil, false, err
	}
	d.row++
	for i, v := range d.rec {
		f := &fields[d.pos[i]]
		switch v := v.(type) {
		case nil:
			f.kind = rawNull
		case string:
			if v == "" {
				f.kind = rawNull
			} else {
				*f = raw{kind: rawText, s: v}
			}
		case int64:
			*f = raw{kind: rawInt, i: v}
		case float64:
			*f = raw{kind: rawFloat, f: v}
		case time.Time:
			*f = raw{kind: rawTime, t: v}
		default:
			f.kind = rawOther
		}
	}
	return d.row, nil, false, nil
}

// maxLine bounds a JSON Lines line.
const maxLine = 1 << 20

// NewJSONL returns a Reader of JSON Lines from r: one flat JSON object per
// line whose keys are the columns, a string for a key, time, entity or
// enumerated column, a number for a numeric one, null (or "") for an
// empty optional attribute. Rows are numbered by line; blank lines are
// skipped. Bad JSON is an error at its line, and reading goes on. A
// string escaping half a surrogate pair alone is an error at its field,
// never stored as U+FFFD.
func NewJSONL(input string, l *Layout, r io.Reader) *Reader {
	return newReader(input, l, &jsonlDecoder{l: l, r: bufio.NewReaderSize(r, 64<<10)})
}

type jsonlDecoder struct {
	l    *Layout
	r    *bufio.Reader
	buf  []byte // a line longer than r's buffer
	line int64
}

func (d *jsonlDecoder) next(fields []raw) (int64, []*RowError, bool, error) {
	for {
		b, err := d.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: gather it, up to maxLine.
			d.buf = append(d.buf[:0], b...)
			tooLong := false
			for err == bufio.ErrBufferFull {
				b, err = d.r.ReadSlice('\n')
				if len(d.buf)+len(b) > maxLine {
					tooLong = true
				} else {
					d.buf = append(d.buf, b...)
				}
			}
			if tooLong {
				d.line++
				return d.line, []*RowError{{Row: d.line, Reason: fmt.Sprintf("line longer than %d bytes", maxLine)}}, err != nil, nil
			}
			b = d.buf
		}
		if err != nil && err != io.EOF {
			return d.line + 1, nil, true, err
		}
		if len(b) == 0 && err == io.EOF {
			return 0, nil, false, io.EOF
		}
		d.line++
		if blank(b) {
			if err == io.EOF {
				return 0, nil, false, io.EOF
			}
			continue
		}
		line := string(b)
		if d.line == 1 {
			line = trimBOM(line)
		}
		if e := parseObject(d.l, line, fields); e != nil {
			e.Row = d.line
			return d.line, []*RowError{e}, false, nil
		}
		return d.line, nil, false, nil
	}
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
