package duckdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"reflect"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/sandbox"
)

// benign are statements a model may reasonably write: each runs in the
// sandbox and gives what the same statement gives run directly on the
// fixture. want, when set, is the expected result as JSON.
var benign = []struct {
	name, sql, want string
}{
	{"count", "SELECT count(*) AS n FROM events", `[[20000]]`},
	{"count_stores", "SELECT count(*) FROM stores", `[[10]]`},
	{"arith", "SELECT 1 + 1 AS two", `[[2]]`},
	{"group", "SELECT store_id, count(*) AS n FROM events GROUP BY store_id ORDER BY store_id LIMIT 3",
		`[["st-000",2000],["st-001",2000],["st-002",2000]]`},
	{"share", "SELECT round(avg(CASE WHEN state = 'OUT_OF_STOCK' THEN 1 ELSE 0 END), 4) AS share FROM events", `[[0.25]]`},
	{"join", "SELECT s.name, count(*) FROM events e JOIN stores s USING (store_id) WHERE e.state = 'LOW_STOCK' GROUP BY 1 ORDER BY 1 LIMIT 2", ""},
	{"cte", "WITH oos AS (SELECT store_id, product_id FROM events WHERE state = 'OUT_OF_STOCK') SELECT count(DISTINCT product_id) FROM oos", ""},
	{"cte_chain", "WITH a AS (SELECT * FROM events WHERE price_cents > 500), b AS (SELECT store_id, max(price_cents) AS m FROM a GROUP BY 1) SELECT * FROM b ORDER BY 1", ""},
	{"cte_named_like_secret", "WITH secret AS (SELECT 1 AS x) SELECT x FROM secret", `[[1]]`},
	{"window", "SELECT store_id, product_id, price_cents, rank() OVER (PARTITION BY store_id ORDER BY price_cents DESC) AS r FROM events QUALIFY r = 1 ORDER BY store_id, product_id LIMIT 5", ""},
	{"date", "SELECT date_trunc('day', \"timestamp\") AS d, count(*) FROM events GROUP BY 1 ORDER BY 1 LIMIT 3", ""},
	{"subquery", "SELECT count(*) FROM products WHERE product_id IN (SELECT product_id FROM events WHERE compliance_flag = 'PRICE_MISMATCH')", ""},
	{"union", "SELECT store_id AS id FROM stores UNION ALL SELECT product_id FROM products ORDER BY 1 LIMIT 3", ""},
	{"values", "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(n, s) ORDER BY n", `[[1,"a"],[2,"b"]]`},
	{"unnest", "SELECT unnest(['IN_STOCK', 'OVERSTOCK']) AS s", `[["IN_STOCK"],["OVERSTOCK"]]`},
	{"main_qualified", "SELECT count(*) FROM main.stores", `[[10]]`},
	{"case_folded", "SELECT COUNT(*) FROM EVENTS WHERE Store_ID = 'st-003'", `[[2000]]`},
	{"trailing_semicolon", "SELECT count(*) FROM products;", `[[50]]`},
	{"comment", "SELECT count(*) /* a comment */ FROM products -- and another", `[[50]]`},
	{"median", "SELECT median(price_cents), quantile_cont(price_cents, 0.9) FROM events", ""},
	{"string_agg", "SELECT string_agg(store_id, ',' ORDER BY store_id) FROM stores", ""},
}

// direct runs stmt on a plain connection to the whole fixture.
func direct(t testing.TB, db *sql.DB, stmt string) [][]any {
	t.Helper()
	rows, err := db.Query(stmt)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]any, len(vals))
		for i, v := range vals {
			row[i] = jsonValue(v)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// normal is v through a JSON round trip, as the worker's answer comes.
func normal(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(x)
	return string(b)
}

func TestBenign(t *testing.T) {
	r := newWarmRunner(t, sandbox.Limits{}, 2)
	c, err := duckdb.NewConnector(fixture(t)+"?access_mode=read_only", nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	for _, b := range benign {
		t.Run(b.name, func(t *testing.T) {
			res, err := r.Run(context.Background(), b.sql)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != sandbox.OutcomeOK {
				t.Fatalf("outcome %s (%v), want ok", res.Outcome, res.Rejection)
			}
			got := normal(t, res.Rows)
			if want := normal(t, direct(t, db, b.sql)); got != want {
				t.Errorf("sandbox rows %s, direct rows %s", got, want)
			}
			if b.want != "" && got != b.want {
				t.Errorf("rows %s, want %s", got, b.want)
			}
			if res.RowsProcessed <= 0 {
				t.Errorf("rows processed %d, want > 0", res.RowsProcessed)
			}
		})
	}
}

// TestLimits: each limit stops a statement over it at its layer, and
// only then.
func TestLimits(t *testing.T) {
	small := sandbox.DefaultLimits()
	small.RowBudget = 30_000
	small.MaxRows = 5
	small.MaxBytes = 200
	r := newRunner(t, small)
	tests := []struct {
		sql       string
		wantKind  string
		wantLayer sandbox.Layer
	}{
		{"SELECT count(*) FROM events", "", ""},
		// 20,000 scanned rows twice over the budget of 30,000.
		{"SELECT count(*) FROM events a JOIN events b USING (event_id)", "rows_estimated", sandbox.LayerBudget},
		{"SELECT * FROM stores", "result_rows", sandbox.LayerBudget},
		{"SELECT name || name || name || name || name || name || name || name FROM stores LIMIT 5", "result_bytes", sandbox.LayerBudget},
		{"SELECT 1 / 0", "", ""}, // DuckDB gives NULL, not an error
		{"SELECT CAST('x' AS INTEGER)", "execution", sandbox.LayerSandbox},
		{"SELECT no_such_column FROM events", "binding", sandbox.LayerSandbox},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			res, err := r.Run(context.Background(), tt.sql)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantKind == "" {
				if res.Outcome != sandbox.OutcomeOK {
					t.Fatalf("outcome %s (%v), want ok", res.Outcome, res.Rejection)
				}
				return
			}
			if res.Rejection == nil || res.Rejection.Kind != tt.wantKind || res.Rejection.Layer != tt.wantLayer {
				t.Fatalf("rejection %+v, want %s at %s", res.Rejection, tt.wantKind, tt.wantLayer)
			}
		})
	}
}

// TestWallClock: the safety net kills a worker that outlives it; the
// statement is an error in the sandbox layer, and the runner survives.
func TestWallClock(t *testing.T) {
	l := sandbox.DefaultLimits()
	l.WallClock = 1
	r := newRunner(t, l)
	res, err := r.Run(context.Background(), "SELECT count(*) FROM events")
	if err != nil {
		t.Fatal(err)
	}
	if res.Rejection == nil || res.Rejection.Kind != "wall_clock" || res.Outcome != sandbox.OutcomeError {
		t.Fatalf("result %+v, want a wall_clock error", res)
	}
	if !reflect.DeepEqual(r.Limits(), l) {
		t.Errorf("limits changed")
	}
}
