// Package archtest guards the import graph: the properties that make the
// trust boundaries visible in code rather than in comments.
//
// It parses the sources itself (rather than asking go list) so that the
// test cache sees every file it depends on: an edit that adds a forbidden
// import always re-runs it.
package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/provenant/provenant"

// root is the module root, relative to this package.
const root = "../.."

// imports returns the non-test imports of the package in dir.
func imports(t *testing.T, rel string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, rel))
	if err != nil {
		t.Fatalf("read package %s: %v", rel, err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, rel, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("parse %s/%s: %v", rel, name, err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// closure returns every import reachable from pkg: module packages as
// module-relative paths, others as written.
func closure(t *testing.T, pkg string) []string {
	t.Helper()
	seen := map[string]bool{}
	var walk func(rel string)
	walk = func(rel string) {
		for _, imp := range imports(t, rel) {
			key := imp
			if r, ok := strings.CutPrefix(imp, module+"/"); ok {
				key = r
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			if key != imp {
				walk(key)
			}
		}
	}
	walk(pkg)
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func TestImportGraph(t *testing.T) {
	tests := []struct {
		pkg       string
		forbidden []string // module-relative prefixes
		why       string
	}{
		{"answer", []string{"provider"}, "the stapler is the single writer of value and provenance; no model may reach it"},
		{"shape", []string{"store", "engine", "pipeline", "provider"}, "the shapes are SQL over database/sql: no backend, no model"},
		{"tool", []string{"executor", "resolver", "store", "provider", "pipeline"}, "the wall reads no data and trusts no model"},
		{"fact", []string{"retail"}, "value kinds are shapes, not a domain (issue 8): no retail name in the value types"},
		{"tool", []string{"retail"}, "the registry and the wall are built from data (a catalog's tools), not a domain"},
		{"ledger", []string{"retail"}, "numerals follow value kinds and parameter kinds, not retail names"},
		{"answer", []string{"retail"}, "the answer carries any value shape"},
		{"calibration", []string{"retail"}, "classes follow value kinds, not tool names"},
		{"eval/internal/oracle", []string{"shape", "store", "engine", "pipeline", "provider"},
			"the gold set's third computation shares no code with the two it checks"},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			for _, d := range closure(t, tt.pkg) {
				for _, f := range tt.forbidden {
					if d == f || strings.HasPrefix(d, f+"/") {
						t.Errorf("%s imports %s: %s", tt.pkg, d, tt.why)
					}
				}
			}
		})
	}
}

// TestPureLibraries keeps the domain and fact libraries free of anything
// outside the standard library and each other, so they can be copied into
// another project alone.
func TestPureLibraries(t *testing.T) {
	pure := []string{"retail", "fact", "tool", "phrase", "answer", "grounding", "ledger", "stats", "calibration", "internal/strictjson", "sandbox", "internal/editdist", "repair", "task", "lthash"}
	for _, pkg := range pure {
		t.Run(pkg, func(t *testing.T) {
			for _, d := range closure(t, pkg) {
				if !isStd(d) && !slices.Contains(pure, d) {
					t.Errorf("%s imports %s, which is neither the standard library nor a pure package", pkg, d)
				}
			}
		})
	}
}

// TestMetricImports keeps the metric compiler and its re-derivation to the
// standard library, the catalog's types, fact's provenance and the one
// renderer of a catalog condition (internal/sqlcond, which shape uses
// too): no backend, no shape, no model; the SQL it renders names only
// what the catalog declares.
func TestMetricImports(t *testing.T) {
	for _, pkg := range []string{"metric", "internal/sqlcond"} {
		for _, d := range imports(t, pkg) {
			if !isStd(d) && d != module+"/catalog" && d != module+"/fact" && d != module+"/internal/sqlcond" && d != module+"/lthash" {
				t.Errorf("%s imports %s: it is the standard library, package catalog, package fact, internal/sqlcond and lthash only", pkg, d)
			}
		}
	}
}
