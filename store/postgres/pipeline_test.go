package postgres_test

import (
	"database/sql"
	"slices"
	"testing"

	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestDigestSQL: the digest PostgreSQL computes is shape.Digest, byte for
// byte, on keys Go and a locale-aware collation order differently
// (non-ASCII text, case, punctuation, a control character below the
// newline, a key that is a prefix of another), whatever the column's
// collation (here ICU's, which orders them otherwise).
func TestDigestSQL(t *testing.T) {
	db := pgtest.Open(t)
	p := postgres.NewPipeliner(db)
	tests := []struct {
		name string
		keys []string
	}{
		{"one", []string{"evt-1"}},
		{"ascii", []string{"evt-10", "evt-9", "EVT-2", "evt_1", "evt-1"}},
		{"non-ASCII", []string{"ünter", "unter", "Zoë", "zoe", "日本-1", "ß", "ss", "é", "e\u0301"}},
		{"prefix and control", []string{"a", "a\tb", "ab", "a b", "a\u007f"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			// The keys in an order of their own, so that the SQL's ORDER BY
			// is what sorts them.
			arr := slices.Clone(tt.keys)
			slices.Reverse(arr)
			q := "SELECT " + p.DigestSQL("k") + ` FROM (SELECT t COLLATE "und-x-icu" AS k FROM unnest($1::text[]) AS u(t)) x`
			if err := db.QueryRowContext(t.Context(), q, arr).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if want := shape.Digest(tt.keys); got != want {
				t.Errorf("digest in SQL = %s, shape.Digest = %s", got, want)
			}
			var first sql.NullString
			if err := db.QueryRowContext(t.Context(), "SELECT k FROM (SELECT t COLLATE \"und-x-icu\" AS k FROM unnest($1::text[]) AS u(t)) x ORDER BY "+p.KeyOrder("k")+" LIMIT 1", arr).Scan(&first); err != nil {
				t.Fatal(err)
			}
			if want := slices.Min(tt.keys); first.String != want {
				t.Errorf("first key in SQL = %q, Go's = %q", first.String, want)
			}
		})
	}
}
