// Package demo generates retail store files deterministically from a seed,
// and embeds the default demo store that every command uses when no store
// file is given.
//
// Randomness comes from named streams (math/rand/v2 PCG seeded with the
// seed and a hash of the stream's name), so one part of the generator can
// change without reshuffling the others.
package demo

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/provenant/provenant/retail"
)

// DemoVersion is the dataset_version of the embedded demo store: what
// DefaultOptions generate.
const DemoVersion = "retail-demo-v1"

// MaxDays is the longest span Options.Days may ask for (about ten years).
const MaxDays = 3660

// Options sizes a generated store.
type Options struct {
	Seed uint64
	// Version is the dataset_version to write; "" derives it from the
	// other options (see DatasetVersion).
	Version  string
	Stores   int // 1 to 999
	Products int // 1 to 999
	Events   int // 0 to 999,999 (the event id format's ceiling)
	Start    time.Time
	Days     int // 1 to MaxDays
}

// DefaultOptions are the options of the embedded demo store. Their
// Version is "", which DatasetVersion names DemoVersion.
func DefaultOptions() Options {
	return Options{
		Seed:   20260101,
		Stores: 24, Products: 36, Events: 4000,
		Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Days: 7,
	}
}

// DatasetVersion is the dataset_version a store generated from o carries:
// o.Version when set; else DemoVersion for the default options, and for
// any others a name spelling out each of them, such as
// retail-gen-s7-e999999-st100-pr200-d7 (seed, events, stores, products,
// days, then -tYYYYMMDDThhmmssZ when the start is not the default's), so that two
// different generated stores never share a version.
func (o Options) DatasetVersion() string {
	if o.Version != "" {
		return o.Version
	}
	def := DefaultOptions()
	if o.Seed == def.Seed && o.Events == def.Events && o.Stores == def.Stores &&
		o.Products == def.Products && o.Days == def.Days && o.Start.Equal(def.Start) {
		return DemoVersion
	}
	v := fmt.Sprintf("retail-gen-s%d-e%d-st%d-pr%d-d%d", o.Seed, o.Events, o.Stores, o.Products, o.Days)
	if !o.Start.Equal(def.Start) {
		v += "-t" + o.Start.UTC().Format("20060102T150405Z")
	}
	return v
}

// OptionError reports an out-of-range option. Field is the option's name
// in lower case (seed, version, stores, products, events, start, days).
type OptionError struct {
	Field, Reason string
}

func (e *OptionError) Error() string { return e.Field + " " + e.Reason }

// Validate reports the first out-of-range option as an *OptionError.
func (o Options) Validate() error {
	switch {
	case o.Stores < 1 || o.Stores > 999:
		return &OptionError{"stores", "must be 1 to 999"}
	case o.Products < 1 || o.Products > 999:
		return &OptionError{"products", "must be 1 to 999"}
	case o.Events < 0 || o.Events > 999_999:
		return &OptionError{"events", "must be 0 to 999999"}
	case o.Days < 1 || o.Days > MaxDays:
		return &OptionError{"days", fmt.Sprintf("must be 1 to %d", MaxDays)}
	case o.Start.IsZero() || o.Start.Year() < 2000 || o.Start.Year() > 9000:
		return &OptionError{"start", "must be a date in the years 2000 to 9000"}
	case len(o.DatasetVersion()) > 64:
		return &OptionError{"version", "must be given: the name derived from the options is over 64 characters"}
	}
	return nil
}

func stream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

var (
	storeNames = []string{"Downtown", "Harbor", "Riverside", "Old Town", "Airport", "Station", "Market", "Hillside", "Lakeside", "Campus", "Mall", "Northgate"}
	categories = []struct {
		name  string
		items []string
	}{
		{"dairy", []string{"Oat milk 1L", "Whole milk 1L", "Greek yogurt", "Butter 250g", "Cheddar 200g", "Skyr"}},
		{"bakery", []string{"Sourdough loaf", "Rye bread", "Croissants 4pk", "Bagels 6pk"}},
		{"produce", []string{"Bananas", "Apples 1kg", "Spinach 200g", "Tomatoes 500g", "Avocados 2pk"}},
		{"pantry", []string{"Pasta 500g", "Rice 1kg", "Olive oil 500ml", "Coffee beans 250g", "Oats 1kg", "Tinned tomatoes"}},
		{"frozen", []string{"Frozen peas", "Ice cream 500ml", "Fish fingers", "Pizza margherita"}},
		{"household", []string{"Dish soap", "Paper towels", "Laundry pods", "Sponges 3pk"}},
	}
)

// Generate builds a store from o. The same options always give the same
// store.
func Generate(o Options) (*retail.Dataset, error) {
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("generate store: %w", err)
	}
	d := &retail.Dataset{Version: o.DatasetVersion()}
	for i := 1; i <= o.Stores; i++ {
		name := storeNames[(i-1)%len(storeNames)]
		if i > len(storeNames) {
			name = fmt.Sprintf("%s %d", name, (i-1)/len(storeNames)+1)
		}
		d.Stores = append(d.Stores, retail.Store{ID: fmt.Sprintf("st-%03d", i), Name: name})
	}
	basePrice := make([]int64, o.Products)
	prices := stream(o.Seed, "prices")
	for i := 1; i <= o.Products; i++ {
		c := categories[(i-1)%len(categories)]
		item := c.items[((i-1)/len(categories))%len(c.items)]
		if round := (i - 1) / (len(categories) * 4); round > 0 {
			item = fmt.Sprintf("%s (line %d)", item, round+1)
		}
		d.Products = append(d.Products, retail.Product{ID: fmt.Sprintf("pr-%03d", i), Name: item, Category: c.name})
		basePrice[i-1] = 99 + prices.Int64N(1900)
	}

	// Roughly one pair in eight never gets scanned, so grounded zeros have
	// something to find.
	pairsRNG := stream(o.Seed, "pairs")
	type pair struct{ store, product int }
	var active []pair
	for s := 0; s < o.Stores; s++ {
		for p := 0; p < o.Products; p++ {
			if pairsRNG.IntN(8) != 0 {
				active = append(active, pair{s, p})
			}
		}
	}
	if len(active) == 0 {
		active = append(active, pair{0, 0})
	}

	span := int64(o.Days) * 24 * 3600
	times, states, flags := stream(o.Seed, "times"), stream(o.Seed, "states"), stream(o.Seed, "flags")
	type draft struct {
		pair pair
		ts   int64
		e    retail.Event
	}
	drafts := make([]draft, o.Events)
	for i := range drafts {
		pr := active[times.IntN(len(active))]
		ts := times.Int64N(span)
		// About one event in a hundred repeats its pair's previous scan
		// time, so ties on timestamp (broken by event id) occur.
		if i > 0 && times.IntN(100) == 0 {
			pr, ts = drafts[i-1].pair, drafts[i-1].ts
		}
		e := retail.Event{
			StoreID:    d.Stores[pr.store].ID,
			ProductID:  d.Products[pr.product].ID,
			Timestamp:  o.Start.Add(time.Duration(ts) * time.Second).UTC().Format(retail.TimestampLayout),
			State:      pick(states, retail.States, []int{84, 8, 3, 5}),
			Flag:       pick(flags, retail.Flags, []int{93, 2, 2, 3}),
			PriceCents: basePrice[pr.product],
		}
		if e.Flag == retail.PriceMismatch {
			e.PriceCents += 10 + flags.Int64N(90)
		}
		drafts[i] = draft{pr, ts, e}
	}
	// Ids follow time order; ties keep generation order.
	slices.SortStableFunc(drafts, func(a, b draft) int { return cmp.Compare(a.ts, b.ts) })
	d.Events = make([]retail.Event, len(drafts))
	for i, dr := range drafts {
		dr.e.ID = fmt.Sprintf("evt-%06d", i+1)
		d.Events[i] = dr.e
	}
	return d, nil
}

func pick[T any](r *rand.Rand, vals []T, weights []int) T {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := r.IntN(total)
	for i, w := range weights {
		if n < w {
			return vals[i]
		}
		n -= w
	}
	return vals[len(vals)-1]
}

//go:embed retail-demo-v1.json
var embedded []byte

// File returns the embedded demo store file.
func File() []byte { return slices.Clone(embedded) }

// Load loads the embedded demo store through the ordinary loader.
func Load() (*retail.Dataset, error) {
	d, err := retail.Load(bytes.NewReader(embedded))
	if err != nil {
		return nil, fmt.Errorf("load demo store: %w", err)
	}
	return d, nil
}
