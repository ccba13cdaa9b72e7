package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/provenant/provenant/budget"
)

// BudgetStore is a budget.Store in one table of a schema,
// budget_accounts: a row per scope (a session's name) holding, for each
// of the five components, the total, what remains, what live
// reservations hold and what was spent, with a CHECK that the last
// three add up to the first and none is negative. A reservation is one
// conditional UPDATE (remaining >= amount on every component), which
// the database runs under the row's lock, so two processes can never
// both take the last of a component; a settlement moves the
// reservation's unused part back to remaining in one UPDATE. What a
// process that died had reserved stays in the reserved columns: lost,
// never spent twice.
type BudgetStore struct {
	closer
	db *sql.DB
	d  Dialect
	mu sync.Mutex

	qInsert, qTouch, qSelect, qSelectLock, qSet, qReserve, qSettle string
}

var _ budget.Store = (*BudgetStore)(nil)

// budgetColumns are a component's four columns, in the order the
// queries list them.
var budgetColumns = []string{"total", "remaining", "reserved", "spent"}

// NewBudgetStore creates the schema and table if missing and returns the
// store; with owns, its Close closes db too.
func NewBudgetStore(ctx context.Context, db *sql.DB, d Dialect, schema string, owns bool) (*BudgetStore, error) {
	schema, err := CheckSchema(schema)
	if err != nil {
		return nil, err
	}
	table := schema + ".budget_accounts"
	var cols, defs, checks, params, set, reserve, enough, settle, reserved []string
	n := 1 // $1 is the scope
	for _, c := range budget.Components() {
		name := c.String()
		for _, k := range budgetColumns {
			col := k + "_" + name
			cols = append(cols, col)
			defs = append(defs, col+" BIGINT NOT NULL")
			n++
			params = append(params, "$"+strconv.Itoa(n))
			set = append(set, col+" = $"+strconv.Itoa(n))
		}
		checks = append(checks, fmt.Sprintf("CHECK (remaining_%[1]s >= 0 AND reserved_%[1]s >= 0 AND spent_%[1]s >= 0 AND remaining_%[1]s + reserved_%[1]s + spent_%[1]s = total_%[1]s)", name))
	}
	// Reserve and Settle take one or two amounts after the scope: $2.. in
	// component order.
	for i, c := range budget.Components() {
		name, a, u := c.String(), "$"+strconv.Itoa(i+2), "$"+strconv.Itoa(i+2+budget.NumComponents)
		reserve = append(reserve, fmt.Sprintf("remaining_%[1]s = remaining_%[1]s - %[2]s, reserved_%[1]s = reserved_%[1]s + %[2]s", name, a))
		enough = append(enough, fmt.Sprintf("remaining_%s >= %s", name, a))
		settle = append(settle, fmt.Sprintf("reserved_%[1]s = reserved_%[1]s - %[2]s, spent_%[1]s = spent_%[1]s + %[3]s, remaining_%[1]s = remaining_%[1]s + %[2]s - %[3]s", name, a, u))
		reserved = append(reserved, fmt.Sprintf("reserved_%s >= %s", name, a))
	}
	err = setup(ctx, db, d, []string{
		"CREATE SCHEMA IF NOT EXISTS " + schema,
		"CREATE TABLE IF NOT EXISTS " + table + " (scope TEXT PRIMARY KEY, " + strings.Join(defs, ", ") + ", " + strings.Join(checks, ", ") + ")",
	})
	if err != nil {
		return nil, fmt.Errorf("create budget table: %w", err)
	}
	all := strings.Join(cols, ", ")
	where := " WHERE scope = $1"
	return &BudgetStore{
		closer: closer{owns: owns, db: db},
		db:     db, d: d,
		qInsert:     "INSERT INTO " + table + " (scope, " + all + ") VALUES ($1, " + strings.Join(params, ", ") + ") ON CONFLICT DO NOTHING",
		qTouch:      "UPDATE " + table + " SET scope = scope" + where,
		qSelect:     "SELECT " + all + " FROM " + table + where,
		qSelectLock: "SELECT " + all + " FROM " + table + where + d.ForUpdate,
		qSet:        "UPDATE " + table + " SET " + strings.Join(set, ", ") + where,
		qReserve:    "UPDATE " + table + " SET " + strings.Join(reserve, ", ") + where + " AND " + strings.Join(enough, " AND "),
		qSettle:     "UPDATE " + table + " SET " + strings.Join(settle, ", ") + where + " AND " + strings.Join(reserved, " AND "),
	}, nil
}

// OpenBudgets is OpenEvents for a budget store.
func OpenBudgets(ctx context.Context, connect Opener, target string, db *sql.DB, d Dialect, opts *Options) (*BudgetStore, error) {
	return open(ctx, connect, target, db, "budget store", func(db *sql.DB, owns bool) (*BudgetStore, error) {
		return NewBudgetStore(ctx, db, d, schemaOf(opts), owns)
	})
}

// accountArgs are an account's columns as query arguments, after the
// scope.
func accountArgs(scope string, a budget.Account) []any {
	args := []any{scope}
	for _, c := range budget.Components() {
		args = append(args, a.Total.Get(c), a.Remaining.Get(c), a.Reserved.Get(c), a.Spent.Get(c))
	}
	return args
}

func amountArgs(scope string, as ...budget.Amount) []any {
	args := []any{scope}
	for _, a := range as {
		for _, c := range budget.Components() {
			args = append(args, a.Get(c))
		}
	}
	return args
}

type rowQuerier interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// account reads a scope's row with q; sql.ErrNoRows when missing.
func (s *BudgetStore) account(ctx context.Context, db rowQuerier, q, scope string) (budget.Account, error) {
	v := make([]int64, 4*budget.NumComponents)
	ptrs := make([]any, len(v))
	for i := range v {
		ptrs[i] = &v[i]
	}
	if err := db.QueryRowContext(ctx, q, scope).Scan(ptrs...); err != nil {
		return budget.Account{}, err
	}
	var a budget.Account
	for i, c := range budget.Components() {
		a.Total = a.Total.With(c, v[4*i])
		a.Remaining = a.Remaining.With(c, v[4*i+1])
		a.Reserved = a.Reserved.With(c, v[4*i+2])
		a.Spent = a.Spent.With(c, v[4*i+3])
	}
	return a, nil
}

// Open implements budget.Store: the row inserted if missing, then
// locked, read, and resized when its total differs.
func (s *BudgetStore) Open(ctx context.Context, scope string, total budget.Amount) (budget.Account, error) {
	if err := s.check("open budget"); err != nil {
		return budget.Account{}, err
	}
	if neg := total.Negative(); neg != nil {
		return budget.Account{}, fmt.Errorf("open budget: %w", budget.ErrNegative)
	}
	var acct budget.Account
	err := inTx(ctx, s.db, s.d, &s.mu, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.qInsert, accountArgs(scope, budget.Account{Total: total, Remaining: total})...); err != nil {
			return err
		}
		// Writing the row first takes its lock in every database.
		if _, err := tx.ExecContext(ctx, s.qTouch, scope); err != nil {
			return err
		}
		a, err := s.account(ctx, tx, s.qSelectLock, scope)
		if err != nil {
			return err
		}
		if a.Total != total {
			a = budget.Resize(a, total)
			if _, err := tx.ExecContext(ctx, s.qSet, accountArgs(scope, a)...); err != nil {
				return err
			}
		}
		acct = a
		return nil
	})
	if err != nil {
		return budget.Account{}, fmt.Errorf("open budget: %w", err)
	}
	return acct, nil
}

// Account implements budget.Store.
func (s *BudgetStore) Account(ctx context.Context, scope string) (budget.Account, error) {
	if err := s.check("read budget"); err != nil {
		return budget.Account{}, err
	}
	a, err := s.account(ctx, s.db, s.qSelect, scope)
	if errors.Is(err, sql.ErrNoRows) {
		return budget.Account{}, fmt.Errorf("read budget: %w", budget.ErrNoAccount)
	}
	if err != nil {
		return budget.Account{}, fmt.Errorf("read budget: %w", err)
	}
	return a, nil
}

// Reserve implements budget.Store: one conditional UPDATE, which takes
// the row's lock and re-checks every component against the row as the
// lock leaves it. When it changes nothing the locked row says why: no
// account, or the components that do not fit.
func (s *BudgetStore) Reserve(ctx context.Context, scope string, x budget.Amount) (budget.Amount, error) {
	if err := s.check("reserve budget"); err != nil {
		return budget.Amount{}, err
	}
	if err := budget.CheckReserve(scope, x); err != nil {
		return budget.Amount{}, err
	}
	var rem budget.Amount
	err := inTx(ctx, s.db, s.d, &s.mu, func(tx *sql.Tx) error {
		for try := 0; ; try++ {
			ok, err := s.update(ctx, tx, s.qReserve, amountArgs(scope, x))
			if err != nil {
				return err
			}
			a, err := s.account(ctx, tx, s.qSelectLock, scope)
			if errors.Is(err, sql.ErrNoRows) {
				return errStop{budget.ErrNoAccount}
			}
			if err != nil {
				return err
			}
			if ok {
				rem = a.Remaining
				return nil
			}
			if over := x.Exceeding(a.Remaining); over != nil {
				return errStop{&budget.DeniedError{Op: "reserve", Budget: scope, Components: over, Requested: x, Remaining: a.Remaining}}
			}
			if try > 0 {
				return errors.New("reservation neither granted nor denied")
			}
			// A settlement came between the UPDATE and the locked read:
			// the row is locked now, so the next UPDATE decides.
		}
	})
	if err != nil {
		if d, ok := errors.AsType[*budget.DeniedError](err); ok {
			return budget.Amount{}, d
		}
		return budget.Amount{}, fmt.Errorf("reserve budget: %w", err)
	}
	return rem, nil
}

// Settle implements budget.Store: one UPDATE that moves the
// reservation to spent and remaining, when the row holds that much
// reserved.
func (s *BudgetStore) Settle(ctx context.Context, scope string, reserved, used budget.Amount) (budget.Amount, error) {
	if err := s.check("settle budget"); err != nil {
		return budget.Amount{}, err
	}
	if err := budget.CheckSettle(scope, reserved, used); err != nil {
		return budget.Amount{}, err
	}
	var rem budget.Amount
	err := inTx(ctx, s.db, s.d, &s.mu, func(tx *sql.Tx) error {
		ok, err := s.update(ctx, tx, s.qSettle, amountArgs(scope, reserved, used))
		if err != nil {
			return err
		}
		a, err := s.account(ctx, tx, s.qSelect, scope)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return errStop{budget.ErrNoAccount}
		case err != nil:
			return err
		case !ok:
			return errStop{budget.ErrUnreserved}
		}
		rem = a.Remaining
		return nil
	})
	if err != nil {
		return budget.Amount{}, fmt.Errorf("settle budget: %w", err)
	}
	return rem, nil
}

// update runs a conditional UPDATE of one row and reports whether it
// changed it.
func (s *BudgetStore) update(ctx context.Context, tx *sql.Tx, q string, args []any) (bool, error) {
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}
