package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ctorPackages hold the constructors TestConstructorStyle checks.
var ctorPackages = []string{"pipeline", "engine", "shape", "ingest", "ledger", "store/duckdb", "store/postgres", "metrics", "sandbox/duckdb",
	"eventlog/postgres", "eventlog/duckdb", "register/postgres", "register/duckdb"}

// optionsType reports whether e names an options struct (Options,
// AllocatorOptions, pkg.Options), and whether through a pointer.
func optionsType(e ast.Expr) (isOptions, pointer bool) {
	if s, ok := e.(*ast.StarExpr); ok {
		e, pointer = s.X, true
	}
	switch t := e.(type) {
	case *ast.Ident:
		return strings.HasSuffix(t.Name, "Options"), pointer
	case *ast.SelectorExpr:
		return strings.HasSuffix(t.Sel.Name, "Options"), pointer
	}
	return false, false
}

// TestConstructorStyle keeps one constructor style: New... and Open...
// take their required arguments, then at most one options struct, by
// pointer and last, where nil means defaults.
func TestConstructorStyle(t *testing.T) {
	fset := token.NewFileSet()
	for _, pkg := range ctorPackages {
		entries, err := os.ReadDir(filepath.Join(root, pkg))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(root, pkg, e.Name()), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || !fn.Name.IsExported() ||
					!strings.HasPrefix(fn.Name.Name, "New") && !strings.HasPrefix(fn.Name.Name, "Open") {
					continue
				}
				params := fn.Type.Params.List
				for i, p := range params {
					isOpts, ptr := optionsType(p.Type)
					switch {
					case isOpts && !ptr:
						t.Errorf("%s.%s takes its options by value; take *Options, nil meaning defaults", pkg, fn.Name.Name)
					case isOpts && (i != len(params)-1 || len(p.Names) > 1):
						t.Errorf("%s.%s: the options must be the last parameter", pkg, fn.Name.Name)
					}
				}
			}
		}
	}
}
