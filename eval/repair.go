package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/noisy"
	"github.com/provenant/provenant/repair"
	"github.com/provenant/provenant/tool"
)

// `provenant eval --repair` measures the repair loop: the metric items of
// a gold set (those whose expected call is query_metric), asked through
// the noisy instrument with metric-selection faults (noisy.MetricUniform)
// once per seed, with the loop off and on, on one engine each. The same
// seed gives the same first proposal either way (the instrument's noise
// is keyed by the question), so each run pairs an item's answer without
// the loop and with it.

// DefaultMetricNoise is eval --repair's metric-noise rate unless given.
const DefaultMetricNoise = 0.2

// ClassNone is the report's class of a run whose first proposal no check
// caught: it answered, right or wrong, or failed in a way the loop does
// not repair.
const ClassNone = "none"

// RepairSet is one gold set the repair eval runs.
type RepairSet struct {
	Name string
	Gold *GoldSet
	// Open opens the set's engine with opts (its provider and repair loop
	// set by the run) and the target its answers are checked against. The
	// run closes the engine.
	Open func(ctx context.Context, opts engine.Options) (*engine.Engine, Target, error)
}

// RepairOptions configures RunRepair.
type RepairOptions struct {
	Sets []RepairSet
	// Inner is the provider the instrument wraps (rules on the command
	// line).
	Inner       provider.Provider
	MetricNoise float64
	Retries     int
	// Policy is the plausibility check's history band; the zero Policy is
	// repair.DefaultPolicy().
	Policy repair.Policy
	Seeds  []uint64
	// SelfConsistency, when above 1, votes over that many samples per
	// metric question on both engines (pipeline.SelfConsistency); with
	// the loop on, each sample is repaired on its own.
	SelfConsistency int
}

// RepairReport is the result of RunRepair.
type RepairReport struct {
	// Provider is the instrument's name with its seeds: it labels the run
	// as instrumented.
	Provider    string  `json:"provider"`
	MetricNoise float64 `json:"metric_noise"`
	Retries     int     `json:"retries"`
	Seeds       int     `json:"seeds"`
	// SelfConsistency is the samples voted on per question; absent when
	// no vote.
	SelfConsistency int                `json:"self_consistency,omitempty"`
	Sets            []*RepairSetReport `json:"sets"`
}

// RepairSetReport is one set's result.
type RepairSetReport struct {
	Name  string `json:"name"`
	Items int    `json:"items"` // metric items
	Runs  int    `json:"runs"`  // items x seeds
	Off   Gate   `json:"off"`   // correct without the loop
	On    Gate   `json:"on"`    // correct with it
	// Classes are, by the class of the first proposal's failure (or
	// ClassNone), the runs and how many were correct off and on.
	Classes map[string]*RepairClass `json:"classes"`
	// Attempts counts every failed attempt's class, retries included.
	Attempts map[string]int `json:"attempts"`
	// ResolvedAt counts the runs a failure was caught in that ended
	// correct, by the retries it took (under a vote, the most any one
	// sample took).
	ResolvedAt map[int]int `json:"resolved_at"`
	// Exhausted counts the runs a failure was caught in that did not end
	// correct (a special cause aside).
	Exhausted int `json:"exhausted"`
	// SpecialCause counts answers shipped with a special-cause note (an
	// out-of-band value the repair left unchanged), correct or not.
	SpecialCause int `json:"special_cause"`
}

// RepairClass is one first-failure class's runs.
type RepairClass struct {
	Runs int  `json:"runs"`
	Off  Gate `json:"off"`
	On   Gate `json:"on"`
}

// ErrNoMetricItems is returned for a set without a metric item.
var ErrNoMetricItems = errors.New("gold set has no metric item")

// RunRepair runs every set over every seed with the loop off and on.
func RunRepair(ctx context.Context, o RepairOptions) (*RepairReport, error) {
	if o.Inner == nil || len(o.Seeds) == 0 || len(o.Sets) == 0 {
		return nil, errors.New("run repair eval: want an inner provider, seeds and sets")
	}
	if o.Retries < 0 || o.Retries > repair.MaxRetries {
		return nil, fmt.Errorf("run repair eval: retries: %w", repair.ErrRetries)
	}
	sw := &seeded{}
	if err := sw.set(o.Inner, o.MetricNoise, o.Seeds[0]); err != nil {
		return nil, fmt.Errorf("run repair eval: %w", err)
	}
	if o.SelfConsistency != 0 {
		if err := (pipeline.SelfConsistency{Samples: o.SelfConsistency}).Validate(); err != nil {
			return nil, fmt.Errorf("run repair eval: %w", err)
		}
	}
	r := &RepairReport{MetricNoise: o.MetricNoise, Retries: o.Retries, Seeds: len(o.Seeds),
		Provider: seedsLabel(sw.Name(), o.Seeds)}
	if o.SelfConsistency > 1 {
		r.SelfConsistency = o.SelfConsistency
	}
	for _, set := range o.Sets {
		sr, err := runRepairSet(ctx, o, set, sw)
		if err != nil {
			return nil, fmt.Errorf("run repair eval: %s: %w", set.Name, err)
		}
		r.Sets = append(r.Sets, sr)
	}
	return r, nil
}

// MetricItems returns g with only its metric items: those whose expected
// call is query_metric.
func MetricItems(g *GoldSet) *GoldSet {
	out := *g
	out.Items = nil
	for _, it := range g.Items {
		if it.Expect.Tool == "query_metric" {
			out.Items = append(out.Items, it)
		}
	}
	return &out
}

func runRepairSet(ctx context.Context, o RepairOptions, set RepairSet, sw *seeded) (*RepairSetReport, error) {
	g := MetricItems(set.Gold)
	if len(g.Items) == 0 {
		return nil, ErrNoMetricItems
	}
	var sc *pipeline.SelfConsistency
	if o.SelfConsistency > 1 {
		sc = &pipeline.SelfConsistency{Samples: o.SelfConsistency}
	}
	off, tOff, err := set.Open(ctx, engine.Options{Provider: sw, SelfConsistency: sc})
	if err != nil {
		return nil, err
	}
	defer off.Close()
	on, tOn, err := set.Open(ctx, engine.Options{Provider: sw, SelfConsistency: sc, Repair: &pipeline.Repair{Retries: o.Retries, Policy: o.Policy}})
	if err != nil {
		return nil, err
	}
	defer on.Close()
	sr := &RepairSetReport{Name: set.Name, Items: len(g.Items), Classes: map[string]*RepairClass{}, Attempts: map[string]int{}, ResolvedAt: map[int]int{}}
	for _, seed := range o.Seeds {
		if err := sw.set(o.Inner, o.MetricNoise, seed); err != nil {
			return nil, err
		}
		ro, err := RunTarget(ctx, off.Pipeline, g, tOff)
		if err != nil {
			return nil, err
		}
		rn, err := RunTarget(ctx, on.Pipeline, g, tOn)
		if err != nil {
			return nil, err
		}
		for i := range g.Items {
			sr.add(ro.Items[i], rn.Items[i])
		}
	}
	return sr, nil
}

// add scores one paired run.
func (sr *RepairSetReport) add(off, on Row) {
	sr.Runs++
	sr.Off.add(off.Correct)
	sr.On.add(on.Correct)
	var a struct {
		Attempts     []answer.Attempt `json:"attempts"`
		SpecialCause string           `json:"special_cause"`
	}
	_ = json.Unmarshal(on.Answer, &a)
	class := ClassNone
	if len(a.Attempts) > 0 {
		class = string(a.Attempts[0].Class)
	}
	c := sr.Classes[class]
	if c == nil {
		c = &RepairClass{}
		sr.Classes[class] = c
	}
	c.Runs++
	c.Off.add(off.Correct)
	c.On.add(on.Correct)
	for _, at := range a.Attempts {
		sr.Attempts[string(at.Class)]++
	}
	// An answer after n attempts came from the n-th repaired proposal, or
	// is the failure the loop gave up on; under a vote, n is the most
	// attempts any one sample made.
	n, perSample := len(a.Attempts), map[int]int{}
	for _, at := range a.Attempts {
		if at.Sample != nil {
			perSample[*at.Sample]++
		}
	}
	if len(perSample) > 0 {
		n = slices.Max(slices.Collect(maps.Values(perSample)))
	}
	switch {
	case a.SpecialCause != "":
		sr.SpecialCause++
	case len(a.Attempts) == 0:
	case on.Correct:
		sr.ResolvedAt[n]++
	default:
		sr.Exhausted++
	}
}

// seeded is the instrument of the current seed, swapped between passes
// (never during one): both engines of a set ask it.
type seeded struct {
	mu sync.RWMutex
	p  *noisy.Provider
}

var (
	_ provider.Provider = (*seeded)(nil)
	_ provider.Repairer = (*seeded)(nil)
)

func (s *seeded) set(inner provider.Provider, rate float64, seed uint64) error {
	p, err := noisy.New(inner, noisy.Options{Seed: seed, Rates: noisy.MetricUniform(rate)})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.p = p
	s.mu.Unlock()
	return nil
}

func (s *seeded) cur() *noisy.Provider {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.p
}

func (s *seeded) Name() string { return s.cur().Name() }

func (s *seeded) Select(ctx context.Context, q string, menu []tool.Def) (*tool.Proposal, error) {
	return s.cur().Select(ctx, q, menu)
}

func (s *seeded) Compose(ctx context.Context, in provider.ComposeInput) (string, error) {
	return s.cur().Compose(ctx, in)
}

func (s *seeded) Repair(ctx context.Context, in provider.RepairInput) (*tool.Proposal, error) {
	return s.cur().Repair(ctx, in)
}

// seedsLabel replaces a name's seed=N with the seeds run.
func seedsLabel(name string, seeds []uint64) string {
	label := "seeds=" + strconv.FormatUint(seeds[0], 10)
	if len(seeds) > 1 {
		label += ".." + strconv.FormatUint(seeds[len(seeds)-1], 10)
	}
	i := strings.LastIndex(name, "seed=")
	if i < 0 {
		return name
	}
	j := strings.IndexByte(name[i:], ']')
	if j < 0 {
		return name
	}
	return name[:i] + label + name[i+j:]
}

// WriteRepairJSON writes the report as one JSON object.
func WriteRepairJSON(w io.Writer, r *RepairReport) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode repair report: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteRepairTable writes the report for people: per set, the accuracy
// with the loop off and on; per first-failure class, the same; the
// distribution of failed attempts' classes and of the retries that
// resolved a caught failure.
func WriteRepairTable(w io.Writer, r *RepairReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "repair eval: %s (a test instrument), metric items, retries %d, %d seeds", r.Provider, r.Retries, r.Seeds)
	if r.SelfConsistency > 1 {
		fmt.Fprintf(tw, ", self-consistency %d samples (each repaired on its own)", r.SelfConsistency)
	}
	fmt.Fprintln(tw)
	pct := func(g Gate) string {
		return fmt.Sprintf("%d/%d (%.0f%%)", g.Passed, g.Total, 100*g.Rate)
	}
	for _, s := range r.Sets {
		fmt.Fprintf(tw, "\n%s: %d metric items x %d seeds = %d runs\n", s.Name, s.Items, r.Seeds, s.Runs)
		fmt.Fprintf(tw, "first failure\truns\tloop off\tloop on\n")
		fmt.Fprintf(tw, "all\t%d\t%s\t%s\n", s.Runs, pct(s.Off), pct(s.On))
		names := slices.Sorted(maps.Keys(s.Classes))
		for _, c := range names {
			k := s.Classes[c]
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", c, k.Runs, pct(k.Off), pct(k.On))
		}
		fmt.Fprintf(tw, "attempt classes\t")
		var parts []string
		for _, c := range answer.FailureClasses {
			parts = append(parts, fmt.Sprintf("%s=%d", c, s.Attempts[string(c)]))
		}
		fmt.Fprintln(tw, strings.Join(parts, " "))
		parts = parts[:0]
		for n := 1; n <= r.Retries; n++ {
			parts = append(parts, fmt.Sprintf("%d=%d", n, s.ResolvedAt[n]))
		}
		fmt.Fprintf(tw, "resolved after retries\t%s\n", strings.Join(parts, " "))
		fmt.Fprintf(tw, "caught, not resolved\t%d\n", s.Exhausted)
		fmt.Fprintf(tw, "special cause\t%d\n", s.SpecialCause)
	}
	return tw.Flush()
}
