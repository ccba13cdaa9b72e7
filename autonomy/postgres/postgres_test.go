package postgres_test

import (
	"testing"

	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/autonomy/autonomytest"
	"github.com/provenant/provenant/autonomy/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestStore_Contract runs the contract with each store its own
// connection pool on one throwaway schema: another process.
func TestStore_Contract(t *testing.T) {
	autonomytest.Run(t, autonomytest.Backend{Shared: true, New: func(t *testing.T) autonomytest.Opener {
		dsn, schema := pgtest.SchemaNamed(t)
		return func(tools []autonomy.Tool, opts *autonomy.GateOptions) (autonomy.Store, error) {
			l, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { l.Close() })
			return autonomy.NewLedgerStore(l, tools, opts, func(err error) { t.Errorf("ledger: %v", err) })
		}
	}})
}

// TestStore_Ledger runs the ledger's own checks on a throwaway schema.
func TestStore_Ledger(t *testing.T) {
	autonomytest.RunLedger(t, func(t *testing.T) autonomy.Ledger {
		dsn, schema := pgtest.SchemaNamed(t)
		l, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}, &autonomytest.LedgerOptions{Gaps: true})
}
