package postgres_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventlogtest"
	"github.com/provenant/provenant/eventlog/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestStore_Tamper edits the stored log behind the store's back and
// checks that reading it back, or verifying it against the hash it had,
// names the damage.
func TestStore_Tamper(t *testing.T) {
	tests := []struct {
		name    string
		sql     string
		wantErr error
	}{
		{"a payload changed", `UPDATE eventlog_events SET line = replace(line, '"reason":"budget_exhausted"', '"reason":"no_grounding"') WHERE pos = 3`, eventlog.ErrHash},
		{"an event removed", `DELETE FROM eventlog_events WHERE pos = 2`, postgres.ErrGap},
		{"a seq changed in the line", `UPDATE eventlog_events SET line = replace(line, '"seq":2', '"seq":7') WHERE pos = 2`, eventlog.ErrCorrupt},
		{"a line that is not an event", `UPDATE eventlog_events SET line = 'garbage' WHERE pos = 1`, eventlog.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dsn, schema := pgtest.SchemaNamed(t)
			s, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			l, err := eventlog.NewLog(t.Context(), s, &eventlog.Options{Deterministic: true})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 4 {
				if _, err := l.Append(t.Context(), eventlog.Entry{Producer: "p", Time: int64(i), Payload: eventlogtest.Payload(i)}); err != nil {
					t.Fatal(err)
				}
			}
			var buf bytes.Buffer
			before, err := eventlog.Export(t.Context(), &buf, s)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := pgx.ParseConfig(dsn)
			if err != nil {
				t.Fatal(err)
			}
			db := stdlib.OpenDB(*cfg)
			defer db.Close()
			if res, err := db.ExecContext(t.Context(), tt.sql); err != nil {
				t.Fatal(err)
			} else if n, _ := res.RowsAffected(); n == 0 {
				t.Fatal("the tampering changed no row")
			}
			buf.Reset()
			if _, err = eventlog.Export(t.Context(), &buf, s); err == nil {
				_, err = eventlog.Verify(t.Context(), &buf, &eventlog.VerifyOptions{Want: &before.Hash})
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("export and verify after tampering = %v; want %v", err, tt.wantErr)
			}
		})
	}
}
