package bench_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/bench"
)

var update = flag.Bool("update", false, "rewrite the README's bench blocks from bench/results")

var blockRE = regexp.MustCompile(`(?s)<!-- bench:([a-z0-9-]+):begin -->\n(.*?)<!-- bench:([a-z0-9-]+):end -->`)

// TestREADME fails when a README performance table (in README.md or a
// docs-*.md at the repository's root) differs from what its committed
// record renders, when a block has no record or renderer, or when a
// record has no block. Regenerate a record with the command its
// header names (through go run ./bench/record), then
//
//	go test ./bench -run TestREADME -update
func TestREADME(t *testing.T) {
	// README.md, and the docs-*.md a helper branch writes its README
	// sections to before they are pasted in.
	docs, err := filepath.Glob(filepath.Join("..", "docs-*.md"))
	if err != nil {
		t.Fatal(err)
	}
	records, err := filepath.Glob(filepath.Join("results", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, path := range append([]string{filepath.Join("..", "README.md")}, docs...) {
		readme, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Base(path)
		out := blockRE.ReplaceAllFunc(readme, func(m []byte) []byte {
			s := blockRE.FindSubmatch(m)
			name, got := string(s[1]), string(s[2])
			blocks = append(blocks, name)
			if string(s[3]) != name {
				t.Errorf("%s block %s ends with the marker of %s", file, name, s[3])
				return m
			}
			want, err := render(name)
			if err != nil {
				t.Errorf("%s block %s: %v", file, name, err)
				return m
			}
			if got != want && !*update {
				t.Errorf("%s block %s differs from bench/results/%s.txt; regenerate with\n  go test ./bench -run TestREADME -update\ngot:\n%s\nwant:\n%s", file, name, name, got, want)
			}
			return []byte("<!-- bench:" + name + ":begin -->\n" + want + "<!-- bench:" + name + ":end -->")
		})
		if *update && !bytes.Equal(out, readme) {
			if err := os.WriteFile(path, out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, r := range records {
		name := strings.TrimSuffix(filepath.Base(r), ".txt")
		if !slices.Contains(blocks, name) {
			t.Errorf("bench/results/%s.txt has no <!-- bench:%s:begin --> block in README.md or a docs-*.md", name, name)
		}
	}
}

func render(name string) (string, error) {
	fn, ok := bench.Renderers[name]
	if !ok {
		return "", os.ErrNotExist
	}
	f, err := os.Open(filepath.Join("results", name+".txt"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	rec, err := bench.Parse(f)
	if err != nil {
		return "", err
	}
	return fn(rec)
}
