package catalog

import (
	"errors"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func FuzzParse(f *testing.F) {
	f.Add(base)
	for _, name := range []string{"../catalogs/retail.yaml", "../catalogs/warehouse.yaml"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
		f.Add(string(b) + "sql:\n  allow: [events, Stores, stores, x]\n  deny: [products, '', stores]\n")
	}
	for _, s := range []string{"", "name: [a\n", "- a\n", "a: &x [*x]\n", "name: a\nname: b\n",
		"datasets: [{conditions: [{any: [{any: [{any: []}]}]}]}]\n", "\"\\x07\": 1\n", "? a\n: b\n", "--- !!map\n",
		"name: a\n\tversion: x\n", "name: @a\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := Parse(strings.NewReader(in), "f.yaml")
		if err == nil {
			if c == nil {
				t.Fatal("Parse returned neither a catalog nor an error")
			}
			err = c.Validate()
		}
		if err == nil {
			return
		}
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error %v is not a non-empty ErrorList", err)
		}
		for i, e := range list {
			if e.File != "f.yaml" || e.Line < 1 || e.Column < 1 || e.Message == "" {
				t.Fatalf("error without a position: %+v", e)
			}
			// A message never echoes a long or unprintable value.
			if !utf8.ValidString(e.Message) || strings.ContainsFunc(e.Message, unicode.IsControl) {
				t.Fatalf("message with an unprintable echo: %q", e.Message)
			}
			for j, part := range strings.Split(e.Message, "`") {
				if j%2 == 1 && len(part) > maxEcho {
					t.Fatalf("message echoes %d bytes: %q", len(part), e.Message)
				}
			}
			if i > 0 && (e.Line < list[i-1].Line || e.Line == list[i-1].Line && e.Column < list[i-1].Column) {
				t.Fatalf("errors not sorted: %v", list)
			}
		}
	})
}
