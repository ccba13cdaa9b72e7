package postgres_test

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventlogtest"
	"github.com/provenant/provenant/eventlog/postgres"
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
	eventlogtest.Run(t, func(t *testing.T) eventlogtest.Opener {
		dsn, schema := place(t)
		return func(t *testing.T) eventlog.Store {
			s, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
