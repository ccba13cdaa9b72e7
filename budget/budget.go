package budget

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The errors of this package. A denial and an overrun are typed
// (*DeniedError, *OverrunError) and wrap ErrExhausted and ErrOverrun.
var (
	// ErrExhausted is wrapped by a *DeniedError: a reservation, a child or
	// a reallocation asked for more than remains on some component.
	ErrExhausted = errors.New("budget exhausted")
	// ErrOverrun is wrapped by an *OverrunError: a settlement reported
	// more use than was reserved.
	ErrOverrun = errors.New("use beyond reservation")
	// ErrNegative: an amount had a component below zero.
	ErrNegative = errors.New("negative amount")
	// ErrSettled: the reservation was settled already.
	ErrSettled = errors.New("reservation already settled")
	// ErrForeign: the reservation was made on another budget (or is nil).
	ErrForeign = errors.New("reservation of another budget")
	// ErrClosed: the budget was closed.
	ErrClosed = errors.New("budget closed")
	// ErrBusy: a budget with live reservations or open children cannot be
	// closed.
	ErrBusy = errors.New("budget has live reservations or open children")
	// ErrRoot: a root budget has no parent to give its remainder back to.
	ErrRoot = errors.New("budget has no parent")
	// ErrNameTaken: an open child of the parent already has the name.
	ErrNameTaken = errors.New("child name taken")
	// ErrUnrelated: a reallocation between budgets that are neither
	// siblings nor parent and child.
	ErrUnrelated = errors.New("budgets are neither siblings nor parent and child")
)

// DeniedError is a denied reservation, child or reallocation. Nothing was
// taken.
type DeniedError struct {
	Op         string      // "reserve", "allocate" or "reallocate"
	Budget     string      // the budget asked
	Components []Component // every component that does not fit, in order
	Requested  Amount
	Remaining  Amount // what remained when it was denied
}

func (e *DeniedError) Error() string {
	return e.Op + " " + e.Budget + ": " + joinComponents(e.Components) + " exceeded: " + ErrExhausted.Error()
}

// Unwrap returns ErrExhausted.
func (e *DeniedError) Unwrap() error { return ErrExhausted }

// OverrunError is a settlement that reported more use than was reserved.
// The reservation is left live and unchanged.
type OverrunError struct {
	Budget      string
	Reservation uint64
	Components  []Component // every component used beyond its reservation
	Reserved    Amount
	Used        Amount
}

func (e *OverrunError) Error() string {
	return fmt.Sprintf("settle %s reservation %d: %s: %s", e.Budget, e.Reservation, joinComponents(e.Components), ErrOverrun)
}

// Unwrap returns ErrOverrun.
func (e *OverrunError) Unwrap() error { return ErrOverrun }

func joinComponents(cs []Component) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.String()
	}
	return strings.Join(names, ", ")
}

// EventType names what happened to a budget.
type EventType string

// The event types. Exceeded is a denial; Overrun a settlement refused for
// use beyond the reservation.
const (
	EventReserved    EventType = "budget.reserved"
	EventExceeded    EventType = "budget.exceeded"
	EventSettled     EventType = "budget.settled"
	EventOverrun     EventType = "budget.overrun"
	EventAllocated   EventType = "budget.allocated"
	EventReallocated EventType = "budget.reallocated"
	EventReleased    EventType = "budget.released"
)

// Event is one operation on a budget tree, or one denial.
type Event struct {
	Type EventType
	// Budget names the budget the operation was asked of: for allocated
	// and released the parent, for reallocated the source.
	Budget string
	// Child names the child of allocated and released, and the destination
	// of reallocated.
	Child string
	// Reservation is the id of a reserved, settled or overrun reservation.
	Reservation uint64
	// Amount is what was reserved, settled (the reservation), allocated,
	// released (given back), moved or denied.
	Amount Amount
	// Used is what a settlement (or a refused one) reported.
	Used Amount
	// Remaining is Budget's remainder after the operation.
	Remaining Amount
	// Components lists what did not fit (exceeded) or was overrun.
	Components []Component
}

// Options configure a root budget. A nil *Options means no event hook.
type Options struct {
	// OnEvent, if set, receives every event in the order the operations
	// took effect. It is called with the tree's lock held: it must return
	// quickly and must not call back into any budget of the tree.
	OnEvent func(Event)
}

// tree is what a root budget and all its descendants share.
type tree struct {
	mu      sync.Mutex
	onEvent func(Event)
	nextID  uint64
}

func (t *tree) emit(e Event) {
	if t.onEvent != nil {
		t.onEvent(e)
	}
}

// Budget is a total to be spent through reservations. It is safe for
// concurrent use.
type Budget struct {
	t      *tree
	name   string
	parent *Budget

	total, remaining, reserved, allocated, spent Amount

	live     map[uint64]*Reservation
	children map[*Budget]struct{}
	closed   bool
}

// Reservation is a part of a budget set aside for work about to run.
type Reservation struct {
	id      uint64
	b       *Budget
	amount  Amount
	settled bool // guarded by the tree's lock
}

// ID returns the reservation's id: 1, 2, ... in the order reservations
// were granted across the whole tree, so the same run numbers them the
// same.
func (r *Reservation) ID() uint64 { return r.id }

// Amount returns what was reserved.
func (r *Reservation) Amount() Amount { return r.amount }

// New returns a root budget holding total. A negative component is an
// error.
func New(name string, total Amount, opts *Options) (*Budget, error) {
	if neg := total.Negative(); neg != nil {
		return nil, fmt.Errorf("new budget: %s: %w", joinComponents(neg), ErrNegative)
	}
	t := &tree{}
	if opts != nil {
		t.onEvent = opts.OnEvent
	}
	return newBudget(t, name, nil, total), nil
}

func newBudget(t *tree, name string, parent *Budget, total Amount) *Budget {
	return &Budget{t: t, name: name, parent: parent, total: total, remaining: total,
		live: map[uint64]*Reservation{}, children: map[*Budget]struct{}{}}
}

// Name returns the budget's name; a child's is its parent's name, a slash
// and the name it was given.
func (b *Budget) Name() string { return b.name }

// Reserve sets a aside if every component fits what remains. Otherwise it
// takes nothing and returns a *DeniedError naming every component that
// does not fit (errors.Is(err, ErrExhausted)).
func (b *Budget) Reserve(a Amount) (*Reservation, error) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("reserve %s: %w", b.name, ErrClosed)
	}
	if neg := a.Negative(); neg != nil {
		return nil, fmt.Errorf("reserve %s: %s: %w", b.name, joinComponents(neg), ErrNegative)
	}
	if err := b.deny("reserve", a); err != nil {
		return nil, err
	}
	b.remaining = b.remaining.Sub(a)
	b.reserved = b.reserved.Add(a)
	b.t.nextID++
	r := &Reservation{id: b.t.nextID, b: b, amount: a}
	b.live[r.id] = r
	b.t.emit(Event{Type: EventReserved, Budget: b.name, Reservation: r.id, Amount: a, Remaining: b.remaining})
	return r, nil
}

// deny returns a *DeniedError, and emits budget.exceeded, when a does not
// fit b's remainder.
func (b *Budget) deny(op string, a Amount) error {
	over := a.Exceeding(b.remaining)
	if over == nil {
		return nil
	}
	b.t.emit(Event{Type: EventExceeded, Budget: b.name, Amount: a, Remaining: b.remaining, Components: slices.Clone(over)})
	return &DeniedError{Op: op, Budget: b.name, Components: over, Requested: a, Remaining: b.remaining}
}

// Settle ends a reservation of b that used used: the used part is spent
// and the rest returns to b's remainder; Settle returns that rest. Use
// beyond the reservation on any component is an *OverrunError
// (errors.Is(err, ErrOverrun)) and leaves the reservation live and
// unchanged.
func (b *Budget) Settle(r *Reservation, used Amount) (Amount, error) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	if r == nil || r.b != b {
		return Amount{}, fmt.Errorf("settle %s: %w", b.name, ErrForeign)
	}
	if r.settled {
		return Amount{}, fmt.Errorf("settle %s reservation %d: %w", b.name, r.id, ErrSettled)
	}
	if neg := used.Negative(); neg != nil {
		return Amount{}, fmt.Errorf("settle %s reservation %d: %s: %w", b.name, r.id, joinComponents(neg), ErrNegative)
	}
	if over := used.Exceeding(r.amount); over != nil {
		b.t.emit(Event{Type: EventOverrun, Budget: b.name, Reservation: r.id, Amount: r.amount, Used: used, Remaining: b.remaining, Components: slices.Clone(over)})
		return Amount{}, &OverrunError{Budget: b.name, Reservation: r.id, Components: over, Reserved: r.amount, Used: used}
	}
	unused := r.amount.Sub(used)
	r.settled = true
	delete(b.live, r.id)
	b.reserved = b.reserved.Sub(r.amount)
	b.spent = b.spent.Add(used)
	b.remaining = b.remaining.Add(unused)
	b.t.emit(Event{Type: EventSettled, Budget: b.name, Reservation: r.id, Amount: r.amount, Used: used, Remaining: b.remaining})
	return unused, nil
}

// Child carves a budget of total a out of b's remainder: a session's
// budget gives each question one. It is denied like a reservation when a
// does not fit. The name must differ from those of b's open children.
// Close gives the child's remainder back.
func (b *Budget) Child(name string, a Amount) (*Budget, error) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("allocate %s: %w", b.name, ErrClosed)
	}
	if neg := a.Negative(); neg != nil {
		return nil, fmt.Errorf("allocate %s: %s: %w", b.name, joinComponents(neg), ErrNegative)
	}
	full := b.name + "/" + name
	for c := range b.children {
		if c.name == full {
			return nil, fmt.Errorf("allocate %s: %w", b.name, ErrNameTaken)
		}
	}
	if err := b.deny("allocate", a); err != nil {
		return nil, err
	}
	c := newBudget(b.t, full, b, a)
	b.remaining = b.remaining.Sub(a)
	b.allocated = b.allocated.Add(a)
	b.children[c] = struct{}{}
	b.t.emit(Event{Type: EventAllocated, Budget: b.name, Child: c.name, Amount: a, Remaining: b.remaining})
	return c, nil
}

// Close ends a child budget with no live reservations and no open
// children, giving its remainder back to its parent (and counting what it
// spent as the parent's); it returns what was given back. The child
// accepts nothing afterwards.
func (b *Budget) Close() (Amount, error) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	if b.parent == nil {
		return Amount{}, fmt.Errorf("close %s: %w", b.name, ErrRoot)
	}
	if b.closed {
		return Amount{}, fmt.Errorf("close %s: %w", b.name, ErrClosed)
	}
	if len(b.live) > 0 || len(b.children) > 0 {
		return Amount{}, fmt.Errorf("close %s: %w", b.name, ErrBusy)
	}
	p := b.parent
	back := b.remaining
	p.allocated = p.allocated.Sub(b.total)
	p.spent = p.spent.Add(b.spent)
	p.remaining = p.remaining.Add(back)
	delete(p.children, b)
	b.closed = true
	b.t.emit(Event{Type: EventReleased, Budget: p.name, Child: b.name, Amount: back, Remaining: p.remaining})
	return back, nil
}

// Reallocate moves a from from's remainder to to: between two open
// children of one parent, or between an open child and its parent. It is
// denied like a reservation when a does not fit what remains of from.
func Reallocate(from, to *Budget, a Amount) error {
	if from == nil || to == nil || from.t != to.t || from == to {
		return fmt.Errorf("reallocate: %w", ErrUnrelated)
	}
	t := from.t
	t.mu.Lock()
	defer t.mu.Unlock()
	sibling := from.parent != nil && from.parent == to.parent
	down := to.parent == from
	up := from.parent == to
	if !sibling && !down && !up {
		return fmt.Errorf("reallocate %s to %s: %w", from.name, to.name, ErrUnrelated)
	}
	if from.closed || to.closed {
		return fmt.Errorf("reallocate %s to %s: %w", from.name, to.name, ErrClosed)
	}
	if neg := a.Negative(); neg != nil {
		return fmt.Errorf("reallocate %s to %s: %s: %w", from.name, to.name, joinComponents(neg), ErrNegative)
	}
	if err := from.deny("reallocate", a); err != nil {
		return err
	}
	from.remaining = from.remaining.Sub(a)
	to.remaining = to.remaining.Add(a)
	switch {
	case sibling:
		from.total = from.total.Sub(a)
		to.total = to.total.Add(a)
	case down:
		from.allocated = from.allocated.Add(a)
		to.total = to.total.Add(a)
	case up:
		from.total = from.total.Sub(a)
		to.allocated = to.allocated.Sub(a)
	}
	t.emit(Event{Type: EventReallocated, Budget: from.name, Child: to.name, Amount: a, Remaining: from.remaining})
	return nil
}

// State is a consistent snapshot of one budget.
type State struct {
	Name      string
	Total     Amount // the budget's total, as moved by reallocations
	Remaining Amount // what may still be reserved
	Reserved  Amount // the sum of live reservations
	Allocated Amount // the totals of open children
	Spent     Amount // what settled reservations and closed children used
	Live      int    // live reservations
	Children  int    // open children
	Closed    bool
}

// Snapshot returns b's state. Remaining + Reserved + Allocated + Spent
// equals Total on every component.
func (b *Budget) Snapshot() State {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	return b.state()
}

func (b *Budget) state() State {
	return State{Name: b.name, Total: b.total, Remaining: b.remaining, Reserved: b.reserved,
		Allocated: b.allocated, Spent: b.spent, Live: len(b.live), Children: len(b.children), Closed: b.closed}
}

// Remaining returns what may still be reserved.
func (b *Budget) Remaining() Amount {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	return b.remaining
}
