package demo

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/provenant/provenant/retail"
)

var update = flag.Bool("update", false, "rewrite the embedded demo store from the generator")

// TestEmbeddedMatchesGenerator keeps the committed demo file and the
// generator in step: the file is exactly what DefaultOptions generate.
func TestEmbeddedMatchesGenerator(t *testing.T) {
	d, err := Generate(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := retail.Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("retail-demo-v1.json", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(buf.Bytes(), embedded) {
		t.Fatal("embedded demo store differs from the generator's output; run go test ./retail/demo -update")
	}
}
