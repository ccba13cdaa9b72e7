package demo

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"testing"
	"time"

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

// TestOptions_DatasetVersion: an empty Version is derived from every
// option that shapes the store; the defaults name the embedded demo.
func TestOptions_DatasetVersion(t *testing.T) {
	def := DefaultOptions()
	moved := def
	moved.Start = moved.Start.AddDate(0, 1, 0)
	big := def
	big.Seed, big.Events, big.Stores, big.Products = 7, 999999, 100, 200
	named := def
	named.Seed, named.Version = 9, "mine-1"
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"defaults", def, DemoVersion},
		{"big", big, "retail-gen-s7-e999999-st100-pr200-d7"},
		{"other start", moved, "retail-gen-s20260101-e4000-st24-pr36-d7-t20260201T000000Z"},
		{"explicit", named, "mine-1"},
	}
	// Two starts on the same day are two different stores.
	later := moved
	later.Start = moved.Start.Add(6 * time.Hour)
	if moved.DatasetVersion() == later.DatasetVersion() {
		t.Errorf("starts 6 hours apart share the version %s", later.DatasetVersion())
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Generate(tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if d.Version != tt.want || tt.o.DatasetVersion() != tt.want {
				t.Errorf("version = %q (DatasetVersion %q), want %q", d.Version, tt.o.DatasetVersion(), tt.want)
			}
		})
	}
	// Every derived name at the limits is a valid dataset_version, or
	// Validate asks for an explicit one.
	limit := Options{Seed: ^uint64(0), Stores: 999, Products: 999, Events: 999999, Days: MaxDays, Start: def.Start}
	if err := limit.Validate(); err != nil {
		t.Errorf("Validate() = %v for the largest options", err)
	}
	if d, err := Generate(Options{Seed: limit.Seed, Stores: 1, Products: 1, Days: MaxDays, Start: def.Start}); err != nil {
		t.Errorf("Generate() = %v", err)
	} else {
		var buf bytes.Buffer
		if err := retail.Write(&buf, d); err != nil {
			t.Fatal(err)
		}
		if _, err := retail.Load(&buf); err != nil {
			t.Errorf("Load() = %v for the version %q", err, d.Version)
		}
	}
	limit.Start = def.Start.AddDate(1, 0, 0)
	var oe *OptionError
	if err := limit.Validate(); !errors.As(err, &oe) || oe.Field != "version" {
		t.Errorf("Validate() = %v for a derived name over 64 characters, want an *OptionError for version", err)
	}
}

func TestOptions_ValidateNamesTheField(t *testing.T) {
	o := DefaultOptions()
	o.Stores = 0
	var oe *OptionError
	if err := o.Validate(); !errors.As(err, &oe) || oe.Field != "stores" {
		t.Errorf("Validate() = %v, want an *OptionError for stores", err)
	}
}
