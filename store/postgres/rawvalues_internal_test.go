package postgres

import (
	"math"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestReadBatch_RawEqualsValues: rows read from the wire by rawValues
// equal those pgx's Values gives, for every type rawValues reads, NULLs,
// extremes and non-ASCII text; a result with a column it does not read
// (a timestamp) is read by Values.
func TestReadBatch_RawEqualsValues(t *testing.T) {
	conn, err := pgx.Connect(t.Context(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	queries := []string{
		`SELECT CAST(v AS VARCHAR) AS k, CAST(v AS TEXT) AS t, CAST(n AS BIGINT), CAST(n AS INTEGER), CAST(n % 30000 AS SMALLINT),
			CAST(n AS DOUBLE PRECISION) / 7, CAST(n AS REAL) / 3, n % 2 = 0
		   FROM (VALUES ('dev-0001', 1), ('é😀 <&>', -2147483648), ('', 2147483647), (NULL, NULL)) AS x(v, n)`,
		`SELECT CAST(9223372036854775807 AS BIGINT), CAST(-9223372036854775808 AS BIGINT), CAST('NaN' AS DOUBLE PRECISION),
			CAST('-Infinity' AS REAL), CAST(-0.0 AS DOUBLE PRECISION), CAST(NULL AS BOOLEAN), CAST(-32768 AS SMALLINT)`,
		`SELECT count(*), max(CAST(v AS VARCHAR)) FROM (VALUES ('a'), ('b')) AS x(v)`,
		`SELECT CAST(t AS TIMESTAMP), 'x' FROM (VALUES ('2026-01-09 12:00:00'), ('2026-01-09 12:00:00.000001'), ('1969-12-31 23:59:59.999999'),
			('1999-12-31 23:59:59.5'), ('0001-01-01 00:00:00'), ('9999-12-31 23:59:59.999999'), ('4713-01-01 00:00:00 BC'), ('infinity'),
			('-infinity'), (NULL)) AS x(t)`,
		`SELECT CAST('2026-01-09 12:00:00' AS TIMESTAMP WITH TIME ZONE), CAST(1.5 AS NUMERIC), CAST('x' AS CHAR(3)), CAST('n' AS NAME)`,
		`SELECT 1 WHERE false`,
	}
	read := func(raw bool) [][]any {
		decodeRaw = raw
		defer func() { decodeRaw = true }()
		b := &pgx.Batch{}
		b.Queue("BEGIN")
		for _, q := range queries {
			b.Queue(q)
		}
		b.Queue("COMMIT")
		sets, err := readBatch(conn.SendBatch(t.Context(), b), len(queries), conn.TypeMap())
		if err != nil {
			t.Fatal(err)
		}
		var out [][]any
		for _, set := range sets {
			out = append(out, set...)
			out = append(out, []any{"end of result"})
		}
		return out
	}
	// The raw reading applies to the first query and the timestamps.
	for _, i := range []int{0, 3} {
		rows, err := conn.Query(t.Context(), queries[i])
		if err != nil {
			t.Fatal(err)
		}
		if !rawDecodable(conn.TypeMap(), rows.FieldDescriptions()) {
			t.Errorf("query %d: not read raw", i)
		}
		rows.Close()
	}
	got, want := read(true), read(false)
	if !sameRows(got, want) {
		for i := range max(len(got), len(want)) {
			if i >= len(got) || i >= len(want) || !sameRows(got[i:i+1], want[i:i+1]) {
				t.Errorf("row %d: raw %#v; Values %#v", i, at(got, i), at(want, i))
			}
		}
	}
	if len(want) < 19 {
		t.Errorf("read %d rows; want the queries' 19 and their ends", len(want))
	}
}

// sameRows compares rows value by value, of the same dynamic type,
// floats by their bits (NaN, -0).
func sameRows(a, b [][]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			x, y := a[i][j], b[i][j]
			if reflect.TypeOf(x) != reflect.TypeOf(y) {
				return false
			}
			if f, ok := x.(float64); ok {
				if math.Float64bits(f) != math.Float64bits(y.(float64)) {
					return false
				}
			} else if !reflect.DeepEqual(x, y) {
				return false
			}
		}
	}
	return true
}

func at(rows [][]any, i int) any {
	if i < len(rows) {
		return rows[i]
	}
	return nil
}
