package postgres_test

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/register/postgres"
	"github.com/provenant/provenant/register/registertest"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestStore_Tamper edits the stored register behind the store's back, as
// someone with write access to the database could, and checks that
// Verify or Scan names the damage.
func TestStore_Tamper(t *testing.T) {
	tests := []struct {
		name      string
		sql       string
		wantIndex int   // for a *register.VerifyError; -1 for none
		wantErr   error // the error Verify wraps
	}{
		{"a value changed", `UPDATE register_records SET line = replace(line, '"actor":"pipeline"', '"actor":"mallory"') WHERE idx = 2`, 2, register.ErrBroken},
		{"a record removed", `DELETE FROM register_records WHERE idx = 1`, -1, postgres.ErrGap},
		{"a line respelled", `UPDATE register_records SET line = replace(line, '{"actor"', '{ "actor"') WHERE idx = 3`, -1, register.ErrDecode},
		{"two records swapped", `UPDATE register_records SET line = (SELECT r.line FROM register_records r WHERE r.idx = 3 - register_records.idx) WHERE idx IN (1, 2)`, 1, register.ErrBroken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dsn, schema := pgtest.SchemaNamed(t)
			s, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			g, err := register.Open(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			for i, id := range []string{"d0", "d1", "d2", "d3"} {
				if _, err := g.Append(t.Context(), registertest.Decision(id, uint64(i))); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := register.Verify(t.Context(), s); err != nil {
				t.Fatalf("before tampering: %v", err)
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
			_, err = register.Verify(t.Context(), s)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("verify after tampering = %v; want %v", err, tt.wantErr)
			}
			var ve *register.VerifyError
			if errors.As(err, &ve) != (tt.wantIndex >= 0) || ve != nil && ve.Index != tt.wantIndex {
				t.Errorf("verify after tampering = %v; want the record at index %d named", err, tt.wantIndex)
			}
		})
	}
}
