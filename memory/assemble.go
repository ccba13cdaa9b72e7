package memory

import (
	"context"
	"errors"
	"fmt"
)

// Store is what a read needs from a journal. Persistent stores
// (DuckDB, PostgreSQL) and the in-memory one (package memstore)
// implement it; the counting wrapper of package memorytest checks a
// read's I/O budget against it.
type Store interface {
	// Retrieve returns the records q admits (Retrieval.Admits), in the
	// declared rank order (Less) at q.AsOf, from q.Offset, at most
	// q.Limit of them.
	Retrieve(ctx context.Context, q Retrieval) ([]Record, error)
	// Visibility returns the visibility of each key, in one batch. A key
	// missing from the answer is a failure to decide.
	Visibility(ctx context.Context, keys []string) (map[string]Visibility, error)
	// Chain returns the annotation chain of key, with each record's
	// visibility: every record whose target is key, every record whose
	// target is one of those, and so on, in any order.
	Chain(ctx context.Context, key string) ([]Entry, error)
}

// ChainsReader is a Store that can read the chains of several keys in one
// batch: Read uses it, when the store implements it, for the chains of
// the selected records (one read instead of one per record). Each key's
// chain is as Chain returns it; a key without annotations may be missing
// from the map.
type ChainsReader interface {
	Chains(ctx context.Context, keys []string) (map[string][]Entry, error)
}

// EntryRetriever is a Store whose retrieval can return each record's
// visibility with it, read from the same place in the same call. Read
// uses it for back-fill pulls, so that a pull is one retrieval and a read
// keeps to one batched visibility read (the first retrieval's), as the
// I/O budget says. A visibility the store cannot read is an error
// wrapping ErrUndecided, on which Read fails closed. A store without it
// is still served: each pull then also reads its candidates' visibility.
type EntryRetriever interface {
	RetrieveEntries(ctx context.Context, q Retrieval) ([]Entry, error)
}

// ErrUndecided is wrapped by an EntryRetriever's error for a record whose
// visibility it could not read.
var ErrUndecided = errors.New("visibility undecided")

// Entry is a journal record with its visibility: one line of a journal
// snapshot, and one element of a chain.
type Entry struct {
	Record     Record     `json:"record"`
	Visibility Visibility `json:"visibility"`
}

// Query is one read of memory. Cues are required; MaxItems is the most
// claims the sheet may hold, from 1 to MaxItemsLimit.
type Query struct {
	Cues      Cues     `json:"cues"`
	Partition []string `json:"partition,omitempty"`
	AsOf      int64    `json:"as_of"`
	Exclude   []string `json:"exclude,omitempty"`
	MaxItems  int      `json:"max_items"`
}

// Bounds of a query.
const (
	MaxItemsLimit = 200
	MaxExclude    = 1000
)

func (q Query) check() error {
	if q.Cues.empty() {
		return &CallerError{Field: "cues", Problem: "at least one of subject, tags and text is required"}
	}
	if checkText("cues.subject", q.Cues.Subject) != nil || checkText("cues.text", q.Cues.Text) != nil ||
		checkList("cues.tags", q.Cues.Tags, MaxTags) != nil {
		return &CallerError{Field: "cues", Problem: "too long, or not text"}
	}
	if q.MaxItems < 1 || q.MaxItems > MaxItemsLimit {
		return &CallerError{Field: "max_items", Problem: fmt.Sprintf("not from 1 to %d", MaxItemsLimit)}
	}
	if q.AsOf < 0 {
		return &CallerError{Field: "as_of", Problem: "negative"}
	}
	if checkList("partition", q.Partition, MaxTags) != nil {
		return &CallerError{Field: "partition", Problem: "not a list of distinct agent ids"}
	}
	if checkList("exclude", q.Exclude, MaxExclude) != nil {
		return &CallerError{Field: "exclude", Problem: "not a list of distinct keys"}
	}
	return nil
}

// Read resolves what reader should currently believe about the query's
// cues. It costs, per call: one retrieval of max_items times the policy's
// gate_overfetch_multiplier candidates and one batched visibility read of
// them; then, while the gate has left fewer than max_items visible
// candidates and the store had more, one back-fill pull at a time, at
// most max_backfill_pulls of them: one retrieval that brings its
// candidates' visibility when the store is an EntryRetriever (else a
// retrieval and a visibility read); then one chain read per selected
// candidate (at most max_items), or one batched read of them all when the
// store is a ChainsReader.
//
// A nil reader, or one without an agent, is a *CallerError wrapping
// ErrNoReader; so is an invalid query. A failed retrieval or chain read is
// an error. Any failure while deciding visibility (the read fails, a key
// is missing from it, a visibility is invalid) fails closed: an empty
// sheet with a visibility_undecided warning, and a nil error.
func Read(ctx context.Context, st Store, reader *Reader, q Query, p Policy) (*Sheet, error) {
	if err := reader.check(); err != nil {
		return nil, err
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	p, policyWarns := p.sanitize()
	k := q.MaxItems
	fetch := k * p.GateOverfetchMultiplier
	who := &SheetReader{Agent: reader.Agent, Purpose: reader.Purpose}
	failClosed := func(why string) (*Sheet, error) {
		ws := append([]Warning{{WarnVisibility, why + "; nothing is shown"}}, policyWarns...)
		return &Sheet{AsOf: q.AsOf, Reader: who, Policy: p, Claims: []Claim{}, Warnings: sortWarnings(ws),
			Counts: Counts{MaxItems: k}, Trace: []TraceEntry{}}, nil
	}

	type candidate struct {
		rec    Record
		source string
	}
	var visible []candidate
	seen := map[string]bool{}
	rejected, pulls := 0, 0
	er, entries := st.(EntryRetriever)
	for offset := 0; ; offset += fetch {
		rq := Retrieval{Cues: q.Cues, Partition: q.Partition, AsOf: q.AsOf, Exclude: q.Exclude, Offset: offset, Limit: fetch}
		var (
			recs []Record
			vis  map[string]Visibility // a pull's, read with its records
			err  error
		)
		if pulls > 0 && entries {
			var es []Entry
			es, err = er.RetrieveEntries(ctx, rq)
			if errors.Is(err, ErrUndecided) {
				return failClosed("the visibility of a back-filled candidate could not be read")
			}
			vis = make(map[string]Visibility, len(es))
			for _, e := range es {
				recs = append(recs, e.Record)
				vis[e.Record.Key] = e.Visibility
			}
		} else {
			recs, err = st.Retrieve(ctx, rq)
		}
		if err != nil {
			return nil, fmt.Errorf("retrieve candidates: %w", err)
		}
		more := len(recs) >= fetch
		if len(recs) > fetch {
			recs = recs[:fetch]
		}
		var fresh []Record
		var keys []string
		for _, r := range recs {
			if !seen[r.Key] {
				seen[r.Key] = true
				fresh = append(fresh, r)
				keys = append(keys, r.Key)
			}
		}
		if len(keys) > 0 {
			if vis == nil {
				if vis, err = st.Visibility(ctx, keys); err != nil {
					return failClosed("the visibility read failed")
				}
			}
			source := "retrieval"
			if pulls > 0 {
				source = fmt.Sprintf("backfill-%d", pulls)
			}
			for _, r := range fresh {
				v, ok := vis[r.Key]
				if !ok {
					return failClosed("the visibility of a candidate was not returned")
				}
				yes, err := Visible(v, reader)
				if err != nil {
					return failClosed("the visibility of a candidate is invalid")
				}
				if yes {
					visible = append(visible, candidate{r, source})
				} else {
					rejected++
				}
			}
		}
		if len(visible) >= k || !more || pulls >= p.MaxBackfillPulls {
			break
		}
		pulls++
	}

	selected := visible[:min(k, len(visible))]
	in := Input{AsOf: q.AsOf, Chains: make(map[string][]Record, len(selected))}
	trace := make([]TraceEntry, 0, len(selected))
	var batch map[string][]Entry
	if cr, ok := st.(ChainsReader); ok && len(selected) > 0 {
		keys := make([]string, len(selected))
		for i, c := range selected {
			keys[i] = c.rec.Key
		}
		var err error
		if batch, err = cr.Chains(ctx, keys); err != nil {
			return nil, fmt.Errorf("read chains: %w", err)
		}
	}
	for i, c := range selected {
		in.Selected = append(in.Selected, c.rec)
		trace = append(trace, TraceEntry{Key: c.rec.Key, Rank: i + 1, Score: Score(c.rec, q.AsOf), Source: c.source})
		entries := batch[c.rec.Key]
		if batch == nil {
			var err error
			if entries, err = st.Chain(ctx, c.rec.Key); err != nil {
				return nil, fmt.Errorf("read chain: %w", err)
			}
		}
		var chain []Record
		for _, e := range entries {
			// A retract drops what it targets whoever may read it: it
			// reveals nothing, and hiding it would show a withdrawn claim.
			if e.Record.Kind == KindRetract {
				chain = append(chain, e.Record)
				continue
			}
			yes, err := Visible(e.Visibility, reader)
			if err != nil {
				return failClosed("the visibility of an annotation is invalid")
			}
			if yes {
				chain = append(chain, e.Record)
			}
		}
		in.Chains[c.rec.Key] = chain
	}

	sheet := Resolve(in, p)
	sheet.Reader = who
	sheet.Trace = trace
	sheet.Counts.MaxItems = k
	sheet.Counts.Candidates = len(visible)
	sheet.Counts.GateRejected = rejected
	sheet.Counts.BackfillPulls = pulls
	ws := append(sheet.Warnings, policyWarns...)
	if len(selected) < k && rejected > 0 {
		ws = append(ws, Warning{WarnShortSheet, fmt.Sprintf(
			"%d of %d candidates selected: the reader gate rejected %d after %d back-fill pulls",
			len(selected), k, rejected, pulls)})
	}
	sheet.Warnings = sortWarnings(ws)
	return sheet, nil
}
