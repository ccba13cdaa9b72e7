package postgres_test

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/register/postgres"
	"github.com/provenant/provenant/register/registertest"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// place returns a DSN on a fresh throwaway schema and the schema's name.
func place(t testing.TB) (dsn, schema string) {
	t.Helper()
	dsn = pgtest.Schema(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return dsn, cfg.RuntimeParams["search_path"]
}

func TestStore_Contract(t *testing.T) {
	registertest.Run(t, func(t *testing.T) registertest.Opener {
		dsn, schema := place(t)
		return func(t *testing.T) register.Store {
			s, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
