// Package memstore is an in-memory journal: a memory.Store over a slice
// of entries, for tests, examples and a process that keeps its memory
// for its own lifetime. It is append-only, like every journal, and safe
// for concurrent use. It imports only the standard library and package
// memory.
package memstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/provenant/provenant/memory"
)

var _ memory.Journal = (*Store)(nil)

// Errors of an append or a load.
var (
	// ErrDuplicateKey: the key is already in the journal
	// (memory.ErrDuplicateKey).
	ErrDuplicateKey = memory.ErrDuplicateKey
	// ErrUnknownTarget: an annotation's target is not in the journal
	// (memory.ErrUnknownTarget).
	ErrUnknownTarget = memory.ErrUnknownTarget
)

// Store is an in-memory journal.
type Store struct {
	mu       sync.RWMutex
	entries  []memory.Entry
	byKey    map[string]int
	byTarget map[string][]int
	// bySubject indexes entries by their subject under simple case
	// folding, the equality Cues.Match uses, so that a retrieval with a
	// subject cue scans only its subject's entries.
	bySubject map[string][]int
}

// New returns an empty journal.
func New() *Store {
	return &Store{byKey: map[string]int{}, byTarget: map[string][]int{}, bySubject: map[string][]int{}}
}

// Load returns a journal holding a snapshot's entries as they are,
// corrupt records included (a store read back from disk can hold what
// Append would refuse); only a repeated key is an error.
func Load(entries []memory.Entry) (*Store, error) {
	s := New()
	for _, e := range entries {
		if _, ok := s.byKey[e.Record.Key]; ok {
			return nil, fmt.Errorf("load journal: %w", ErrDuplicateKey)
		}
		s.add(e)
	}
	return s, nil
}

func (s *Store) add(e memory.Entry) {
	e.Record.Tags = slices.Clone(e.Record.Tags)
	s.byKey[e.Record.Key] = len(s.entries)
	if e.Record.Target != "" {
		s.byTarget[e.Record.Target] = append(s.byTarget[e.Record.Target], len(s.entries))
	}
	f := fold(e.Record.Subject)
	s.bySubject[f] = append(s.bySubject[f], len(s.entries))
	s.entries = append(s.entries, e)
}

// fold is the subject index's key (memory.FoldSubject).
func fold(s string) string { return memory.FoldSubject(s) }

// Append adds a validated record with its visibility. The key must be
// new, and an annotation's target must already be in the journal.
func (s *Store) Append(ctx context.Context, r memory.Record, v memory.Visibility) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	if err := memory.Validate(r); err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	if err := v.Validate(); err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byKey[r.Key]; ok {
		return fmt.Errorf("append record: %w", ErrDuplicateKey)
	}
	if r.Target != "" {
		if _, ok := s.byKey[r.Target]; !ok {
			return fmt.Errorf("append record: %w", ErrUnknownTarget)
		}
	}
	s.add(memory.Entry{Record: r, Visibility: v})
	return nil
}

// Len is the number of entries.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.entries)
}

// Retrieve scans the entries of the cued subject (every entry, when no
// subject is cued) for the ones q admits and returns a page of them in
// rank order.
func (s *Store) Retrieve(ctx context.Context, q memory.Retrieval) ([]memory.Record, error) {
	es, err := s.RetrieveEntries(ctx, q)
	if err != nil {
		return nil, err
	}
	recs := make([]memory.Record, len(es))
	for i, e := range es {
		recs[i] = e.Record
	}
	return recs, nil
}

// RetrieveEntries is Retrieve with each record's visibility
// (memory.EntryRetriever).
func (s *Store) RetrieveEntries(ctx context.Context, q memory.Retrieval) ([]memory.Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("retrieve records: %w", err)
	}
	if q.Offset < 0 || q.Limit < 0 {
		return nil, errors.New("retrieve records: negative offset or limit")
	}
	s.mu.RLock()
	var hits []memory.Entry
	if strings.TrimSpace(q.Cues.Subject) != "" {
		idx := s.bySubject[fold(q.Cues.Subject)]
		hits = make([]memory.Entry, 0, len(idx))
		for _, i := range idx {
			if q.Admits(s.entries[i].Record) {
				hits = append(hits, s.entries[i])
			}
		}
	} else {
		for _, e := range s.entries {
			if q.Admits(e.Record) {
				hits = append(hits, e)
			}
		}
	}
	s.mu.RUnlock()
	memory.SortRankEntries(hits, q.AsOf)
	if q.Offset >= len(hits) {
		return nil, nil
	}
	hits = hits[q.Offset:]
	return slices.Clone(hits[:min(q.Limit, len(hits))]), nil
}

// Visibility returns the visibility of each key it holds; an unknown key
// is left out.
func (s *Store) Visibility(ctx context.Context, keys []string) (map[string]memory.Visibility, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read visibility: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[string]memory.Visibility, len(keys))
	for _, k := range keys {
		if i, ok := s.byKey[k]; ok {
			out[k] = s.entries[i].Visibility
		}
	}
	return out, nil
}

// Chain returns every entry reachable from key through targets.
func (s *Store) Chain(ctx context.Context, key string) ([]memory.Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read chain: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []memory.Entry
	seen := map[string]bool{key: true}
	queue := []string{key}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		for _, i := range s.byTarget[k] {
			e := s.entries[i]
			if seen[e.Record.Key] {
				continue
			}
			seen[e.Record.Key] = true
			out = append(out, e)
			queue = append(queue, e.Record.Key)
		}
	}
	return out, nil
}
