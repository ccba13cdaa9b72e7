package duckdb

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/sandbox"
)

// scanTable reads the table a profiled scan names: Table=cat.main.name,
// with or without quotes.
var scanTable = regexp.MustCompile(`Table='?([^,}']*)'?`)

// FuzzValidate: a statement the validator accepts, run on the whole
// fixture (whose tables outside the allowlist exist, with external
// access off), reads only allowlisted tables. The oracle is DuckDB's
// profile of what ran, not the validator's view of the text: every table
// scan names an allowlisted table of the main schema, and no operator
// scans anything else (a file, a function's rows, the catalog).
func FuzzValidate(f *testing.F) {
	for _, it := range loadCorpus(f) {
		f.Add(it.SQL)
	}
	for _, b := range benign {
		f.Add(b.sql)
	}
	for _, c := range astCases {
		f.Add(c.sql)
	}
	ctx := context.Background()
	v, err := NewValidator(ctx, sandbox.NewPolicy(allowed), nil)
	if err != nil {
		f.Fatal(err)
	}
	defer v.Close()
	conn, closeDB, err := openLocked(ctx, fixture(f), 256<<20)
	if err != nil {
		f.Fatal(err)
	}
	defer closeDB()
	defer conn.Close()
	var db string
	if err := conn.QueryRowContext(ctx, "SELECT current_database()").Scan(&db); err != nil {
		f.Fatal(err)
	}
	ok := map[string]bool{}
	for _, t := range allowed {
		ok[db+".main."+t] = true
	}
	budget := sandbox.DefaultLimits().RowBudget
	f.Fuzz(func(t *testing.T, stmt string) {
		err := v.Validate(ctx, stmt)
		if err != nil {
			if !errors.Is(err, sandbox.ErrRejected) {
				t.Fatalf("Validate = %v, not a rejection", err)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("rejection echoes a name: %v", err)
			}
			return
		}
		if est, err := estimatedRows(ctx, conn, stmt); err != nil || est > budget {
			return // fails to plan, or the budget stops it before it runs
		}
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		rows, err := conn.QueryContext(qctx, stmt)
		if err != nil {
			return
		}
		for n := 0; rows.Next() && n < 10_000; n++ {
		}
		rows.Close()
		info, err := duckdb.GetProfilingInfo(conn)
		if err != nil {
			return // answered from statistics: no scan ran
		}
		var check func(p duckdb.ProfilingInfo)
		check = func(p duckdb.ProfilingInfo) {
			typ, extra := p.Metrics["OPERATOR_TYPE"], p.Metrics["EXTRA_INFO"]
			if typ == "TABLE_SCAN" {
				if strings.HasPrefix(extra, "{Function=UNNEST,") || extra == "{Function=UNNEST}" {
					return // the one table function allowed: rows from a list the query holds
				}
				m := scanTable.FindStringSubmatch(extra)
				if m == nil {
					t.Fatalf("accepted statement %q scans something that is not a table: %s", stmt, extra)
				}
				if name := strings.ReplaceAll(m[1], `"`, ""); !ok[name] {
					t.Fatalf("accepted statement %q scans %s, outside the allowlist", stmt, name)
				}
			}
			for _, c := range p.Children {
				check(c)
			}
		}
		check(info)
	})
}
