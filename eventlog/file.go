package eventlog

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sync"
)

// FileOptions configures OpenFileStore. nil means defaults: a torn last
// line is an error.
type FileOptions struct {
	// RepairTornTail truncates a torn last line on open (reporting it in
	// FileStore.Repaired) instead of refusing to open.
	RepairTornTail bool
}

// TailError reports a torn last line: Offset is where the last complete
// line ends, Bytes how many bytes follow it. It wraps ErrTornTail.
type TailError struct {
	Offset int64
	Bytes  int64
}

func (e *TailError) Error() string {
	return fmt.Sprintf("open event log: %v: %d bytes after offset %d", ErrTornTail, e.Bytes, e.Offset)
}

func (e *TailError) Unwrap() error { return ErrTornTail }

// LineError reports a complete line that does not decode: Line counts
// from 0. It wraps ErrCorrupt and the decoding error.
type LineError struct {
	Line   int
	Offset int64
	Err    error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("open event log: %v: line %d (offset %d): %v", ErrCorrupt, e.Line, e.Offset, e.Err)
}

func (e *LineError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

// FileStore is a Store in a JSON Lines file: one event per line, in
// append order. It is the durable store of one process: two processes
// must not append to one file.
//
// An append writes the event's line, newline included, in one write to
// the end of the file, then fsyncs the file; Append returns nil — the
// event is acknowledged — only after the fsync returned. So an
// acknowledged event is a complete line on disk, and a torn last line (no
// newline: a crash or a full disk during a write) was never acknowledged.
// A complete line that does not decode could have been acknowledged: it
// is reported as corruption (LineError) and never repaired. A torn last
// line is reported (TailError) and, only with RepairTornTail, truncated;
// the truncation is recorded in Repaired. A failed write is truncated
// away before Append returns; if that or the fsync fails, the store
// refuses every later append (ErrClosed), since what reached the disk is
// then unknown until the file is reopened and checked.
type FileStore struct {
	path string

	mu     sync.Mutex
	f      *os.File
	size   int64 // the end of the last acknowledged line
	lines  int
	broken error
	last   map[runProducer]producerState // the largest seq and time of each (run, producer)

	// Repaired is the torn tail removed on open, or nil.
	Repaired *TailError
}

// OpenFileStore opens the log file at path, creating it (and syncing its
// directory) if it does not exist, and checks every line.
func OpenFileStore(ctx context.Context, path string, opts *FileOptions) (*FileStore, error) {
	var o FileOptions
	if opts != nil {
		o = *opts
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	if errors.Is(statErr, os.ErrNotExist) {
		if err := syncDir(filepath.Dir(path)); err != nil {
			f.Close()
			return nil, fmt.Errorf("open event log: %w", err)
		}
	}
	s := &FileStore{path: path, f: f, last: map[runProducer]producerState{}}
	end, lines, err := scanFile(ctx, f, -1, func(e Event) error {
		k := runProducer{e.Run, e.Producer}
		st := s.last[k]
		s.last[k] = producerState{seq: max(st.seq, e.Seq), time: max(st.time, e.Time)}
		return nil
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open event log: %w", err)
	}
	if info.Size() > end {
		tail := &TailError{Offset: end, Bytes: info.Size() - end}
		if !o.RepairTornTail {
			f.Close()
			return nil, tail
		}
		if err := f.Truncate(end); err != nil {
			f.Close()
			return nil, fmt.Errorf("open event log: repair torn tail: %w", err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, fmt.Errorf("open event log: repair torn tail: %w", err)
		}
		s.Repaired = tail
	}
	s.size, s.lines = end, lines
	return s, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// scanFile reads the complete lines of f up to limit bytes (-1: to the
// end), decoding each and passing it to fn if fn is not nil. It returns
// the offset after the last complete line and the count of lines.
func scanFile(ctx context.Context, f *os.File, limit int64, fn func(Event) error) (int64, int, error) {
	if limit < 0 {
		limit = 1 << 62
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, limit), 64<<10)
	var off int64
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return off, n, fmt.Errorf("scan event log: %w", err)
		}
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			return off, n, nil // line, if any, is a torn tail
		}
		if err != nil {
			return off, n, &LineError{Line: n, Offset: off, Err: err}
		}
		e, derr := Decode(bytes.TrimSuffix(line, []byte{'\n'}))
		if derr != nil {
			return off, n, &LineError{Line: n, Offset: off, Err: derr}
		}
		if fn != nil {
			if err := fn(e); err != nil {
				return off, n, err
			}
		}
		off += int64(len(line))
		n++
	}
}

// errLongLine: a line longer than MaxLine.
var errLongLine = fmt.Errorf("%w: line longer than %d bytes", ErrInvalid, MaxLine)

// readLine returns the next line with its newline, or io.EOF (with what
// was read of an unterminated line, which the caller treats as torn).
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > MaxLine+1 {
			return nil, errLongLine
		}
		switch {
		case err == nil:
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return buf, io.EOF
		default:
			return nil, err
		}
	}
}

// Append writes e as one line and fsyncs; nil means acknowledged.
func (s *FileStore) Append(ctx context.Context, e Event) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	if err := e.Validate(); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	b, err := Encode(e)
	if err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	b = append(b, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return fmt.Errorf("append event: %w", s.broken)
	}
	k := runProducer{e.Run, e.Producer}
	st := s.last[k]
	if err := CheckNext(e, st.seq, st.time); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	if err := s.write(b); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	s.lines++
	s.last[k] = producerState{seq: e.Seq, time: e.Time}
	return nil
}

// AppendBatch writes events as consecutive lines in one write and
// fsyncs once; nil means all are acknowledged. A refused event stores
// none of them; a failed write is truncated away as for Append.
func (s *FileStore) AppendBatch(ctx context.Context, events []Event) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	var buf []byte
	for i, e := range events {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("append events: event %d: %w", i, err)
		}
		b, err := Encode(e)
		if err != nil {
			return fmt.Errorf("append events: event %d: %w", i, err)
		}
		buf = append(append(buf, b...), '\n')
	}
	if len(events) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return fmt.Errorf("append events: %w", s.broken)
	}
	next, err := checkBatch(events, func(k runProducer) producerState { return s.last[k] })
	if err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	if err := s.write(buf); err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	s.lines += len(events)
	maps.Copy(s.last, next)
	return nil
}

// write appends b (whole lines) at the end of the file and fsyncs; on an
// error the file is as before or the store is broken. s.mu is held.
func (s *FileStore) write(b []byte) error {
	if _, err := s.f.Write(b); err != nil {
		if terr := s.f.Truncate(s.size); terr != nil {
			s.broken = ErrClosed
		}
		return err
	}
	if err := s.f.Sync(); err != nil {
		// After a failed fsync the page cache's state is unknown; never
		// retry on this descriptor.
		s.broken = ErrClosed
		return fmt.Errorf("sync: %w", err)
	}
	s.size += int64(len(b))
	return nil
}

// Scan calls fn for every acknowledged event, in append order, as of
// when it starts.
func (s *FileStore) Scan(ctx context.Context, fn func(Event) error) error {
	s.mu.Lock()
	f, size := s.f, s.size
	s.mu.Unlock()
	if f == nil {
		return fmt.Errorf("scan event log: %w", ErrClosed)
	}
	// Acknowledged lines stay readable after a failed append.
	_, _, err := scanFile(ctx, f, size, fn)
	return err
}

// Len returns how many events the file holds.
func (s *FileStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lines
}

// Close closes the file; later appends fail with ErrClosed.
func (s *FileStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f, s.broken = nil, ErrClosed
	if err != nil {
		return fmt.Errorf("close event log: %w", err)
	}
	return nil
}
