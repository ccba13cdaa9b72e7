package pgtest

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// TestSchema_CleanupDropsEverything: a schema holding many tables, each
// with an index and a view over it, is gone once its test ends.
func TestSchema_CleanupDropsEverything(t *testing.T) {
	var schema string
	t.Run("many tables", func(t *testing.T) {
		var dsn string
		dsn, schema = SchemaNamed(t)
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		db := stdlib.OpenDB(*cfg)
		defer db.Close()
		for i := range 40 {
			for _, q := range []string{
				fmt.Sprintf(`CREATE TABLE t%d (id bigint PRIMARY KEY, v text)`, i),
				fmt.Sprintf(`CREATE INDEX ON t%d (v)`, i),
				fmt.Sprintf(`CREATE VIEW v%d AS SELECT * FROM t%d`, i, i),
			} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
	cfg, err := pgx.ParseConfig(DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("schema %s survived its test", schema)
	}
}
