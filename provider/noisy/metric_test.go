package noisy_test

import (
	"fmt"
	"maps"
	"reflect"
	"testing"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/noisy"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/tool"
)

// A warehouse metric question the rules provider parses to query_metric.
const metricQ = "low battery events by zone in zone-01 and zone-02 between 2026-01-06T00:00:00Z and 2026-01-06T02:00:00Z"

func metricClean(t *testing.T) (*tool.Proposal, []tool.Def) {
	t.Helper()
	menu := catalogstest.WarehouseMenu().Menu()
	p, err := rules.Provider{}.Select(t.Context(), metricQ, menu)
	if err != nil || p == nil || p.Tool != "query_metric" {
		t.Fatalf("rules provider: %v, %v", p, err)
	}
	return p, menu
}

func TestMetricFaults(t *testing.T) {
	clean, menu := metricClean(t)
	tests := []struct {
		name    string
		rates   noisy.Rates
		changed []string // the parameters that must differ
	}{
		{"wrong_metric", noisy.Rates{WrongMetric: 1}, []string{"metric"}},
		{"wrong_dimension", noisy.Rates{WrongDimension: 1}, []string{"dimensions"}},
		{"wrong_window", noisy.Rates{WrongWindow: 1}, []string{"start", "end"}},
		{"none", noisy.Rates{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newNoisy(t, 3, tt.rates)
			got, err := p.Select(t.Context(), metricQ, menu)
			if err != nil || got == nil {
				t.Fatalf("Select: %v, %v", got, err)
			}
			var diff []string
			for _, k := range []string{"metric", "dimensions", "filters", "start", "end", "grain"} {
				if !reflect.DeepEqual(got.Params[k], clean.Params[k]) {
					diff = append(diff, k)
				}
			}
			if !reflect.DeepEqual(diff, tt.changed) {
				t.Errorf("changed %v, want %v (got %v, clean %v)", diff, tt.changed, got.Params, clean.Params)
			}
		})
	}
}

// The metric faults touch only metric proposals.
func TestMetricFaults_OtherToolsUntouched(t *testing.T) {
	p := newNoisy(t, 1, noisy.MetricUniform(1))
	q := "what is the price of pr-001 at st-001 as of 2026-01-02T00:00:00Z?"
	want := innerSelect(t, q)
	got, err := p.Select(t.Context(), q, catalogstest.Retail().Menu())
	if err != nil || got == nil || got.Tool != want.Tool || !maps.Equal(toStrings(got.Params), toStrings(want.Params)) {
		t.Errorf("Select = %v, want %v", got, want)
	}
}

func toStrings(m map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// Repair re-proposes the clean parse when the noise does not fire again,
// repeats a fault at rate 1, and replays exactly.
func TestRepair(t *testing.T) {
	clean, menu := metricClean(t)
	in := provider.RepairInput{Question: metricQ, Menu: menu, Class: "empty_result", Message: "m", Attempt: 1}

	// At rate 0 nothing fires: Repair is the clean parse.
	got, err := newNoisy(t, 1, noisy.Rates{}).Repair(t.Context(), in)
	if err != nil || got == nil || !reflect.DeepEqual(got.Params, clean.Params) {
		t.Fatalf("Repair at rate 0 = %v, %v; want the clean parse %v", got, err, clean.Params)
	}
	// At rate 1 the window fault repeats.
	got, err = newNoisy(t, 1, noisy.Rates{WrongWindow: 1}).Repair(t.Context(), in)
	if err != nil || got == nil || got.Params["start"] == clean.Params["start"] {
		t.Fatalf("Repair at rate 1 = %v, %v; want the window moved", got, err)
	}
	// At 0.5 over many seeds, some repairs repeat a fault and some do not,
	// and each replays.
	repeated, fixed := 0, 0
	for seed := range uint64(60) {
		p := newNoisy(t, seed, noisy.MetricUniform(0.5))
		a, _ := p.Repair(t.Context(), in)
		b, _ := p.Repair(t.Context(), in)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: Repair does not replay: %v then %v", seed, a, b)
		}
		if reflect.DeepEqual(a.Params, clean.Params) {
			fixed++
		} else {
			repeated++
		}
	}
	if repeated == 0 || fixed == 0 {
		t.Errorf("at 0.5: %d repaired, %d faulty again; want both", fixed, repeated)
	}
	// A proposal Select made no fault on comes back clean on repair, and
	// a repair repeats only faults Select made.
	cleanSeeds := 0
	for seed := range uint64(60) {
		p := newNoisy(t, seed, noisy.MetricUniform(0.5))
		sel, _ := p.Select(t.Context(), metricQ, menu)
		rep, _ := p.Repair(t.Context(), in)
		if reflect.DeepEqual(sel.Params, clean.Params) {
			cleanSeeds++
			if !reflect.DeepEqual(rep.Params, clean.Params) {
				t.Errorf("seed %d: Select made no fault, Repair = %v", seed, rep.Params)
			}
		}
		for _, k := range []string{"metric", "dimensions", "start"} {
			if !reflect.DeepEqual(rep.Params[k], clean.Params[k]) && reflect.DeepEqual(sel.Params[k], clean.Params[k]) {
				t.Errorf("seed %d: Repair changed %s, which Select did not", seed, k)
			}
		}
	}
	if cleanSeeds == 0 {
		t.Error("no seed left the proposal clean at 0.5")
	}
	// Another attempt draws other noise: the key holds the attempt.
	in2 := in
	in2.Attempt = 2
	differ := false
	for seed := range uint64(40) {
		p := newNoisy(t, seed, noisy.MetricUniform(0.5))
		a, _ := p.Repair(t.Context(), in)
		b, _ := p.Repair(t.Context(), in2)
		differ = differ || !reflect.DeepEqual(a, b)
	}
	if !differ {
		t.Error("attempts 1 and 2 drew the same noise for every seed")
	}
}

func TestName_MetricNoise(t *testing.T) {
	tests := []struct {
		rates noisy.Rates
		want  string
	}{
		{noisy.MetricUniform(0.2), "noisy(rules)[metric_rate=0.2,seed=1]"},
		{noisy.Uniform(0.1), "noisy(rules)[rate=0.1,seed=1]"},
		{func() noisy.Rates {
			r := noisy.Uniform(0.1)
			r.WrongMetric, r.WrongDimension, r.WrongWindow = 0.2, 0.2, 0.2
			return r
		}(), "noisy(rules)[rate=0.1,metric_rate=0.2,seed=1]"},
		{noisy.Rates{WrongWindow: 0.3}, "noisy(rules)[wrong_window=0.3,seed=1]"},
	}
	for _, tt := range tests {
		if got := newNoisy(t, 1, tt.rates).Name(); got != tt.want {
			t.Errorf("Name = %q, want %q", got, tt.want)
		}
	}
}
