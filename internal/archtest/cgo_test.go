package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// duckdbLinkers are the only packages whose test binaries may link DuckDB
// (cgo, seconds to link on two cores): its own store, the engine and the
// layers whose tests run a real engine (the retail demo imported into an
// in-memory DuckDB by enginetest, since the executor and the resolver are
// SQL: a fake would be a third implementation of the shapes), the command
// that opens it, and the benchmark commands bench/scale and bench/floors
// (no tests, so `go test` links nothing for them). The libraries below them (catalog,
// shape, ingest, tool, fact, the providers, ...) stay free of it.
// sandbox/duckdb is the sandbox's own leaf: its validator is DuckDB's
// parser and its worker a DuckDB connection, so its tests (the hostile
// corpus, the fuzz target, the isolation benchmark) need the real one.
// memory/duckdb is the memory journal's DuckDB leaf (its contract runs on
// the real one); memory/enginecheck re-runs claims' tool calls through a
// real engine over the retail demo.
// eventlog/duckdb and register/duckdb are the audit stores' DuckDB
// leaves (internal/sqlstore/duckdialect their shared dialect, which has
// no tests): their contract, crash and benchmark tests need a real file.
// autonomy/duckdb is the gate ledger's DuckDB leaf (its contract runs on
// a real file); budget/duckdb the session budgets' (its contract runs on
// a real file).
var duckdbLinkers = []string{"store/duckdb", "engine", "engine/enginetest", "pipeline", "httpapi", "mcpserver",
	"eval", "eval/loadgen", "adversarial", "cmd/provenant", "bench/scale", "bench/floors", "sandbox/duckdb",
	"eventlog/duckdb", "register/duckdb", "internal/sqlstore/duckdialect", "memory/duckdb", "memory/enginecheck",
	"autonomy/duckdb", "budget/duckdb"}

// duckdbPaths are the import paths that mean a binary links DuckDB.
var duckdbPaths = []string{"store/duckdb", "sandbox/duckdb", "github.com/duckdb/duckdb-go/v2"}

// packages returns every package directory of the module, module-relative.
func packages(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			if rel = filepath.ToSlash(rel); !slices.Contains(out, rel) {
				out = append(out, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// testDeps returns what the package's test binary depends on (as
// `go list -deps -test` reports it): the imports of every file in the
// directory, test files included, and the non-test closure of each.
func testDeps(t *testing.T, rel string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, rel))
	if err != nil {
		t.Fatalf("read package %s: %v", rel, err)
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, rel, e.Name()), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("parse %s/%s: %v", rel, e.Name(), err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			key := p
			if r, ok := strings.CutPrefix(p, module+"/"); ok {
				key = r
				for _, d := range closure(t, r) {
					seen[d] = true
				}
			}
			seen[key] = true
		}
	}
	for _, d := range closure(t, rel) {
		seen[d] = true
	}
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// TestDuckDBLinkers keeps DuckDB out of every test binary but those of
// duckdbLinkers.
func TestDuckDBLinkers(t *testing.T) {
	pkgs := packages(t)
	for _, want := range duckdbLinkers {
		if !slices.Contains(pkgs, want) {
			t.Errorf("allowed linker %s is not a package of the module", want)
		}
	}
	var linkers []string
	for _, pkg := range pkgs {
		deps := testDeps(t, pkg)
		if slices.ContainsFunc(duckdbPaths, func(p string) bool { return slices.Contains(deps, p) }) || pkg == "store/duckdb" {
			linkers = append(linkers, pkg)
		}
	}
	for _, pkg := range linkers {
		if !slices.Contains(duckdbLinkers, pkg) {
			t.Errorf("the test binary of %s links DuckDB (store/duckdb); its tests must not need a database (or add it to duckdbLinkers, with the reason)", pkg)
		}
	}
	t.Logf("test binaries linking DuckDB: %v", linkers)
}
