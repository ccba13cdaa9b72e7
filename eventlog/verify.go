package eventlog

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// SchemaValidator holds one event's JSON line to its type's JSON Schema.
// Package eventlog/eventschema implements it over the embedded schemas;
// this package validates payloads in Go (Payload.Validate) either way.
type SchemaValidator interface {
	ValidateEvent(line []byte) error
}

// The checks Verify names in a VerifyError.
const (
	CheckDecode    = "decode"    // the line is not a well-formed event of a known type
	CheckSchema    = "schema"    // the line breaks its type's JSON Schema
	CheckTorn      = "torn"      // the last line has no newline
	CheckID        = "id"        // an event id seen before
	CheckSeq       = "seq"       // a seq that is not the next of its (run, producer)
	CheckTime      = "time"      // a logical time that goes back for its (run, producer)
	CheckCausation = "causation" // a causation id naming no earlier event
	CheckOrder     = "order"     // not in canonical order (VerifyOptions.Canonical)
	CheckHash      = "hash"      // the chain differs from the one expected
)

// VerifyError is the first bad event Verify found: Index counts input
// lines (events) from 0; for CheckHash it is the input index of the first
// event whose chain head differs, or the event count when only the final
// hash was given.
type VerifyError struct {
	Index int
	Check string
	Err   error
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("verify event log: event %d: %s: %v", e.Index, e.Check, e.Err)
}

func (e *VerifyError) Unwrap() error { return e.Err }

// VerifyOptions configures Verify. nil means: check decoding, ids, seqs,
// times and causation, and compute the hash.
type VerifyOptions struct {
	// Schema, if set, also holds every line to its JSON Schema.
	Schema SchemaValidator
	// Canonical requires the input in canonical order, as Export writes.
	Canonical bool
	// Want is the expected log hash, if any.
	Want *Digest
	// Chain is the expected chain head after each event in canonical
	// order (a Report.Chain of a run to compare with); the first
	// difference is reported by index.
	Chain []Digest
}

// Report is what Verify and Export found.
type Report struct {
	Events    int
	Runs      int
	Producers int // distinct (run, producer) pairs
	// Hash is the log hash; Chain the head after each event in canonical
	// order.
	Hash  Digest
	Chain []Digest
}

// Verify reads a JSONL log (an export, or a store's file) and checks,
// stopping at the first bad event: every line decodes strictly into an
// event of a known type whose payload is valid (and, with
// VerifyOptions.Schema, matches its JSON Schema); ids are unique; each
// (run, producer)'s seqs are 1, 2, 3, ... in input order and its logical
// times never go back; a causation id names an earlier event; with
// Canonical, the input is in canonical order; the chain over the
// canonical order matches Want and Chain when given. A bad event is a
// *VerifyError naming its index and check; Verify never quotes the
// input.
func Verify(ctx context.Context, r io.Reader, opts *VerifyOptions) (Report, error) {
	var o VerifyOptions
	if opts != nil {
		o = *opts
	}
	br := bufio.NewReaderSize(r, 64<<10)
	v := newVerifier(o)
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return Report{}, fmt.Errorf("verify event log: %w", err)
		}
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				return Report{}, &VerifyError{Index: i, Check: CheckTorn, Err: ErrTornTail}
			}
			break
		}
		if err != nil {
			return Report{}, &VerifyError{Index: i, Check: CheckDecode, Err: err}
		}
		line = bytes.TrimSuffix(line, []byte{'\n'})
		e, err := Decode(line)
		if err != nil {
			return Report{}, &VerifyError{Index: i, Check: CheckDecode, Err: err}
		}
		if o.Schema != nil {
			if err := o.Schema.ValidateEvent(line); err != nil {
				return Report{}, &VerifyError{Index: i, Check: CheckSchema, Err: err}
			}
		}
		if err := v.add(e); err != nil {
			return Report{}, err
		}
	}
	return v.finish()
}

// VerifyEvents runs Verify's checks (but the schema's) over events.
func VerifyEvents(ctx context.Context, events []Event, opts *VerifyOptions) (Report, error) {
	var o VerifyOptions
	if opts != nil {
		o = *opts
	}
	v := newVerifier(o)
	for i, e := range events {
		if err := ctx.Err(); err != nil {
			return Report{}, fmt.Errorf("verify event log: %w", err)
		}
		if err := e.Validate(); err != nil {
			return Report{}, &VerifyError{Index: i, Check: CheckDecode, Err: err}
		}
		if err := v.add(e); err != nil {
			return Report{}, err
		}
	}
	return v.finish()
}

type runProducer struct{ run, producer string }

type verifier struct {
	opts   VerifyOptions
	events []Event
	ids    map[string]bool
	last   map[runProducer]producerState
	runs   map[string]bool
}

func newVerifier(o VerifyOptions) *verifier {
	return &verifier{opts: o, ids: map[string]bool{}, last: map[runProducer]producerState{}, runs: map[string]bool{}}
}

func (v *verifier) add(e Event) error {
	i := len(v.events)
	bad := func(check string, err error) error { return &VerifyError{Index: i, Check: check, Err: err} }
	if v.ids[e.ID] {
		return bad(CheckID, fmt.Errorf("%w: duplicate event id", ErrOrder))
	}
	k := runProducer{e.Run, e.Producer}
	st := v.last[k]
	if e.Seq != st.seq+1 {
		return bad(CheckSeq, fmt.Errorf("%w: seq %d, want %d", ErrSequence, e.Seq, st.seq+1))
	}
	if e.Time < st.time {
		return bad(CheckTime, fmt.Errorf("%w: logical time goes back", ErrSequence))
	}
	if e.Causation != "" && !v.ids[e.Causation] {
		return bad(CheckCausation, fmt.Errorf("%w: causation names no earlier event", ErrOrder))
	}
	if v.opts.Canonical && i > 0 && Compare(v.events[i-1], e) > 0 {
		return bad(CheckOrder, fmt.Errorf("%w: not in canonical order", ErrOrder))
	}
	v.ids[e.ID] = true
	v.last[k] = producerState{seq: e.Seq, time: e.Time}
	v.runs[e.Run] = true
	v.events = append(v.events, e)
	return nil
}

func (v *verifier) finish() (Report, error) {
	order := make([]int, len(v.events))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return Compare(v.events[a], v.events[b]) })
	rep := Report{Events: len(v.events), Runs: len(v.runs), Producers: len(v.last), Chain: make([]Digest, len(order))}
	var c Chain
	for pos, idx := range order {
		h, err := c.Add(v.events[idx])
		if err != nil {
			return Report{}, &VerifyError{Index: idx, Check: CheckHash, Err: err}
		}
		rep.Chain[pos] = h
		if pos < len(v.opts.Chain) && v.opts.Chain[pos] != h {
			return rep, &VerifyError{Index: idx, Check: CheckHash, Err: fmt.Errorf("%w: chain differs at canonical position %d", ErrHash, pos)}
		}
	}
	rep.Hash = c.Head()
	if v.opts.Chain != nil && len(v.opts.Chain) != len(order) {
		return rep, &VerifyError{Index: min(len(v.opts.Chain), len(order)), Check: CheckHash,
			Err: fmt.Errorf("%w: %d events, the expected chain has %d", ErrHash, len(order), len(v.opts.Chain))}
	}
	if v.opts.Want != nil && *v.opts.Want != rep.Hash {
		return rep, &VerifyError{Index: len(order), Check: CheckHash, Err: fmt.Errorf("%w: log hash", ErrHash)}
	}
	return rep, nil
}

// Export writes every event of s as JSON Lines in canonical order and
// returns the log's report (hash and chain). It does not check the log;
// Verify does.
func Export(ctx context.Context, w io.Writer, s Store) (Report, error) {
	events, err := ReadAll(ctx, s)
	if err != nil {
		return Report{}, fmt.Errorf("export event log: %w", err)
	}
	Sort(events)
	bw := bufio.NewWriter(w)
	rep := Report{Events: len(events), Chain: make([]Digest, len(events))}
	runs, producers := map[string]bool{}, map[runProducer]bool{}
	var c Chain
	for i, e := range events {
		b, err := json.Marshal(e)
		if err != nil {
			return Report{}, fmt.Errorf("export event log: %w", err)
		}
		if _, err := bw.Write(append(b, '\n')); err != nil {
			return Report{}, fmt.Errorf("export event log: %w", err)
		}
		if rep.Chain[i], err = c.Add(e); err != nil {
			return Report{}, fmt.Errorf("export event log: %w", err)
		}
		runs[e.Run], producers[runProducer{e.Run, e.Producer}] = true, true
	}
	if err := bw.Flush(); err != nil {
		return Report{}, fmt.Errorf("export event log: %w", err)
	}
	rep.Hash, rep.Runs, rep.Producers = c.Head(), len(runs), len(producers)
	return rep, nil
}
