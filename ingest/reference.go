package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/provenant/provenant/catalog"
)

// ReferenceRow is one id an entity's reference table declares, with its
// display name.
type ReferenceRow struct {
	ID   string
	Name string
	// Columns are the values of the reference's further columns
	// (catalog.Reference.Columns) by column name; a column missing here is
	// stored empty (null).
	Columns map[string]string
}

// ImportReference creates the reference table of entity e if it is
// missing (two text columns, the id its primary key; the same DDL on
// DuckDB and PostgreSQL) and inserts rows, in tx. Every row is checked
// first: the id matches the entity's pattern and repeats no other (in rows
// or already stored), the name is non-empty UTF-8 of at most MaxTextLen
// bytes. Problems are an Errors naming the row and the field, never the
// value, and nothing is inserted.
func ImportReference(ctx context.Context, tx *sql.Tx, input string, e *catalog.Entity, rows []ReferenceRow) error {
	r := e.Reference
	if r == nil || r.Table.Value == "" {
		return fmt.Errorf("import reference of %s: %w", e.Name.Value, ErrNotTable)
	}
	pattern, err := regexp.Compile(e.Pattern.Value)
	if err != nil {
		return fmt.Errorf("import reference of %s: %w", e.Name.Value, err)
	}
	extra := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		extra[i] = c.Value
	}
	var problems Errors
	add := func(row int, field, reason string) {
		if len(problems) < MaxErrors {
			problems = append(problems, &RowError{Input: input, Row: int64(row + 1), Field: field, Reason: reason})
		}
	}
	seen := make(map[string]bool, len(rows))
	for i, rw := range rows {
		switch {
		case !utf8.ValidString(rw.ID) || len(rw.ID) > MaxTextLen || !pattern.MatchString(rw.ID):
			add(i, r.ID.Value, "does not match the pattern of "+e.Name.Value)
		case seen[rw.ID]:
			add(i, r.ID.Value, "repeats an earlier id")
		}
		seen[rw.ID] = true
		if rw.Name == "" || !utf8.ValidString(rw.Name) || len(rw.Name) > MaxTextLen {
			add(i, r.DisplayName.Value, fmt.Sprintf("must be non-empty UTF-8 of at most %d bytes", MaxTextLen))
		}
		for _, c := range slices.Sorted(maps.Keys(rw.Columns)) {
			val := rw.Columns[c]
			switch {
			case !slices.Contains(extra, c):
				add(i, r.ID.Value, "has a value for a column the reference does not declare")
			case val == "" || !utf8.ValidString(val) || len(val) > MaxTextLen:
				add(i, c, fmt.Sprintf("must be non-empty UTF-8 of at most %d bytes", MaxTextLen))
			}
		}
	}
	if len(problems) > 0 {
		return problems
	}
	table, id, name := Quote(r.Table.Value), Quote(r.ID.Value), Quote(r.DisplayName.Value)
	ddl := "CREATE TABLE IF NOT EXISTS " + table + " (" + id + " VARCHAR NOT NULL PRIMARY KEY, " + name + " VARCHAR NOT NULL"
	cols := id + ", " + name
	for _, c := range extra {
		ddl += ", " + Quote(c) + " VARCHAR"
		cols += ", " + Quote(c)
	}
	ddl += ")"
	if _, err := tx.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("import reference of %s: %w", e.Name.Value, err)
	}
	// Ids already stored: the primary key would refuse them, but with the
	// value in the database's message; this names the row instead.
	stored, err := storedIDs(ctx, tx, table, id)
	if err != nil {
		return fmt.Errorf("import reference of %s: %w", e.Name.Value, err)
	}
	for i, rw := range rows {
		if stored[rw.ID] {
			add(i, r.ID.Value, "is already stored")
		}
	}
	if len(problems) > 0 {
		return problems
	}
	const chunk = 500
	for lo := 0; lo < len(rows); lo += chunk {
		hi := min(lo+chunk, len(rows))
		var b strings.Builder
		args := make([]any, 0, (2+len(extra))*(hi-lo))
		b.WriteString("INSERT INTO " + table + " (" + cols + ") VALUES ")
		for i, rw := range rows[lo:hi] {
			if i > 0 {
				b.WriteString(", ")
			}
			args = append(args, rw.ID, rw.Name)
			b.WriteString("($" + strconv.Itoa(len(args)-1) + ", $" + strconv.Itoa(len(args)))
			for _, c := range extra {
				if v, ok := rw.Columns[c]; ok {
					args = append(args, v)
				} else {
					args = append(args, nil)
				}
				b.WriteString(", $" + strconv.Itoa(len(args)))
			}
			b.WriteString(")")
		}
		if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
			return fmt.Errorf("import reference of %s: %w", e.Name.Value, err)
		}
	}
	return nil
}

func storedIDs(ctx context.Context, tx *sql.Tx, table, id string) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, "SELECT "+id+" FROM "+table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out[s] = true
	}
	return out, rows.Err()
}
