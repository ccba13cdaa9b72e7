package postgres_test

import (
	"testing"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventlogtest"
	"github.com/provenant/provenant/eventlog/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestStore_ServerEndedConnections: after the server ended every
// connection of the store's pool (pg_terminate_backend, as a restart or
// a failover does), the next append is made on a new connection and the
// log verifies. A connection used within the last second goes back to
// database/sql's pool unchecked, and the append's BEGIN on it failed
// with the server's FATAL: an answer refused (500) per pooled connection.
func TestStore_ServerEndedConnections(t *testing.T) {
	app := pgtest.AppName()
	dsn, schema := pgtest.SchemaNamed(t)
	s, err := postgres.Open(t.Context(), pgtest.WithApplicationName(dsn, app), &postgres.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l, err := eventlog.NewLog(t.Context(), s, &eventlog.Options{Run: "run-lost", Seed: 7, Deterministic: true, Host: "host-a", PID: 41})
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 3
	for round := range rounds {
		if _, err := l.Append(t.Context(), eventlog.Entry{Producer: "pipeline", Time: int64(2 * round), Payload: eventlogtest.Payload(2 * round)}); err != nil {
			t.Fatalf("round %d, before the server ended the connections: %v", round, err)
		}
		if n := pgtest.Terminate(t, app); n == 0 {
			t.Fatalf("round %d: no connection to end", round)
		}
		if _, err := l.Append(t.Context(), eventlog.Entry{Producer: "pipeline", Time: int64(2*round + 1), Payload: eventlogtest.Payload(2*round + 1)}); err != nil {
			t.Fatalf("round %d, the append after the server ended the connections: %v", round, err)
		}
	}
	events, err := eventlog.ReadAll(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2*rounds {
		t.Errorf("%d events stored, want %d", len(events), 2*rounds)
	}
}
