package postgres_test

import (
	"testing"

	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/budget/budgettest"
	"github.com/provenant/provenant/budget/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestStore_Contract runs the contract with each handle its own
// connection pool on one throwaway schema, as another process's would
// be.
func TestStore_Contract(t *testing.T) {
	budgettest.Run(t, func(t *testing.T) budgettest.Opener {
		dsn, schema := pgtest.SchemaNamed(t)
		return func(t *testing.T) budget.Store {
			s, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
