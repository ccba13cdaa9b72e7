package engine_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/tool"
)

var update = flag.Bool("update", false, "rewrite testdata/retail-answers.jsonl from the engine")

// TestRetailAnswers_Golden asks the retail engine every question and
// makes every call of testdata/retail-answers.jsonl, in order, with result
// ids from a ledger.Sequence, and compares each answer's JSON byte for
// byte. The file was recorded from the in-memory executor and resolver
// the retail demo ran on before it moved onto the catalog's shapes (commit
// de08118): the 62 gold questions, 8 more (undeclared ids, instants
// before any scan, empty windows) and 4 direct calls (one invalid).
func TestRetailAnswers_Golden(t *testing.T) {
	path := filepath.Join("testdata", "retail-answers.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(t.Context(), d, enginetest.OpenDuckDB, &engine.Options{ResultIDs: &ledger.Sequence{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var out bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		var rec struct {
			Q    *string         `json:"q"`
			Call *tool.Proposal  `json:"call"`
			A    json.RawMessage `json:"a"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		var got any
		if rec.Q != nil {
			got = map[string]any{"q": *rec.Q, "a": e.Pipeline.Ask(t.Context(), *rec.Q)}
		} else {
			got = map[string]any{"call": rec.Call, "a": e.Pipeline.Call(t.Context(), *rec.Call)}
		}
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if !*update && string(b) != sc.Text() {
			t.Errorf("line %d differs:\n got %s\nwant %s", n, b, sc.Text())
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 74 {
		t.Errorf("%d records, want 74", n)
	}
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
