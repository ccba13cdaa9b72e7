package register

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
)

// The errors of this package. Verification, decoding and validation
// failures are typed (*VerifyError, *DecodeError, *FieldError, *RefError)
// and wrap ErrBroken, ErrDecode, ErrInvalid and ErrUnknownDecision.
var (
	// ErrStale is returned by Store.Append when the record's Prev is not
	// the hash of the store's last record: another writer appended first.
	ErrStale = errors.New("register head moved")
	// ErrDuplicateID: a record's id is already in the register.
	ErrDuplicateID = errors.New("record id already in the register")
	// ErrUnknownDecision is wrapped by a *RefError: an outcome refers to
	// no decision record of the register.
	ErrUnknownDecision = errors.New("outcome refers to no decision")
	// ErrBroken is wrapped by a *VerifyError: the register does not
	// verify.
	ErrBroken = errors.New("register does not verify")
	// ErrPreset: a record handed to Append already carries prev or hash,
	// which only the register sets.
	ErrPreset = errors.New("prev and hash are set by the register")
)

// Store keeps the records of one register in order. It never edits or
// removes a record. An implementation is safe for concurrent use.
type Store interface {
	// Append adds r at the end if r.Prev is the hash of the last record
	// (GenesisHash when there is none); otherwise it adds nothing and
	// returns an error wrapping ErrStale. The check and the append are one
	// atomic step, so two writers never fork the chain.
	Append(ctx context.Context, r Record) error
	// Scan calls fn with each record from index from on, in order, and
	// stops at the first error fn returns, returning it.
	Scan(ctx context.Context, from int, fn func(i int, r Record) error) error
}

// LockingStore is a Store that holds its head while the caller links the
// next record: AppendLocked takes the head (a row lock, in a database),
// calls link with it, and appends the record link returns — whose Prev
// must be the head's hash — before it lets the head go. An error from
// link is returned as it is, and nothing is appended. Register.Append
// uses it when the store has it, so that writers in several processes
// wait for each other on the head instead of racing for it and retrying
// on ErrStale.
type LockingStore interface {
	Store
	AppendLocked(ctx context.Context, link func(ctx context.Context, head Head) (Record, error)) error
}

// MemStore is a Store in memory.
type MemStore struct {
	mu   sync.RWMutex
	recs []Record
}

var _ Store = (*MemStore)(nil)

// NewMemStore returns a store holding records exactly as given, checked
// for nothing: a register file loaded for verification, or a test's
// tampered copy. Verify judges them; Open refuses a chain that does not
// verify.
func NewMemStore(records ...Record) *MemStore {
	s := &MemStore{recs: make([]Record, len(records))}
	for i, r := range records {
		s.recs[i] = r.Clone()
	}
	return s
}

// Append implements Store.
func (s *MemStore) Append(ctx context.Context, r Record) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	head := GenesisHash
	if n := len(s.recs); n > 0 {
		head = s.recs[n-1].Hash
	}
	if r.Prev != head {
		return fmt.Errorf("append record: %w", ErrStale)
	}
	s.recs = append(s.recs, r.Clone())
	return nil
}

// Scan implements Store. The records are copies: fn cannot edit the
// store through them.
func (s *MemStore) Scan(ctx context.Context, from int, fn func(int, Record) error) error {
	for i := max(from, 0); ; i++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("scan register: %w", err)
		}
		s.mu.RLock()
		if i >= len(s.recs) {
			s.mu.RUnlock()
			return nil
		}
		r := s.recs[i].Clone()
		s.mu.RUnlock()
		if err := fn(i, r); err != nil {
			return err
		}
	}
}

// Len returns the number of records.
func (s *MemStore) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.recs)
}

// RefError is an outcome whose reference is not a decision of the
// register.
type RefError struct {
	// Ref is the decision id the outcome named.
	Ref string
	// IsOutcome is set when Ref names an outcome record rather than no
	// record at all.
	IsOutcome bool
}

func (e *RefError) Error() string {
	if e.IsOutcome {
		return "append record: outcome refers to an outcome, not a decision: " + ErrUnknownDecision.Error()
	}
	return "append record: " + ErrUnknownDecision.Error()
}

// Unwrap returns ErrUnknownDecision.
func (e *RefError) Unwrap() error { return ErrUnknownDecision }

// Problem names what is wrong with a record that does not verify.
type Problem string

// The problems Verify reports.
const (
	ProblemInvalid   Problem = "invalid"          // the record is not valid (Err is a *FieldError)
	ProblemPrev      Problem = "prev"             // prev is not the previous record's hash
	ProblemHash      Problem = "hash"             // hash is not the record's hash
	ProblemDuplicate Problem = "duplicate_id"     // the id appeared earlier
	ProblemRef       Problem = "unknown_decision" // an outcome refers to no earlier decision
)

// VerifyError is the first record of a register that does not verify.
type VerifyError struct {
	Index int    // 0-based position in the store
	ID    string // the record's id as stored ("" when it is not a valid id)
	Problem
	// Want and Got are the expected and stored hashes, for ProblemPrev and
	// ProblemHash.
	Want, Got string
	Err       error // the validation error, for ProblemInvalid
}

func (e *VerifyError) Error() string {
	s := "verify register: record " + strconv.Itoa(e.Index)
	if e.ID != "" {
		s += " (" + e.ID + ")"
	}
	switch e.Problem {
	case ProblemInvalid:
		s += ": " + e.Err.Error()
	case ProblemPrev:
		s += ": prev is not the previous record's hash"
	case ProblemHash:
		s += ": hash does not match the record"
	case ProblemDuplicate:
		s += ": id repeats an earlier record's"
	case ProblemRef:
		s += ": outcome refers to no earlier decision"
	}
	return s + ": " + ErrBroken.Error()
}

// Unwrap returns ErrBroken, and for ProblemInvalid the validation error.
func (e *VerifyError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrBroken, e.Err}
	}
	return []error{ErrBroken}
}

// Head is the end of a verified chain: how many records, and the last
// one's hash (GenesisHash when there are none). Publishing it somewhere
// the register's writer cannot edit anchors the chain: a register later
// truncated or rewritten past it no longer ends there.
type Head struct {
	Len  int
	Hash string
}

// chain is the state a verifier keeps while it walks a register.
type chain struct {
	head  Head
	kinds map[string]Kind
}

func newChain() *chain {
	return &chain{head: Head{Hash: GenesisHash}, kinds: map[string]Kind{}}
}

// check judges the next record; it returns a *VerifyError, or nil after
// adding the record to the chain.
func (c *chain) check(r Record) error {
	i := c.head.Len
	fail := func(p Problem) *VerifyError {
		e := &VerifyError{Index: i, Problem: p}
		if validID(r.ID) {
			e.ID = r.ID
		}
		return e
	}
	if err := r.Validate(); err != nil {
		e := fail(ProblemInvalid)
		e.Err = err
		return e
	}
	if r.Prev != c.head.Hash {
		e := fail(ProblemPrev)
		e.Want, e.Got = c.head.Hash, r.Prev
		return e
	}
	h, err := ComputeHash(r)
	if err != nil {
		e := fail(ProblemInvalid)
		e.Err = err
		return e
	}
	if r.Hash != h {
		e := fail(ProblemHash)
		e.Want, e.Got = h, r.Hash
		return e
	}
	if err := c.refs(r); err != nil {
		if errors.Is(err, ErrDuplicateID) {
			return fail(ProblemDuplicate)
		}
		return fail(ProblemRef)
	}
	c.add(r)
	return nil
}

// refs checks what a record says about others: a new id, and an outcome's
// reference to an earlier decision.
func (c *chain) refs(r Record) error {
	if _, dup := c.kinds[r.ID]; dup {
		return fmt.Errorf("append record: %w", ErrDuplicateID)
	}
	if r.Kind == KindOutcome {
		switch c.kinds[r.Outcome.Decision] {
		case KindDecision:
		case KindOutcome:
			return &RefError{Ref: r.Outcome.Decision, IsOutcome: true}
		default:
			return &RefError{Ref: r.Outcome.Decision}
		}
	}
	return nil
}

func (c *chain) add(r Record) {
	c.kinds[r.ID] = r.Kind
	c.head = Head{Len: c.head.Len + 1, Hash: r.Hash}
}

// Verify walks the store from the first record, recomputing every hash
// and checking every link, id and reference, and returns the head of the
// chain. The first record that fails is reported as a *VerifyError
// (errors.Is(err, ErrBroken)) with its index and id; an error of the store
// itself is returned as it is.
func Verify(ctx context.Context, s Store) (Head, error) {
	c := newChain()
	err := s.Scan(ctx, 0, func(_ int, r Record) error { return c.check(r) })
	if err != nil {
		return Head{}, err
	}
	return c.head, nil
}

// Register appends records to a store, keeping the chain. It is safe for
// concurrent use, and several Registers (in several processes) may share
// one Store: a writer that finds the head moved reads what the others
// appended, checks it, and tries again.
type Register struct {
	mu    sync.Mutex
	store Store
	c     *chain
}

// Open verifies the store's chain and returns a Register that appends to
// it. A chain that does not verify is refused with its *VerifyError.
func Open(ctx context.Context, s Store) (*Register, error) {
	g := &Register{store: s, c: newChain()}
	if err := g.catchUp(ctx); err != nil {
		return nil, err
	}
	return g, nil
}

// catchUp reads and checks the records appended since the last one seen.
func (g *Register) catchUp(ctx context.Context) error {
	return g.store.Scan(ctx, g.c.head.Len, func(_ int, r Record) error { return g.c.check(r) })
}

// Head returns the head of the chain as this Register last saw it.
func (g *Register) Head() Head {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.c.head
}

// maxRetries bounds how often Append reads other writers' records and
// tries again.
const maxRetries = 16

// Append validates r (which must not carry Prev or Hash), links it to the
// chain and appends it, returning the record as stored. An id already in
// the register is ErrDuplicateID; an outcome whose reference names no
// decision is a *RefError (errors.Is(err, ErrUnknownDecision)); an invalid
// record a *FieldError. Nothing is appended on error.
func (g *Register) Append(ctx context.Context, r Record) (Record, error) {
	if r.Prev != "" || r.Hash != "" {
		return Record{}, fmt.Errorf("append record: %w", ErrPreset)
	}
	if err := r.Validate(); err != nil {
		return Record{}, err
	}
	r = r.Clone()
	g.mu.Lock()
	defer g.mu.Unlock()
	if ls, ok := g.store.(LockingStore); ok {
		return g.appendLocked(ctx, ls, r)
	}
	for range maxRetries {
		if err := g.c.refs(r); err != nil {
			return Record{}, err
		}
		r.Prev = g.c.head.Hash
		h, err := ComputeHash(r)
		if err != nil {
			return Record{}, err
		}
		r.Hash = h
		err = g.store.Append(ctx, r)
		if err == nil {
			g.c.add(r)
			return r.Clone(), nil
		}
		if !errors.Is(err, ErrStale) {
			return Record{}, err
		}
		if err := g.catchUp(ctx); err != nil {
			return Record{}, fmt.Errorf("append record: %w", err)
		}
	}
	return Record{}, fmt.Errorf("append record: %d tries: %w", maxRetries, ErrStale)
}

// appendLocked links r to the head while ls holds it, first reading and
// checking what other writers appended since this Register last looked.
// A store whose head is behind the records it scans (one that does not
// lock, and so read an older head) is tried again.
func (g *Register) appendLocked(ctx context.Context, ls LockingStore, r Record) (Record, error) {
	var err error
	for range maxRetries {
		var out Record
		err = ls.AppendLocked(ctx, func(ctx context.Context, head Head) (Record, error) {
			if head != g.c.head {
				if err := g.catchUp(ctx); err != nil {
					return Record{}, fmt.Errorf("append record: %w", err)
				}
				if head != g.c.head {
					return Record{}, fmt.Errorf("append record: %w", ErrStale)
				}
			}
			if err := g.c.refs(r); err != nil {
				return Record{}, err
			}
			out = r
			out.Prev = head.Hash
			h, err := ComputeHash(out)
			if err != nil {
				return Record{}, err
			}
			out.Hash = h
			return out, nil
		})
		if err == nil {
			g.c.add(out)
			return out.Clone(), nil
		}
		if !errors.Is(err, ErrStale) {
			return Record{}, err
		}
	}
	return Record{}, fmt.Errorf("append record: %d tries: %w", maxRetries, err)
}
