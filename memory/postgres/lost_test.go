package postgres_test

import (
	"testing"

	"github.com/provenant/provenant/memory/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestStore_ServerEndedConnections: after the server ended every
// connection of the journal's pool (pg_terminate_backend, as a restart or
// a failover does), the next read runs on a new connection. A connection
// used within the last second went back to the pool unchecked, and the
// recall sent on it failed with the server's FATAL (a 500 on
// /v1/memory/recall), once per pooled connection.
func TestStore_ServerEndedConnections(t *testing.T) {
	app := pgtest.AppName()
	st, err := postgres.Open(t.Context(), pgtest.WithApplicationName(pgtest.Schema(t), app))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for round := range 3 {
		if _, err := st.Len(t.Context()); err != nil {
			t.Fatalf("round %d, before the server ended the connections: %v", round, err)
		}
		if n := pgtest.Terminate(t, app); n == 0 {
			t.Fatalf("round %d: no connection to end", round)
		}
		if _, err := st.Entries(t.Context()); err != nil {
			t.Errorf("round %d, the read after the server ended the connections: %v", round, err)
		}
	}
}
