package budget_test

import (
	"testing"

	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/budget/budgettest"
)

// TestMemStore_Contract runs the store contract on a MemStore: every
// handle is the one store.
func TestMemStore_Contract(t *testing.T) {
	budgettest.Run(t, func(t *testing.T) budgettest.Opener {
		s := &budget.MemStore{}
		return func(*testing.T) budget.Store { return s }
	})
}
