package postgres_test

import (
	"strings"
	"testing"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventlogtest"
	"github.com/provenant/provenant/eventlog/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

func TestStore_Contract(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) eventlogtest.Opener {
		dsn, schema := pgtest.SchemaNamed(t)
		return func(t *testing.T) eventlog.Store {
			s, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}

// TestOpen_DSNNotQuoted: a malformed DSN, or a server that does not
// answer, gives an error that does not repeat the password.
func TestOpen_DSNNotQuoted(t *testing.T) {
	for _, dsn := range []string{
		"postgres://u:s3cret-pw@127.0.0.1:1/db?sslmode=disable&connect_timeout=2",
		"postgres://u:s3cret-pw@[::1/db",
		"host=127.0.0.1 port=1 user=u password=s3cret-pw dbname=db sslmode=disable connect_timeout=2",
		"host=127.0.0.1 port=notaport password=s3cret-pw",
	} {
		_, err := postgres.Open(t.Context(), dsn, nil)
		if err == nil {
			t.Fatal("open succeeded")
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the error quotes the password: %v", err)
		}
	}
}
