package postgres_test

import (
	"testing"

	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/register/postgres"
	"github.com/provenant/provenant/register/registertest"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

func TestStore_Contract(t *testing.T) {
	registertest.Run(t, func(t *testing.T) registertest.Opener {
		dsn, schema := pgtest.SchemaNamed(t)
		return func(t *testing.T) register.Store {
			s, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
