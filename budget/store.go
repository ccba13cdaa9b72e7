package budget

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// A session's budget can live outside the process that spends it, in a
// Store: a database row per scope (budget/postgres, budget/duckdb) that
// several processes draw from and a restart finds again, or a MemStore.
// Each question's budget is then carved out of the scope's remainder by
// Reserve and its unused part handed back by Settle; the question itself
// is a root Budget in the process that runs it.
//
// An account obeys, on every component, at every moment,
//
//	remaining + reserved + spent == total
//
// where reserved is what live reservations hold. A process that dies
// holding a reservation never settles it: its amount stays reserved,
// neither spent nor remaining, so a crash can only leave less to spend,
// never more (total - remaining - spent - what live processes hold is
// what crashes lost).

// The errors of a Store.
var (
	// ErrNoAccount: the scope has no account (Open creates it).
	ErrNoAccount = errors.New("no budget account for the scope")
	// ErrUnreserved: a settlement handed back more than the scope holds
	// reserved (a reservation settled twice, or one never made).
	ErrUnreserved = errors.New("settlement beyond what is reserved")
)

// Account is one scope's budget in a Store.
type Account struct {
	Total     Amount // what the scope was given
	Remaining Amount // what may still be reserved
	Reserved  Amount // what live reservations hold
	Spent     Amount // what settled reservations used
}

// Store keeps budget accounts by scope (a session's name). Every method
// is atomic: a Reserve takes from what remains only when every component
// fits, however many processes reserve at once. Safe for concurrent use.
type Store interface {
	// Open returns the scope's account, creating it with total when
	// missing. An account whose total differs is resized to total: its
	// remaining moves by the difference (never below zero) and its
	// total becomes remaining + reserved + spent.
	Open(ctx context.Context, scope string, total Amount) (Account, error)
	// Account returns the scope's account (ErrNoAccount when missing).
	Account(ctx context.Context, scope string) (Account, error)
	// Reserve takes a from the scope's remaining when every component
	// fits and returns what remains; otherwise it takes nothing and
	// returns a *DeniedError (Op "reserve", Budget the scope) naming
	// every component that does not fit.
	Reserve(ctx context.Context, scope string, a Amount) (Amount, error)
	// Settle ends a reservation of reserved that used used: used is
	// spent, the rest returns to remaining, and what remains is
	// returned. Use beyond the reservation is an *OverrunError;
	// reserved beyond what the scope holds reserved is ErrUnreserved.
	// Nothing changes on an error.
	Settle(ctx context.Context, scope string, reserved, used Amount) (Amount, error)
}

// CheckReserve is the check every Store makes of a Reserve's argument.
func CheckReserve(scope string, a Amount) error {
	if neg := a.Negative(); neg != nil {
		return fmt.Errorf("reserve %s: %s: %w", scope, joinComponents(neg), ErrNegative)
	}
	return nil
}

// CheckSettle is the check every Store makes of a Settle's arguments.
func CheckSettle(scope string, reserved, used Amount) error {
	if reserved.Negative() != nil || used.Negative() != nil {
		return fmt.Errorf("settle %s: %w", scope, ErrNegative)
	}
	if over := used.Exceeding(reserved); over != nil {
		return &OverrunError{Budget: scope, Components: over, Reserved: reserved, Used: used}
	}
	return nil
}

// Resize returns acct with its total set to total, as Open resizes an
// account: remaining moves by the difference, never below zero, and the
// total is then remaining + reserved + spent.
func Resize(acct Account, total Amount) Account {
	r := acct.Remaining.Add(total.Sub(acct.Total))
	for _, c := range r.Negative() {
		r = r.With(c, 0)
	}
	acct.Remaining = r
	acct.Total = r.Add(acct.Reserved).Add(acct.Spent)
	return acct
}

// MemStore is a Store in this process's memory: what a pipeline uses when
// no database keeps its session budget. The zero value is ready.
type MemStore struct {
	mu       sync.Mutex
	accounts map[string]*Account
}

var _ Store = (*MemStore)(nil)

// Open implements Store.
func (m *MemStore) Open(_ context.Context, scope string, total Amount) (Account, error) {
	if neg := total.Negative(); neg != nil {
		return Account{}, fmt.Errorf("open %s: %s: %w", scope, joinComponents(neg), ErrNegative)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.accounts == nil {
		m.accounts = map[string]*Account{}
	}
	a, ok := m.accounts[scope]
	if !ok {
		a = &Account{Total: total, Remaining: total}
		m.accounts[scope] = a
	} else if a.Total != total {
		*a = Resize(*a, total)
	}
	return *a, nil
}

// Account implements Store.
func (m *MemStore) Account(_ context.Context, scope string) (Account, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.accounts[scope]
	if !ok {
		return Account{}, fmt.Errorf("read %s: %w", scope, ErrNoAccount)
	}
	return *a, nil
}

// Reserve implements Store.
func (m *MemStore) Reserve(_ context.Context, scope string, x Amount) (Amount, error) {
	if err := CheckReserve(scope, x); err != nil {
		return Amount{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.accounts[scope]
	if !ok {
		return Amount{}, fmt.Errorf("reserve %s: %w", scope, ErrNoAccount)
	}
	if over := x.Exceeding(a.Remaining); over != nil {
		return Amount{}, &DeniedError{Op: "reserve", Budget: scope, Components: over, Requested: x, Remaining: a.Remaining}
	}
	a.Remaining = a.Remaining.Sub(x)
	a.Reserved = a.Reserved.Add(x)
	return a.Remaining, nil
}

// Settle implements Store.
func (m *MemStore) Settle(_ context.Context, scope string, reserved, used Amount) (Amount, error) {
	if err := CheckSettle(scope, reserved, used); err != nil {
		return Amount{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.accounts[scope]
	if !ok {
		return Amount{}, fmt.Errorf("settle %s: %w", scope, ErrNoAccount)
	}
	if reserved.Exceeding(a.Reserved) != nil {
		return Amount{}, fmt.Errorf("settle %s: %w", scope, ErrUnreserved)
	}
	a.Reserved = a.Reserved.Sub(reserved)
	a.Spent = a.Spent.Add(used)
	a.Remaining = a.Remaining.Add(reserved.Sub(used))
	return a.Remaining, nil
}

// Session is one scope of a Store: a session's budget, from which each
// question's is reserved.
type Session struct {
	store Store
	scope string
}

// OpenSession opens (creating or resizing) the scope's account with
// total and returns the session over it.
func OpenSession(ctx context.Context, s Store, scope string, total Amount) (*Session, error) {
	if _, err := s.Open(ctx, scope, total); err != nil {
		return nil, fmt.Errorf("open session budget: %w", err)
	}
	return &Session{store: s, scope: scope}, nil
}

// Scope names the session's account.
func (s *Session) Scope() string { return s.scope }

// Reserve is Store.Reserve on the session's scope.
func (s *Session) Reserve(ctx context.Context, a Amount) (Amount, error) {
	return s.store.Reserve(ctx, s.scope, a)
}

// Settle is Store.Settle on the session's scope.
func (s *Session) Settle(ctx context.Context, reserved, used Amount) (Amount, error) {
	return s.store.Settle(ctx, s.scope, reserved, used)
}

// Account is Store.Account on the session's scope.
func (s *Session) Account(ctx context.Context) (Account, error) {
	return s.store.Account(ctx, s.scope)
}
