package postgres

import (
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestReadRows: a pipeline's rows read by readRows (shared blocks,
// interned text) are, value for value and type for type, what pgx's
// Rows.Values and driverValue give, over the types the formulations
// read (text, varchar, timestamps, integers, doubles, booleans, bytea,
// numeric, an array pgx decodes to a slice, NULLs) and more rows and
// distinct texts than a block and the intern limit hold.
func TestReadRows(t *testing.T) {
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const q = `SELECT CAST('k-' || g AS VARCHAR) AS k, 'zone-' || (g % 3) AS z, 'v-' || (g % 200) AS many,
		CASE WHEN g % 7 = 0 THEN NULL ELSE 'n' END AS maybe,
		TIMESTAMP '2026-01-05 00:00:00' + g * INTERVAL '1 second' AS ts,
		CAST(g AS INTEGER) AS i4, CAST(g AS BIGINT) * 1000000000 AS i8, CAST(g AS SMALLINT) AS i2,
		g / 3.0 AS num, CAST(g AS DOUBLE PRECISION) / 7 AS f8, CAST(g AS REAL) / 3 AS f4, g % 2 = 0 AS b,
		CAST('\x' || lpad(to_hex(g), 4, '0') AS BYTEA) AS bin, ARRAY[g, g + 1] AS arr,
		CASE WHEN g = 5 THEN TIMESTAMP 'infinity' END AS inf
		FROM generate_series(1, $1) g`
	for _, n := range []int{0, 1, 300, 1000} {
		read := func(f func(pgx.Rows) (shape.Rowset, error)) shape.Rowset {
			t.Helper()
			rows, err := conn.Query(ctx, q, n)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			set, err := f(rows)
			if err != nil {
				t.Fatal(err)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			return set
		}
		got := read(func(rows pgx.Rows) (shape.Rowset, error) { return readRows(rows, conn.TypeMap()) })
		want := read(func(rows pgx.Rows) (shape.Rowset, error) {
			var set shape.Rowset
			for rows.Next() {
				vals, err := rows.Values()
				if err != nil {
					return nil, err
				}
				for j, v := range vals {
					if vals[j], err = driverValue(v); err != nil {
						return nil, err
					}
				}
				set = append(set, vals)
			}
			return set, nil
		})
		if len(got) != n || len(want) != n {
			t.Fatalf("n=%d: read %d and %d rows", n, len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("n=%d row %d: readRows %#v, Values %#v", n, i, got[i], want[i])
			}
			for j := range got[i] {
				if reflect.TypeOf(got[i][j]) != reflect.TypeOf(want[i][j]) {
					t.Fatalf("n=%d row %d column %d: readRows %T, Values %T", n, i, j, got[i][j], want[i][j])
				}
			}
		}
		// A row's values are its own: changing one leaves the next row's.
		if n >= 2 {
			got[0][0] = "changed"
			if got[1][0] != want[1][0] {
				t.Fatalf("n=%d: rows share values: %v", n, got[1][0])
			}
		}
	}
}
