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

// TestDemo_Coverage checks the demo store has what the issue asks of it:
// a few dozen stores and products, a few thousand events over a week,
// every state, flag and condition, and pairs that were never scanned.
func TestDemo_Coverage(t *testing.T) {
	d, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Stores) < 20 || len(d.Products) < 20 || len(d.Events) < 2000 {
		t.Errorf("demo store has %d stores, %d products, %d events", len(d.Stores), len(d.Products), len(d.Events))
	}
	info := d.Info()
	if info.First < "2026-01-01T00:00:00Z" || info.Last >= "2026-01-08T00:00:00Z" {
		t.Errorf("events span %s to %s, want one week from 2026-01-01", info.First, info.Last)
	}
	states, flags, conds := map[retail.State]int{}, map[retail.Flag]int{}, map[retail.Condition]int{}
	pairs := map[[2]string]bool{}
	ties := 0
	last := map[[2]string]string{}
	for _, e := range d.Events {
		states[e.State]++
		flags[e.Flag]++
		for _, c := range retail.Conditions {
			if c.Match().Accepts(e) {
				conds[c]++
			}
		}
		k := [2]string{e.StoreID, e.ProductID}
		pairs[k] = true
		if last[k] == e.Timestamp {
			ties++
		}
		last[k] = e.Timestamp
	}
	for _, s := range retail.States {
		if states[s] == 0 {
			t.Errorf("no event in state %s", s)
		}
	}
	for _, f := range retail.Flags {
		if flags[f] == 0 {
			t.Errorf("no event with flag %s", f)
		}
	}
	for _, c := range retail.Conditions {
		if conds[c] == 0 {
			t.Errorf("no event meets condition %s", c)
		}
	}
	if unscanned := len(d.Stores)*len(d.Products) - len(pairs); unscanned == 0 {
		t.Error("every (store, product) pair has events; grounded zeros need some that have none")
	}
	if ties == 0 {
		t.Error("no timestamp ties within a pair; the tie-break rule goes untested on the demo")
	}
}
