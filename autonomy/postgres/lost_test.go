package postgres_test

import (
	"testing"

	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestStore_ServerEndedConnections: after the server ended every
// connection of the store's pool (pg_terminate_backend, as a restart or
// a failover does), the next tick is made on a new connection, later
// than the one before. A connection used within the last second goes
// back to database/sql's pool unchecked, and the tick on it failed with
// the server's FATAL, so the gate refused the call (fails closed: a 500)
// once per pooled connection.
func TestStore_ServerEndedConnections(t *testing.T) {
	app := pgtest.AppName()
	dsn, schema := pgtest.SchemaNamed(t)
	l := open(t, pgtest.WithApplicationName(dsn, app), schema)
	var last int64
	for round := range 3 {
		for _, when := range []string{"before", "after"} {
			now, _, ticked, err := l.TickBare(t.Context(), "s-1")
			if err != nil || !ticked {
				t.Fatalf("round %d, the bare tick %s the server ended the connections = ticked %t, %v", round, when, ticked, err)
			}
			if now <= last {
				t.Errorf("round %d: tick %d after %d", round, now, last)
			}
			last = now
			if when == "before" {
				if n := pgtest.Terminate(t, app); n == 0 {
					t.Fatalf("round %d: no connection to end", round)
				}
			}
		}
		if n := pgtest.Terminate(t, app); n == 0 {
			t.Fatalf("round %d: no connection to end", round)
		}
		if _, err := l.Tick(t.Context()); err != nil {
			t.Fatalf("round %d, the tick after the server ended the connections: %v", round, err)
		}
	}
}
