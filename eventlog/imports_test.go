package eventlog_test

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

// TestImports keeps the libraries small: eventlog imports the standard
// library, RFC 8785 and strictjson; autonomy adds only eventlog; the JSON
// Schema validator lives in the eventschema leaf alone.
func TestImports(t *testing.T) {
	const mod = "github.com/provenant/provenant/"
	tests := []struct {
		dir     string
		allowed []string
	}{
		{".", []string{"github.com/gowebpki/jcs", mod + "internal/strictjson"}},
		{"eventschema", []string{"github.com/santhosh-tekuri/jsonschema/v6", mod + "eventlog"}},
		{"../autonomy", []string{mod + "eventlog"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			entries, err := os.ReadDir(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			for _, e := range entries {
				if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
					continue
				}
				f, err := parser.ParseFile(fset, filepath.Join(tt.dir, e.Name()), nil, parser.ImportsOnly)
				if err != nil {
					t.Fatal(err)
				}
				for _, imp := range f.Imports {
					p, _ := strconv.Unquote(imp.Path.Value)
					first, _, _ := strings.Cut(p, "/")
					if strings.Contains(first, ".") && !slices.Contains(tt.allowed, p) {
						t.Errorf("%s/%s imports %s; allowed beyond the standard library: %v", tt.dir, e.Name(), p, tt.allowed)
					}
				}
			}
		})
	}
}
