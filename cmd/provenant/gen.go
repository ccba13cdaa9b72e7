package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
)

func runGen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gen", "gen [flags]",
		"provenant gen --events 999999 --stores 100 --products 200 --out /tmp/big.json", stderr)
	o := demo.DefaultOptions()
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "generator seed")
	fs.IntVar(&o.Stores, "stores", o.Stores, "number of stores (1 to 999)")
	fs.IntVar(&o.Products, "products", o.Products, "number of products (1 to 999)")
	fs.IntVar(&o.Events, "events", o.Events, "number of events (0 to 999999)")
	fs.IntVar(&o.Days, "days", o.Days, fmt.Sprintf("days the events span, from 2026-01-01 (1 to %d)", demo.MaxDays))
	fs.StringVar(&o.Version, "dataset-version", "",
		"`NAME` to write as dataset_version (default: derived from the other flags: "+demo.DemoVersion+" for the demo's arguments, else like retail-gen-s7-e999999-st100-pr200-d7)")
	out := fs.String("out", "", "output `PATH` (default: standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := demo.Generate(o)
	if oe := (*demo.OptionError)(nil); errors.As(err, &oe) {
		flagName := oe.Field
		if flagName == "version" {
			flagName = "dataset-version"
		}
		return usagef("--%s %s", flagName, oe.Reason)
	}
	if err != nil {
		return err
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return fmt.Errorf("create store file: %w", err)
		}
		defer f.Close()
		w = f
	}
	if err := retail.Write(w, d); err != nil {
		return err
	}
	if f, ok := w.(*os.File); ok && *out != "" {
		return f.Close()
	}
	return nil
}
