package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	whdemo "github.com/provenant/provenant/warehouse/demo"
)

func runGen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gen", "gen [flags]",
		"provenant gen --events 999999 --stores 100 --products 200 --out /tmp/big.json", stderr)
	o := demo.DefaultOptions()
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "generator seed")
	fs.IntVar(&o.Stores, "stores", o.Stores, "number of stores (1 to 999)")
	fs.IntVar(&o.Products, "products", o.Products, "number of products (1 to 999)")
	fs.IntVar(&o.Events, "events", o.Events, "number of events (0 to 999999; with --catalog warehouse, 0 to 999999999)")
	fs.IntVar(&o.Days, "days", o.Days, fmt.Sprintf("days the events span, from 2026-01-01 (1 to %d)", demo.MaxDays))
	fs.StringVar(&o.Version, "dataset-version", "",
		"`NAME` to write as dataset_version (default: derived from the other flags: "+demo.DemoVersion+" for the demo's arguments, else like retail-gen-s7-e999999-st100-pr200-d7)")
	out := fs.String("out", "", "output `PATH` (default: standard output)")
	cat := fs.String("catalog", "", "`NAME` of the embedded catalog whose demo data to write instead of a retail store file: warehouse (its status events, as --format)")
	wo := whdemo.DefaultOptions()
	fs.IntVar(&wo.Zones, "zones", wo.Zones, fmt.Sprintf("with --catalog warehouse: number of zones (1 to %d)", whdemo.MaxZones))
	fs.IntVar(&wo.Devices, "devices", wo.Devices, fmt.Sprintf("with --catalog warehouse: number of devices (1 to %d)", whdemo.MaxDevices))
	format := fs.String("format", "csv", "with --catalog warehouse: csv or jsonl")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *cat != "" || set["zones"] || set["devices"] || set["format"] {
		return genWarehouse(ctx, *cat, wo, o, set, *format, *out, stdout)
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

// genWarehouse writes the warehouse demo's status events (the rows of
// catalogs/warehouse.yaml's table) as CSV or JSON Lines, streamed in
// constant memory: input for provenant import.
func genWarehouse(ctx context.Context, cat string, w whdemo.Options, retailOpts demo.Options, set map[string]bool, format, out string, stdout io.Writer) error {
	switch {
	case cat != "warehouse":
		return usagef("--catalog: want warehouse (the one embedded catalog with a generator of its own)")
	case set["stores"] || set["products"] || set["dataset-version"]:
		return usagef("--stores, --products and --dataset-version are the retail store file's; --catalog warehouse takes --zones and --devices")
	case format != "csv" && format != "jsonl":
		return usagef("--format: want csv or jsonl")
	}
	if set["seed"] {
		w.Seed = retailOpts.Seed
	}
	if set["events"] {
		w.Events = retailOpts.Events
	}
	if set["days"] {
		w.Days = retailOpts.Days
	}
	if err := w.Validate(); err != nil {
		if oe := (*whdemo.OptionError)(nil); errors.As(err, &oe) {
			return usagef("--%s %s", oe.Field, oe.Reason)
		}
		return err
	}
	dst := stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return fmt.Errorf("create output file: %w", err)
		}
		defer f.Close()
		dst = f
	}
	bw := bufio.NewWriterSize(dst, 1<<20)
	write := whdemo.WriteCSV
	if format == "jsonl" {
		write = whdemo.WriteJSONL
	}
	if err := write(ctx, bw, w); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if f, ok := dst.(*os.File); ok && out != "" {
		return f.Close()
	}
	return nil
}
