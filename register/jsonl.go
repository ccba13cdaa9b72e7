package register

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrDecode is wrapped by every *DecodeError.
var ErrDecode = errors.New("not a register file")

// MaxLineBytes bounds one line of a register file.
const MaxLineBytes = 1 << 20

// DecodeProblem names what is wrong with a line of a register file.
type DecodeProblem string

// The decoding problems.
const (
	DecodeTooLong      DecodeProblem = "line too long"
	DecodeSyntax       DecodeProblem = "not a record"              // not JSON, or not of the record's shape
	DecodeNotCanonical DecodeProblem = "not canonical JSON"        // a record, but not as the register writes it
	DecodeNoNewline    DecodeProblem = "no newline at end of file" // the last line is cut short
)

// DecodeError is a line of a register file that is not a stored record.
// The line's content is never repeated.
type DecodeError struct {
	Line    int // 1-based
	Problem DecodeProblem
}

func (e *DecodeError) Error() string {
	return "decode register: line " + strconv.Itoa(e.Line) + ": " + string(e.Problem) + ": " + ErrDecode.Error()
}

// Unwrap returns ErrDecode.
func (e *DecodeError) Unwrap() error { return ErrDecode }

// Decoder reads a register file: one record a line, each line exactly the
// record's canonical JSON (Canonical), each followed by a newline.
type Decoder struct {
	r    *bufio.Reader
	line int
	err  error
}

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next record, io.EOF after the last, or a *DecodeError
// (errors.Is(err, ErrDecode)) naming the line. Every line must be exactly
// the canonical JSON of a record with no other members: any other
// spelling of the same record (spacing, key order, escapes, number form,
// a key in another case, a repeated key) is DecodeNotCanonical, so a
// decoded file is byte for byte what Export writes. Next does not verify
// the chain; Verify does.
func (d *Decoder) Next() (Record, error) {
	if d.err != nil {
		return Record{}, d.err
	}
	line, err := d.readLine()
	if err != nil {
		d.err = err
		return Record{}, err
	}
	r, p := decodeLine(line)
	if p != "" {
		d.err = &DecodeError{Line: d.line, Problem: p}
		return Record{}, d.err
	}
	return r, nil
}

func (d *Decoder) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := d.r.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLineBytes+1 {
			d.line++
			return nil, &DecodeError{Line: d.line, Problem: DecodeTooLong}
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			d.line++
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(buf) == 0 {
				return nil, io.EOF
			}
			d.line++
			return nil, &DecodeError{Line: d.line, Problem: DecodeNoNewline}
		default:
			return nil, fmt.Errorf("read register: %w", err)
		}
	}
}

// decodeLine returns the record a line holds, or the problem with it.
func decodeLine(line []byte) (Record, DecodeProblem) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Record{}, DecodeSyntax
	}
	canon, err := Canonical(r)
	if err != nil {
		return Record{}, DecodeSyntax
	}
	if !bytes.Equal(canon, line) {
		return Record{}, DecodeNotCanonical
	}
	return r, ""
}

// Load reads a whole register file into a MemStore, as stored: the
// records are decoded, not verified (Verify the store next).
func Load(ctx context.Context, r io.Reader) (*MemStore, error) {
	d := NewDecoder(r)
	var recs []Record
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("load register: %w", err)
		}
		rec, err := d.Next()
		if errors.Is(err, io.EOF) {
			return &MemStore{recs: recs}, nil
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
}

// Export writes every record of the store to w as a register file: each
// record's canonical JSON and a newline.
func Export(ctx context.Context, w io.Writer, s Store) error {
	bw := bufio.NewWriter(w)
	err := s.Scan(ctx, 0, func(i int, r Record) error {
		b, err := Canonical(r)
		if err != nil {
			return fmt.Errorf("export record %d: %w", i, err)
		}
		bw.Write(b)
		return bw.WriteByte('\n')
	})
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export register: %w", err)
	}
	return nil
}
