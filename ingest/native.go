package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// FileSink is a Sink that can import CSV and Parquet files by reading
// them itself (DuckDB's read_csv and read_parquet), with the checks a
// Reader makes done in SQL (NativeSQL) and no row passing through Go.
type FileSink interface {
	Sink
	// ImportFiles imports the files at paths (each ending .csv or
	// .parquet) as Import would, in one transaction. It returns an error
	// matching ErrNotNative, with nothing stored, when it cannot: a file
	// it cannot read so, or any row the SQL checks refuse; the caller
	// then imports through Readers, which name each problem's row and
	// field. Repeated or stored keys are an Errors, as from Import.
	ImportFiles(ctx context.Context, l *Layout, paths []string) (Result, error)
}

// ErrNotNative is matched by a FileSink's error when the files must be
// imported through Readers instead.
var ErrNotNative = errors.New("files need the row-by-row import")

// FileColumn is one column of an input file as DuckDB types it
// (DESCRIBE's column_type: VARCHAR, BIGINT, DOUBLE, TIMESTAMP, ...).
type FileColumn struct {
	Name string
	Type string
}

// NativeSQL returns, for a file whose columns are cols, one SQL expression
// per layout column (in layout order) over the file's columns: the stored
// value, as a Reader would convert it, and a boolean expression that is
// true for a row a Reader accepts. It is conservative: a row it accepts,
// a Reader accepts and stores alike; a row a Reader refuses, it refuses.
// csv marks text read by DuckDB's CSV reader, whose quoting may differ
// from encoding/csv's: a value holding a double quote or a carriage
// return is refused, for the Reader to judge. ok is false when the
// columns are not exactly the layout's (in any order) or a column's type
// is one only a Reader handles.
func (l *Layout) NativeSQL(cols []FileColumn, csv bool) (values []string, valid string, ok bool) {
	at := make([]int, len(l.Columns)) // layout column -> file column
	for i := range at {
		at[i] = -1
	}
	for i, c := range cols {
		name := c.Name
		if i == 0 {
			name = trimBOM(name)
		}
		j := l.ColumnIndex(name)
		if j < 0 || at[j] >= 0 {
			return nil, "", false
		}
		at[j] = i
	}
	if slices.Contains(at, -1) {
		return nil, "", false
	}
	var conds []string
	for j := range l.Columns {
		c := &l.Columns[j]
		fc := cols[at[j]]
		v := Quote(fc.Name)
		typ := strings.ToUpper(fc.Type)
		val, cond, ok := nativeColumn(c, v, typ, csv)
		if !ok {
			return nil, "", false
		}
		values = append(values, val)
		conds = append(conds, "("+cond+")")
	}
	return values, strings.Join(conds, " AND "), true
}

// The expressions a Reader's text checks become in SQL (DuckDB).
const (
	// timeLimitSQL is TimeLimit.
	timeLimitSQL = "TIMESTAMP '9999-12-31 00:00:00'"
	// timeRE is parseTime's syntax, with each field's range.
	timeRE = `[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?Z`
	// integerRE is what decimal accepts and strconv.ParseInt parses.
	integerRE = `-?[0-9]+`
	// numberRE is decimal's syntax.
	numberRE = `-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`
)

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// nativeColumn returns column c's stored value and validity over the file
// column v of DuckDB type typ.
func nativeColumn(c *Column, v, typ string, csv bool) (val, cond string, ok bool) {
	null := v + " IS NULL"
	if typ == "VARCHAR" {
		null = "(" + v + " IS NULL OR " + v + " = '')"
	}
	// empty: what an empty or null value makes the row.
	empty := "FALSE"
	if c.Nullable {
		empty = "TRUE"
	}
	either := func(present string) string {
		return "CASE WHEN " + null + " THEN " + empty + " ELSE " + present + " END"
	}
	nullIf := func(x string) string {
		if !c.Nullable {
			return x
		}
		return "CASE WHEN " + null + " THEN NULL ELSE " + x + " END"
	}
	if typ == "VARCHAR" {
		text := []string{"NOT contains(" + v + ", chr(0))"}
		if csv {
			text = append(text, "NOT contains("+v+", '\"')", "NOT contains("+v+", chr(13))")
		}
		switch c.Kind {
		case KindKey:
			text = append(text, fmt.Sprintf("strlen(%s) <= %d", v, MaxTextLen))
			return v, either(strings.Join(text, " AND ")), true
		case KindEntity:
			text = append(text, fmt.Sprintf("strlen(%s) <= %d", v, MaxTextLen), "regexp_matches("+v+", "+sqlString(c.pattern.String())+")")
			return v, either(strings.Join(text, " AND ")), true
		case KindEnum:
			vals := make([]string, 0, len(c.values))
			for s := range c.values {
				vals = append(vals, sqlString(s))
			}
			slices.Sort(vals)
			if len(vals) == 0 {
				text = append(text, "FALSE")
			} else {
				text = append(text, v+" IN ("+strings.Join(vals, ", ")+")")
			}
			return nullIf(v), either(strings.Join(text, " AND ")), true
		case KindTime:
			x := "TRY_CAST(" + v + " AS TIMESTAMP)"
			return x, either("regexp_full_match(" + v + ", " + sqlString(timeRE) + ") AND " + x + " IS NOT NULL AND " + x + " < " + timeLimitSQL), true
		case KindInteger:
			x := "TRY_CAST(" + v + " AS BIGINT)"
			return nullIf(x), either("regexp_full_match(" + v + ", " + sqlString(integerRE) + ") AND " + x + " IS NOT NULL"), true
		case KindNumber:
			x := "TRY_CAST(" + v + " AS DOUBLE)"
			return nullIf(x), either("regexp_full_match(" + v + ", " + sqlString(numberRE) + ") AND isfinite(" + x + ")"), true
		}
		return "", "", false
	}
	switch c.Kind {
	case KindTime:
		// typed()'s range: year() of an infinity is NULL.
		inRange := func(x string) string { return "coalesce(year(" + x + ") BETWEEN 0 AND 9999, FALSE)" }
		switch typ {
		case "TIMESTAMP WITH TIME ZONE":
			x := "timezone('UTC', " + v + ")"
			return x, either(inRange(x) + " AND " + x + " < " + timeLimitSQL), true
		case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS":
			x := "CAST(" + v + " AS TIMESTAMP)"
			return x, either(inRange(x) + " AND " + x + " < " + timeLimitSQL), true
		case "TIMESTAMP_NS":
			// Nanoseconds past the microsecond are refused, as a
			// seventh fractional digit is, not cut: the cast then
			// differs from the value.
			x := "CAST(" + v + " AS TIMESTAMP)"
			return x, either(inRange(x) + " AND " + x + " < " + timeLimitSQL + " AND " + x + " = " + v), true
		}
	case KindInteger, KindNumber:
		to := "BIGINT"
		if c.Kind == KindNumber {
			to = "DOUBLE"
		}
		switch typ {
		case "BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UINTEGER", "USMALLINT", "UTINYINT":
			return "CAST(" + v + " AS " + to + ")", either("TRUE"), true
		case "DOUBLE", "FLOAT":
			if c.Kind == KindNumber {
				return "CAST(" + v + " AS DOUBLE)", either("isfinite(CAST(" + v + " AS DOUBLE))"), true
			}
		}
	}
	return "", "", false // a Reader's typed() decides
}
