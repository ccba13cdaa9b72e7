package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
)

// ErrCollation is wrapped by CheckCollation's error: a column the shapes
// sort by orders text otherwise than bytewise.
var ErrCollation = fmt.Errorf("text column is not sorted bytewise")

// CheckCollation checks that the key and series columns of every table
// dataset of cat sort text bytewise (collation "C" or "POSIX", or a
// database default of C or C.UTF-8 under libc), as Go and DuckDB do: the
// tie rule's "greatest key", and the order keys are listed and digested
// in, depend on it. The tables import creates are so (ingest.Layout); a
// table made otherwise, such as one created by hand in a database whose
// default is en_US.UTF-8 or an ICU locale, is refused by name with the
// statement that fixes it, rather than answered with another tie rule. A
// server whose system catalogs cannot be read this way (a PostgreSQL-wire
// engine without pg_collation) is not checked.
func CheckCollation(ctx context.Context, db *sql.DB, cat *catalog.Catalog) error {
	for _, ds := range cat.Datasets {
		if ds.Table.Value == "" {
			continue
		}
		cols := []string{ds.Key.Value}
		for _, s := range ds.Series {
			if e := ds.Entity(s.Value); e != nil {
				cols = append(cols, e.Column.Value)
			}
		}
		rows, err := db.QueryContext(ctx, `SELECT a.attname, co.collname, co.collprovider, COALESCE(co.collcollate, ''), d.datlocprovider, d.datcollate
FROM pg_attribute a JOIN pg_collation co ON co.oid = a.attcollation JOIN pg_database d ON d.datname = current_database()
WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`, ds.Table.Value)
		if err != nil {
			return nil
		}
		var bad []string
		for rows.Next() {
			var name, coll, provider, collate, dbProvider, dbCollate string
			if err := rows.Scan(&name, &coll, &provider, &collate, &dbProvider, &dbCollate); err != nil {
				rows.Close()
				return nil
			}
			if !slices.Contains(cols, name) || bytewise(coll, provider, collate, dbProvider, dbCollate) {
				continue
			}
			bad = append(bad, name)
		}
		rows.Close()
		if rows.Err() != nil {
			return nil
		}
		if len(bad) > 0 {
			fix := make([]string, len(bad))
			for i, c := range bad {
				fix[i] = "ALTER COLUMN " + ingest.Quote(c) + ` TYPE text COLLATE "C"`
			}
			return fmt.Errorf("check table %s of dataset %s: column %s: %w (fix: ALTER TABLE %s %s)",
				ds.Table.Value, ds.Name.Value, strings.Join(bad, ", "), ErrCollation, ingest.Quote(ds.Table.Value), strings.Join(fix, ", "))
		}
	}
	return nil
}

// bytewise reports whether a column's collation orders UTF-8 text as its
// bytes: C or POSIX, or libc's C.UTF-8, named or as the database default.
func bytewise(coll, provider, collate, dbProvider, dbCollate string) bool {
	cLocale := func(s string) bool {
		switch strings.ToLower(s) {
		case "c", "posix", "c.utf-8", "c.utf8":
			return true
		}
		return false
	}
	switch {
	case coll == "C" || coll == "POSIX" || coll == "ucs_basic":
		return true
	case coll == "default":
		return dbProvider == "c" && cLocale(dbCollate)
	}
	return provider == "c" && cLocale(collate)
}
