package duckdb

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/sandbox"
)

var update = flag.Bool("update", false, "rewrite the syntax-tree golden files in ../testdata/ast")

// astCases are statements whose syntax trees, as this DuckDB serializes
// them, are committed for package sandbox's own tests (which cannot call
// DuckDB). Comparing them here pins the tree format sandbox.Check reads:
// a DuckDB upgrade that changes it fails this test.
var astCases = []struct{ name, sql string }{
	{"count_events", "SELECT count(*) FROM events"},
	{"cte", "WITH s AS (SELECT 1 AS x) SELECT * FROM s"},
	{"cte_shadow_outside", "SELECT * FROM (WITH secret AS (SELECT 1) SELECT * FROM secret) q, secret"},
	{"cte_qualified", "WITH secret AS (SELECT 1 AS a) SELECT * FROM main.secret"},
	{"cte_forward", "WITH a AS (SELECT * FROM b), b AS (SELECT 1 AS x) SELECT * FROM a"},
	{"join_reference", "SELECT s.name, count(*) FROM events e JOIN stores s USING (store_id) GROUP BY 1 ORDER BY 1"},
	{"window", "SELECT store_id, row_number() OVER (PARTITION BY store_id ORDER BY price_cents) FROM events"},
	{"secret", "SELECT * FROM secret"},
	{"catalog_qualified", "SELECT * FROM memory.main.events"},
	{"read_csv", "SELECT * FROM read_csv('/etc/passwd')"},
	{"replacement_scan", "SELECT * FROM '/etc/passwd'"},
	{"getenv", "SELECT getenv('HOME')"},
	{"current_date", "SELECT current_date"},
	{"recursive", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"},
	{"describe", "DESCRIBE events"},
	{"parameter", "SELECT ?"},
	{"sample", "SELECT * FROM events TABLESAMPLE 10%"},
	{"two_statements", "SELECT 1; SELECT 2"},
	{"drop", "DROP TABLE events"},
	{"syntax", "SELEC 1"},
	{"unnest", "SELECT * FROM unnest([1, 2, 3])"},
	{"union", "SELECT store_id FROM stores UNION SELECT product_id FROM products"},
	{"positional_parameters", "SELECT count(*) FROM events WHERE store_id IN ($2, $1) LIMIT $3"},
	{"named_parameter", "SELECT count(*) FROM events WHERE store_id = $store"},
	{"parameter_secret", "SELECT count(*) FROM events e JOIN secret s ON s.id = e.store_id WHERE e.store_id = $1"},
}

func TestSyntaxTreeGolden(t *testing.T) {
	v, err := NewValidator(context.Background(), sandbox.NewPolicy(allowed), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for _, c := range astCases {
		t.Run(c.name, func(t *testing.T) {
			var got string
			if err := v.db.QueryRowContext(context.Background(), serializeSQL, c.sql).Scan(&got); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("..", "testdata", "ast", c.name+".json")
			if *update {
				if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if string(want) != got+"\n" {
				t.Errorf("DuckDB's syntax tree for %q changed; check sandbox.Check against it, then run with -update\ngot  %s\nwant %s", c.sql, got, want)
			}
		})
	}
}
