package postgres

import (
	"context"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"
	"pgregory.net/rapid"

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
		got, want := readBoth(ctx, t, conn, q, n)
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

// TestReadRows_Texts: on random text columns (values drawn from a small
// pool, so that they repeat, or arbitrary, past the intern limit, with
// NULLs), readRows gives what Values gives.
func TestReadRows_Texts(t *testing.T) {
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 700).Draw(rt, "rows")
		pool := rapid.SliceOfN(rapid.StringMatching(`[a-zA-Z0-9 _\-éß€]{0,12}`), 1, 80).Draw(rt, "pool")
		col := func(name string) []*string {
			out := make([]*string, n)
			for i := range out {
				switch rapid.IntRange(0, 9).Draw(rt, name) {
				case 0:
				case 1:
					s := rapid.StringMatching(`[a-z0-9]{0,20}`).Draw(rt, name+"_any")
					out[i] = &s
				default:
					s := rapid.SampledFrom(pool).Draw(rt, name+"_pool")
					out[i] = &s
				}
			}
			return out
		}
		a, b := col("a"), col("b")
		const q = `SELECT x.a, CAST(x.b AS VARCHAR), x.i FROM unnest(CAST($1 AS TEXT[]), CAST($2 AS TEXT[])) WITH ORDINALITY AS x(a, b, i) ORDER BY x.i`
		got, want := readBoth(ctx, rt, conn, q, a, b)
		if len(got) != n || !reflect.DeepEqual(got, want) && n > 0 {
			rt.Fatalf("readRows %v, Values %v", got, want)
		}
	})
}

// readBoth runs q with args on conn twice and returns its rows read by
// readRows and by the reference: pgx's Rows.Values through driverValue.
func readBoth(ctx context.Context, tb interface{ Fatal(...any) }, conn *pgx.Conn, q string, args ...any) (got, want shape.Rowset) {
	read := func(f func(pgx.Rows) (shape.Rowset, error)) shape.Rowset {
		rows, err := conn.Query(ctx, q, args...)
		if err != nil {
			tb.Fatal(err)
		}
		defer rows.Close()
		set, err := f(rows)
		if err != nil {
			tb.Fatal(err)
		}
		if err := rows.Err(); err != nil {
			tb.Fatal(err)
		}
		return set
	}
	got = read(func(rows pgx.Rows) (shape.Rowset, error) { return readRows(rows, conn.TypeMap()) })
	want = read(func(rows pgx.Rows) (shape.Rowset, error) {
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
	return got, want
}
