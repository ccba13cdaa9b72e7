package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	pathpkg "path"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/metric/fixture"
	sandboxdb "github.com/provenant/provenant/sandbox/duckdb"
	"github.com/provenant/provenant/store/duckdb"
)

// runValidate checks a catalog file strictly and reports every problem on
// standard error as file:line:col: message. A valid catalog prints one
// summary line on standard output; an invalid one is an error (exit 1).
//
// Every metric's representative requests (each grain, each allowed
// dimension) are compiled and parsed with DuckDB's own parser: each must
// be one query that reads only the read allowlist (the declared tables
// minus sql.deny) within the sandbox's policy; a failure is an error at
// the metric's name.
//
// Unless --fixtures=false, it also runs every metric's fixture on an
// in-memory DuckDB: the rows imported, each case compiled, run and re-derived, and
// both tables compared with the values the fixture computed by hand; a
// disagreement is an error at the metric's `fixture` line.
func runValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", "validate --catalog FILE [--fixtures=false]",
		"provenant validate --catalog catalogs/retail.yaml", stderr)
	path := fs.String("catalog", "", "catalog `FILE` (required): the YAML catalog to check")
	runFixtures := fs.Bool("fixtures", true, "run every metric's fixture cases on an in-memory DuckDB and compare with the hand-computed values (--fixtures=false skips them; every other check needs no data)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *path == "" {
		return usagef("--catalog FILE is required")
	}
	f, err := openStream(ctx, *path)
	if err != nil {
		return fmt.Errorf("open catalog file: %w", err)
	}
	defer f.Close()
	c, err := catalog.Load(f, *path)
	if err == nil {
		// A metric's fixture is a file beside the catalog.
		err = c.CheckFixtures(catalogDirFS(ctx, *path), ".")
	}
	// Every metric's compiled SQL parses with DuckDB's parser and reads
	// only the allowlist: no data needed, so always.
	queries := 0
	if err == nil {
		queries, err = sandboxdb.CheckMetrics(ctx, c)
	}
	cases := 0
	if err == nil && *runFixtures {
		cases, err = matchFixtures(ctx, c, catalogDirFS(ctx, *path))
	}
	if list := (catalog.ErrorList)(nil); errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintln(stderr, e.Error())
		}
		return fmt.Errorf("validate catalog: %d error(s): %w", len(list), catalog.ErrInvalid)
	}
	if err != nil {
		return fmt.Errorf("validate catalog: %w", err)
	}
	metrics := ""
	if len(c.Metrics) > 0 {
		metrics = fmt.Sprintf(", %d metric(s), %d compiled quer(ies) within the SQL allowlist", len(c.Metrics), queries)
	}
	if *runFixtures && len(c.Metrics) > 0 {
		metrics += fmt.Sprintf(", %d fixture case(s) match", cases)
	}
	// Tools counts the tools served: a write tool counts only when the
	// catalog enables writes, and then it is named apart.
	served := 0
	for _, t := range c.Tools {
		if c.Served(t) {
			served++
		}
	}
	if n := len(c.WriteTools()); n > 0 {
		metrics += fmt.Sprintf(", writes enabled (%d write tool(s), each behind an L3 grant)", n)
	}
	_, err = fmt.Fprintf(stdout, "%s: valid (catalog %s version %q: %d dataset(s), %d tool(s)%s)\n",
		*path, c.Name.Value, c.Version.Value, len(c.Datasets), served, metrics)
	return err
}

// matchFixtures runs every metric's fixture of c (its files in fsys, the
// catalog's directory) on a fresh in-memory DuckDB each, and returns the
// number of cases run, or an ErrorList of the cases that disagree, each at
// its metric's `fixture` line.
func matchFixtures(ctx context.Context, c *catalog.Catalog, fsys iofs.FS) (int, error) {
	var list catalog.ErrorList
	fail := func(m *catalog.Metric, format string, args ...any) {
		list = append(list, &catalog.Error{File: c.File, Line: m.Fixture.Pos.Line, Column: m.Fixture.Pos.Column,
			Message: fmt.Sprintf("metric `%s`: fixture: ", m.Name.Value) + fmt.Sprintf(format, args...)})
	}
	cases := 0
	for _, m := range c.Metrics {
		if err := ctx.Err(); err != nil {
			// An interrupt: one line, not one per fixture left.
			return cases, err
		}
		fx, err := fixture.Read(fsys, m.Fixture.Value)
		if err != nil {
			fail(m, "%v", err)
			continue
		}
		outs, err := func() ([]fixture.Outcome, error) {
			db, err := duckdb.OpenMemory(ctx)
			if err != nil {
				return nil, err
			}
			defer db.Close()
			ds := c.Dataset(c.ModelOf(m).Dataset.Value)
			if err := fx.Import(ctx, db, duckdb.NewSink(db, nil), c, ds, fsys, pathpkg.Dir(m.Fixture.Value)); err != nil {
				return nil, err
			}
			return fx.Run(ctx, db, c, m)
		}()
		if err != nil {
			fail(m, "%v", err)
			continue
		}
		for _, o := range outs {
			cases++
			for _, p := range o.Problems {
				fail(m, "case %q: %v", o.Case, p)
			}
		}
	}
	if len(list) > 0 {
		return cases, list
	}
	return cases, nil
}
