package postgres

import (
	"context"
	"database/sql"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"pgregory.net/rapid"

	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestReadRows: a pipeline's rows read by readRows (raw bytes, decoded
// when scanned) scan, into every destination the formulations use, to
// what the rows pgx's Rows.Values and driverValue give scan to through
// shape.Values (database/sql's conversions): the same value, or an
// error on the same cells, over the types the formulations read (text,
// varchar, timestamps with and without a zone, integers, doubles,
// booleans, bytea, numeric, an array pgx decodes to a slice, infinite
// timestamps, NULLs, texts longer than a block) and more rows and bytes
// than a chunk of cells and a block hold.
func TestReadRows(t *testing.T) {
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const q = `SELECT CAST('k-' || g AS VARCHAR) AS k, 'zone-' || (g % 3) AS z, 'v-' || (g % 200) AS many,
		CASE WHEN g % 7 = 0 THEN NULL ELSE 'n' END AS maybe, CAST(g AS TEXT) AS digits,
		TIMESTAMP '2026-01-05 00:00:00' + g * INTERVAL '1 second' AS ts,
		TIMESTAMPTZ '2026-01-05 00:00:00+00' + g * INTERVAL '1 second' AS tstz,
		CAST(g AS INTEGER) AS i4, CAST(g AS BIGINT) * 1000000000 AS i8, CAST(g AS SMALLINT) AS i2,
		g / 3.0 AS num, CAST(g AS DOUBLE PRECISION) / 7 AS f8, CAST(g AS REAL) / 3 AS f4, g % 2 = 0 AS b,
		CAST('\x' || lpad(to_hex(g), 4, '0') AS BYTEA) AS bin, ARRAY[g, g + 1] AS arr,
		CASE WHEN g = 5 THEN TIMESTAMP 'infinity' WHEN g % 3 = 0 THEN TIMESTAMP '2026-01-05 00:00:00' END AS inf,
		CASE WHEN g = 4 THEN TIMESTAMPTZ '-infinity' END AS tzinf, CASE WHEN g % 5 = 0 THEN g END AS maybe_i,
		CASE WHEN g % 100 = 2 THEN repeat('x', 20000 + g) END AS long
		FROM generate_series(1, $1) g`
	dests := []func() any{
		func() any { return &sql.NullString{String: "old", Valid: true} },
		func() any { return new(string) },
		func() any { return &sql.NullInt64{Int64: 9, Valid: true} },
		func() any { return new(int64) },
		func() any { return &sql.NullFloat64{Float64: 9, Valid: true} },
		func() any { return new(float64) },
		func() any { return &sql.NullTime{Time: time.Unix(9, 0), Valid: true} },
		func() any { return new(time.Time) },
		func() any { return new(any) },
	}
	for _, n := range []int{0, 1, 300, 2500} {
		got := readQuery(ctx, t, conn, q, n)
		want := valuesOf(ctx, t, conn, q, n)
		if got.Len() != n || want.Len() != n {
			t.Fatalf("n=%d: read %d and %d rows", n, got.Len(), want.Len())
		}
		for i := range n {
			ncol := len(want[i])
			g, w := make([]any, ncol), make([]any, ncol)
			for k := range ncol {
				g[k], w[k] = new(any), new(any)
			}
			if err := got.Scan(i, g...); err != nil {
				t.Fatalf("n=%d row %d: %v", n, i, err)
			}
			if err := want.Scan(i, w...); err != nil || !reflect.DeepEqual(g, w) {
				t.Fatalf("n=%d row %d: readRows %v, Values %v (%v)", n, i, g, w, err)
			}
			if i >= 300 && i%97 != 0 {
				continue // the rows past the first chunk of the index, by any
			}
			for _, mk := range dests {
				for j := range ncol {
					g, w := make([]any, ncol), make([]any, ncol)
					for k := range ncol {
						g[k], w[k] = new(any), new(any)
					}
					g[j], w[j] = mk(), mk()
					gerr, werr := got.Scan(i, g...), want.Scan(i, w...)
					if (gerr != nil) != (werr != nil) {
						t.Fatalf("n=%d row %d column %d into %T: readRows error %v, Values error %v", n, i, j, g[j], gerr, werr)
					}
					if werr == nil && !reflect.DeepEqual(g, w) {
						t.Fatalf("n=%d row %d column %d into %T: readRows %#v, Values %#v", n, i, j, g[j], g[j], w[j])
					}
				}
			}
		}
	}
}

// fataler is what the helpers below need of a *testing.T or *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

// readQuery runs q with args and reads its rows with readRows.
func readQuery(ctx context.Context, tb fataler, conn *pgx.Conn, q string, args ...any) shape.Rowset {
	tb.Helper()
	rows, err := conn.Query(ctx, q, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	set, err := readRows(rows, conn.TypeMap())
	if err != nil {
		tb.Fatal(err)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return set
}

// valuesOf runs q with args and reads its rows as pgx's Rows.Values and
// driverValue give them.
func valuesOf(ctx context.Context, tb fataler, conn *pgx.Conn, q string, args ...any) shape.Values {
	tb.Helper()
	rows, err := conn.Query(ctx, q, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var set shape.Values
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			tb.Fatal(err)
		}
		for j, v := range vals {
			if vals[j], err = driverValue(v); err != nil {
				tb.Fatal(err)
			}
		}
		set = append(set, vals)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return set
}

// TestReadRows_Texts: on random text columns (values drawn from a small
// pool, so that they repeat, or arbitrary, arbitrary, with NULLs), readRows
// scans to what Values gives.
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
		got, want := readQuery(ctx, rt, conn, q, a, b), valuesOf(ctx, rt, conn, q, a, b)
		if got.Len() != n || want.Len() != n {
			rt.Fatalf("read %d and %d rows, want %d", got.Len(), want.Len(), n)
		}
		for i := range n {
			var ga, gb, wa, wb sql.NullString
			var gi, wi any
			if err := got.Scan(i, &ga, &gb, &gi); err != nil {
				rt.Fatal(err)
			}
			if err := want.Scan(i, &wa, &wb, &wi); err != nil {
				rt.Fatal(err)
			}
			if ga != wa || gb != wb || !reflect.DeepEqual(gi, wi) {
				rt.Fatalf("row %d: readRows %v %v %v, Values %v %v %v", i, ga, gb, gi, wa, wb, wi)
			}
		}
	})
}
