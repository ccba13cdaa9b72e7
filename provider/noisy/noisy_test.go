package noisy_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/noisy"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/retail/storefile"
	"github.com/provenant/provenant/tool"
)

// templates are the six documented question templates.
var templates = []string{
	"What is the stock state of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
	"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
	"What is the compliance flag of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
	"How many stores have condition OUT_OF_STOCK as of 2026-01-06T08:00:00Z?",
	"Which products are in state LOW_STOCK at st-003 as of 2026-01-06T08:00:00Z?",
	"How many OUT_OF_STOCK events were recorded for st-003 in [2026-01-01T00:00:00Z, 2026-01-07T00:00:00Z)?",
}

func ids(prefix string, n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("%s-%03d", prefix, i))
	}
	return out
}

// valueFor is a plausible value for each tool: twelve of everything, so
// every count has two distinct digits.
func valueFor(toolName string) fact.Value {
	switch toolName {
	case "get_stock_state":
		return fact.Text("LOW_STOCK")
	case "get_price":
		return fact.Integer(1205, "cents")
	case "get_compliance_flag":
		return fact.Text("PRICE_MISMATCH")
	case "count_stores_with_condition":
		return fact.EntityCount("store_ids", ids("st", 12))
	case "list_products_in_state":
		return fact.EntityList("product_ids", ids("pr", 12))
	case "count_events_in_window":
		return fact.RowCount(12)
	}
	panic("no value for " + toolName)
}

// hasValueNumeral reports whether the rules sentence for the tool cites a
// number that is not part of an id or a timestamp.
func hasValueNumeral(toolName string) bool {
	return toolName != "get_stock_state" && toolName != "get_compliance_flag"
}

func newNoisy(t *testing.T, seed uint64, r noisy.Rates) *noisy.Provider {
	t.Helper()
	p, err := noisy.New(rules.Provider{}, noisy.Options{Seed: seed, Rates: r})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func innerSelect(t *testing.T, q string) *tool.Proposal {
	t.Helper()
	p, err := rules.Provider{}.Select(t.Context(), q, catalogstest.Retail().Menu())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func composeInput(q string, p *tool.Proposal) provider.ComposeInput {
	args := map[string]string{}
	for k, v := range p.Params {
		args[k] = fmt.Sprint(v)
	}
	return provider.ComposeInput{Question: q, Tool: p.Tool, Args: args, Value: valueFor(p.Tool)}
}

func demoWall(t *testing.T) *tool.Wall {
	t.Helper()
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	// The ids the demo engine declares: the store file's reference rows,
	// by entity.
	declared := map[string]map[string]bool{}
	for entity, rows := range storefile.References(d) {
		declared[entity] = map[string]bool{}
		for _, r := range rows {
			declared[entity][r.ID] = true
		}
	}
	return tool.NewWall(catalogstest.Retail(), declared)
}

func onMenu(name string) bool {
	_, ok := catalogstest.Retail().Lookup(name)
	return ok
}

// changedParams returns the names of the parameters whose values differ.
func changedParams(a, b map[string]any) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if v, ok := b[k]; !ok || v != a[k] {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func rejectKind(w *tool.Wall, p tool.Proposal) tool.RejectKind {
	_, err := w.Check(p)
	if err == nil {
		return ""
	}
	rej, ok := tool.IsRejection(err)
	if !ok {
		return "not a rejection"
	}
	return rej.Kind
}

func TestSelect_Faults(t *testing.T) {
	wall := demoWall(t)
	tests := []struct {
		name  string
		rates noisy.Rates
		check func(t *testing.T, inner tool.Proposal, got *tool.Proposal)
	}{
		{"wrong_tool", noisy.Rates{WrongTool: 1}, func(t *testing.T, inner tool.Proposal, got *tool.Proposal) {
			if got == nil || got.Tool == inner.Tool || !onMenu(got.Tool) {
				t.Fatalf("got %+v, want another tool on the menu than %s", got, inner.Tool)
			}
			if k := rejectKind(wall, *got); k != "" {
				t.Errorf("wall rejected the wrong tool's params (%s): %+v; want plausible in-domain params", k, got.Params)
			}
		}},
		{"wrong_param", noisy.Rates{WrongParam: 1}, func(t *testing.T, inner tool.Proposal, got *tool.Proposal) {
			if got == nil || got.Tool != inner.Tool {
				t.Fatalf("got %+v, want tool %s", got, inner.Tool)
			}
			if ch := changedParams(inner.Params, got.Params); len(ch) != 1 {
				t.Errorf("changed params %v (%+v -> %+v), want exactly one", ch, inner.Params, got.Params)
			}
			if k := rejectKind(wall, *got); k != "" {
				t.Errorf("wall rejected the wrong param (%s): %+v; want another in-domain value", k, got.Params)
			}
		}},
		{"hallucinated_tool", noisy.Rates{HallucinatedTool: 1}, func(t *testing.T, inner tool.Proposal, got *tool.Proposal) {
			if got == nil || onMenu(got.Tool) || got.Tool == "" {
				t.Fatalf("got %+v, want a tool name not on the menu", got)
			}
			if !maps.Equal(got.Params, inner.Params) {
				t.Errorf("params %+v, want the inner %+v", got.Params, inner.Params)
			}
			if k := rejectKind(wall, *got); k != tool.Unregistered {
				t.Errorf("wall verdict %q, want %q", k, tool.Unregistered)
			}
		}},
		{"raw_query", noisy.Rates{RawQuery: 1}, func(t *testing.T, inner tool.Proposal, got *tool.Proposal) {
			if got == nil || got.Tool != inner.Tool {
				t.Fatalf("got %+v, want tool %s", got, inner.Tool)
			}
			ch := changedParams(inner.Params, got.Params)
			if len(ch) != 1 {
				t.Fatalf("changed params %v, want exactly one", ch)
			}
			if v := got.Params[ch[0]].(string); !strings.HasPrefix(v, inner.Params[ch[0]].(string)) {
				t.Errorf("param %s = %q, want the inner value with query syntax appended", ch[0], v)
			}
			if k := rejectKind(wall, *got); k != tool.RawQuery {
				t.Errorf("wall verdict %q, want %q", k, tool.RawQuery)
			}
		}},
		{"wrong_abstain", noisy.Rates{WrongAbstain: 1}, func(t *testing.T, inner tool.Proposal, got *tool.Proposal) {
			if got != nil {
				t.Errorf("got %+v, want abstention", *got)
			}
		}},
	}
	for _, tt := range tests {
		for _, seed := range []uint64{1, 2, 3} {
			p := newNoisy(t, seed, tt.rates)
			for _, q := range templates {
				t.Run(fmt.Sprintf("%s/seed=%d/%s", tt.name, seed, q), func(t *testing.T) {
					inner := innerSelect(t, q)
					got, err := p.Select(t.Context(), q, catalogstest.Retail().Menu())
					if err != nil {
						t.Fatal(err)
					}
					tt.check(t, *inner, got)
				})
			}
		}
	}
}

// numberRun matches a run of digits with separators, as the tests see a
// number: independent of the package's own extraction.
var numberRun = regexp.MustCompile(`\d(?:[\d.,]*\d)?`)

// diffNumbers splits two sentences into their non-number text and number
// runs, requires the text to be equal, and returns the runs that differ.
func diffNumbers(t *testing.T, before, after string) (olds, news []string, where []int) {
	t.Helper()
	skel := func(s string) string { return numberRun.ReplaceAllString(s, "#") }
	if skel(before) != skel(after) {
		t.Fatalf("text other than numbers changed:\n before %q\n after  %q", before, after)
	}
	b, a := numberRun.FindAllString(before, -1), numberRun.FindAllString(after, -1)
	locs := numberRun.FindAllStringIndex(after, -1)
	for i := range b {
		if b[i] != a[i] {
			olds, news, where = append(olds, b[i]), append(news, a[i]), append(where, locs[i][0])
		}
	}
	return olds, news, where
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	var v float64
	if _, err := fmt.Sscan(strings.ReplaceAll(s, ",", ""), &v); err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return v
}

// isAdjacentTransposition reports whether b is a with two adjacent,
// different digits swapped.
func isAdjacentTransposition(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	var diff []int
	for i := range a {
		if a[i] != b[i] {
			diff = append(diff, i)
		}
	}
	return len(diff) == 2 && diff[1] == diff[0]+1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]
}

func TestCompose_Faults(t *testing.T) {
	tests := []struct {
		name  string
		rates noisy.Rates
		check func(t *testing.T, old, new string)
	}{
		{"fabricated_numeral", noisy.Rates{FabricatedNumeral: 1}, func(t *testing.T, old, new string) {
			ov, nv := parse(t, old), parse(t, new)
			if math.Abs(ov-nv) <= 0.01*math.Max(ov, nv) {
				t.Errorf("fabricated %s -> %s: within 1%%, want a clear fabrication", old, new)
			}
		}},
		{"transposed_numeral", noisy.Rates{TransposedNumeral: 1}, func(t *testing.T, old, new string) {
			if !isAdjacentTransposition(old, new) {
				t.Errorf("%s -> %s is not one adjacent transposition", old, new)
			}
			if strings.HasPrefix(new, "0") && len(new) > 1 && new[1] != '.' {
				t.Errorf("%s -> %s has a leading zero", old, new)
			}
		}},
	}
	for _, tt := range tests {
		for _, seed := range []uint64{1, 2, 3} {
			p := newNoisy(t, seed, tt.rates)
			for _, q := range templates {
				t.Run(fmt.Sprintf("%s/seed=%d/%s", tt.name, seed, q), func(t *testing.T) {
					in := composeInput(q, innerSelect(t, q))
					want, _ := rules.Provider{}.Compose(t.Context(), in)
					got, err := p.Compose(t.Context(), in)
					if err != nil {
						t.Fatal(err)
					}
					olds, news, where := diffNumbers(t, want, got)
					if !hasValueNumeral(in.Tool) {
						if len(olds) != 0 {
							t.Errorf("a sentence with no value numeral changed:\n before %q\n after  %q", want, got)
						}
						return
					}
					if len(olds) != 1 {
						t.Fatalf("numbers changed %v -> %v, want exactly one:\n before %q\n after  %q", olds, news, want, got)
					}
					if i := where[0]; i > 0 && (got[i-1] == '-' || got[i-1] == ':' || got[i-1] == 'T') {
						t.Errorf("changed a number inside an id or timestamp: %q", got)
					}
					tt.check(t, olds[0], news[0])
				})
			}
		}
	}
}

func TestCompose_SingleDigitIsNotTransposed(t *testing.T) {
	p := newNoisy(t, 1, noisy.Rates{TransposedNumeral: 1})
	q := templates[5]
	in := composeInput(q, innerSelect(t, q))
	in.Value = fact.RowCount(7)
	want, _ := rules.Provider{}.Compose(t.Context(), in)
	got, err := p.Compose(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("Compose() = %q, want the inner %q (no number with two distinct digits)", got, want)
	}
}

func TestZeroRates_IdenticalToInner(t *testing.T) {
	p := newNoisy(t, 1, noisy.Rates{})
	questions := append(slices.Clone(templates), "How many employees work at st-003?", "What is the price of banana at st-003 as of yesterday?")
	for _, q := range questions {
		t.Run(q, func(t *testing.T) {
			inner := innerSelect(t, q)
			got, err := p.Select(t.Context(), q, catalogstest.Retail().Menu())
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (inner == nil) || got != nil && (got.Tool != inner.Tool || !maps.Equal(got.Params, inner.Params)) {
				t.Fatalf("Select() = %+v, want the inner %+v", got, inner)
			}
			if inner == nil || !onMenu(inner.Tool) {
				return
			}
			in := composeInput(q, inner)
			want, _ := rules.Provider{}.Compose(t.Context(), in)
			if s, _ := p.Compose(t.Context(), in); s != want {
				t.Errorf("Compose() = %q, want the inner %q", s, want)
			}
		})
	}
}

func TestSelect_InnerAbstentionPassesThrough(t *testing.T) {
	p := newNoisy(t, 1, noisy.Uniform(1))
	got, err := p.Select(t.Context(), "How many employees work at st-003?", catalogstest.Retail().Menu())
	if err != nil || got != nil {
		t.Errorf("Select() = %+v, %v; want abstention", got, err)
	}
}

// failing is a provider that cannot reach its model.
type failing struct{}

func (failing) Name() string { return "failing" }
func (failing) Select(context.Context, string, []tool.Def) (*tool.Proposal, error) {
	return nil, provider.ErrUnavailable
}
func (failing) Compose(context.Context, provider.ComposeInput) (string, error) {
	return "", provider.ErrUnavailable
}

func TestInnerErrorsPassThrough(t *testing.T) {
	p, err := noisy.New(failing{}, noisy.Options{Rates: noisy.Uniform(1)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Select(t.Context(), templates[0], catalogstest.Retail().Menu()); !errors.Is(err, provider.ErrUnavailable) {
		t.Errorf("Select() error = %v, want ErrUnavailable", err)
	}
	if _, err := p.Compose(t.Context(), provider.ComposeInput{Question: templates[1]}); !errors.Is(err, provider.ErrUnavailable) {
		t.Errorf("Compose() error = %v, want ErrUnavailable", err)
	}
}

// outcome renders everything a provider did for one question.
func outcome(t *testing.T, p provider.Provider, q string) string {
	t.Helper()
	got, err := p.Select(t.Context(), q, catalogstest.Retail().Menu())
	if err != nil {
		t.Fatal(err)
	}
	sel := "abstain"
	if got != nil {
		sel = fmt.Sprintf("%s %v", got.Tool, got.Params) // fmt sorts map keys
	}
	s, err := p.Compose(t.Context(), composeInput(q, innerSelect(t, q)))
	if err != nil {
		t.Fatal(err)
	}
	return sel + " | " + s
}

// manyQuestions returns n distinct in-coverage questions, cycling through
// the templates with varying ids and instants.
func manyQuestions(n int) []string {
	var out []string
	for i := range n {
		ts := fmt.Sprintf("2026-01-%02dT%02d:%02d:00Z", 1+i%7, (i/60)%24, i%60)
		st, pr := fmt.Sprintf("st-%03d", 1+i%24), fmt.Sprintf("pr-%03d", 1+i%36)
		var q string
		switch i % 6 {
		case 0:
			q = fmt.Sprintf("What is the stock state of %s at %s as of %s?", pr, st, ts)
		case 1:
			q = fmt.Sprintf("What is the price of %s at %s as of %s?", pr, st, ts)
		case 2:
			q = fmt.Sprintf("What is the compliance flag of %s at %s as of %s?", pr, st, ts)
		case 3:
			q = fmt.Sprintf("How many stores have condition %s as of %s?", retail.Conditions[i%5], ts)
		case 4:
			q = fmt.Sprintf("Which products are in state %s at %s as of %s?", retail.States[i%4], st, ts)
		case 5:
			q = fmt.Sprintf("How many %s events were recorded for %s in [2026-01-01T00:00:00Z, %s)?", retail.States[i%4], st, ts)
		}
		out = append(out, q)
	}
	return out
}

func TestDeterminism(t *testing.T) {
	questions := manyQuestions(60)
	a, b := newNoisy(t, 7, noisy.Uniform(0.5)), newNoisy(t, 7, noisy.Uniform(0.5))
	want := map[string]string{}
	for _, q := range questions {
		want[q] = outcome(t, a, q)
	}

	t.Run("same seed, another instance, reverse order", func(t *testing.T) {
		for _, q := range slices.Backward(questions) {
			if got := outcome(t, b, q); got != want[q] {
				t.Errorf("%s:\n got  %s\n want %s", q, got, want[q])
			}
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		got := make([]string, len(questions))
		for i, q := range questions {
			wg.Go(func() {
				s, err := a.Select(context.Background(), q, catalogstest.Retail().Menu())
				if err != nil {
					return
				}
				sel := "abstain"
				if s != nil {
					sel = fmt.Sprintf("%s %v", s.Tool, s.Params)
				}
				inner, _ := rules.Provider{}.Select(context.Background(), q, catalogstest.Retail().Menu())
				c, _ := a.Compose(context.Background(), composeInput(q, inner))
				got[i] = sel + " | " + c
			})
		}
		wg.Wait()
		for i, q := range questions {
			if got[i] != want[q] {
				t.Errorf("%s:\n got  %s\n want %s", q, got[i], want[q])
			}
		}
	})

	t.Run("another seed differs", func(t *testing.T) {
		c := newNoisy(t, 8, noisy.Uniform(0.5))
		differ := 0
		for _, q := range questions {
			if outcome(t, c, q) != want[q] {
				differ++
			}
		}
		if differ == 0 {
			t.Error("seeds 7 and 8 gave identical noise on every question")
		}
	})
}

// TestStreamsAreIndependent: raising one rate does not move another
// fault's decisions.
func TestStreamsAreIndependent(t *testing.T) {
	abstains := func(r noisy.Rates) []bool {
		p := newNoisy(t, 3, r)
		var out []bool
		for _, q := range manyQuestions(300) {
			got, err := p.Select(t.Context(), q, catalogstest.Retail().Menu())
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, got == nil)
		}
		return out
	}
	base := abstains(noisy.Rates{WrongAbstain: 0.3})
	more := abstains(noisy.Rates{WrongAbstain: 0.3, WrongTool: 0.9, WrongParam: 0.4, RawQuery: 0.2, HallucinatedTool: 0.6})
	if !slices.Equal(base, more) {
		t.Error("changing other rates changed which questions abstain")
	}
}

// TestRates: at rate 0.2 each fault happens on roughly 20% of 1000
// distinct questions. The seed is fixed, so the test is deterministic;
// the bounds (+-5 points, about four standard deviations of a binomial
// with n=1000, p=0.2) only say the sampler is not biased.
func TestRates(t *testing.T) {
	const n, rate = 1000, 0.2
	questions := manyQuestions(n)
	isFault := map[string]func(q string, inner, got *tool.Proposal, innerS, gotS string) bool{
		"wrong_tool":         func(_ string, in, got *tool.Proposal, _, _ string) bool { return got != nil && got.Tool != in.Tool },
		"wrong_param":        func(_ string, in, got *tool.Proposal, _, _ string) bool { return !maps.Equal(in.Params, got.Params) },
		"hallucinated_tool":  func(_ string, _, got *tool.Proposal, _, _ string) bool { return !onMenu(got.Tool) },
		"raw_query":          func(_ string, in, got *tool.Proposal, _, _ string) bool { return !maps.Equal(in.Params, got.Params) },
		"wrong_abstain":      func(_ string, _, got *tool.Proposal, _, _ string) bool { return got == nil },
		"fabricated_numeral": func(_ string, _, _ *tool.Proposal, a, b string) bool { return a != b },
		"transposed_numeral": func(_ string, _, _ *tool.Proposal, a, b string) bool { return a != b },
	}
	rates := map[string]noisy.Rates{
		"wrong_tool":         {WrongTool: rate},
		"wrong_param":        {WrongParam: rate},
		"hallucinated_tool":  {HallucinatedTool: rate},
		"raw_query":          {RawQuery: rate},
		"wrong_abstain":      {WrongAbstain: rate},
		"fabricated_numeral": {FabricatedNumeral: rate},
		"transposed_numeral": {TransposedNumeral: rate},
	}
	for _, name := range slices.Sorted(maps.Keys(rates)) {
		t.Run(name, func(t *testing.T) {
			p := newNoisy(t, 1, rates[name])
			faults := 0
			for _, q := range questions {
				inner := innerSelect(t, q)
				got, err := p.Select(t.Context(), q, catalogstest.Retail().Menu())
				if err != nil {
					t.Fatal(err)
				}
				in := composeInput(q, inner)
				// Compose faults need a value numeral that can change
				// clearly: give every question a price or a count of 1234
				// (the question is the key, so the draws still differ).
				if in.Tool == "get_price" {
					in.Value = fact.Integer(1234, "cents")
				} else {
					in.Tool, in.Value = "count_events_in_window", fact.RowCount(1234)
				}
				innerS, _ := rules.Provider{}.Compose(t.Context(), in)
				gotS, err := p.Compose(t.Context(), in)
				if err != nil {
					t.Fatal(err)
				}
				if isFault[name](q, inner, got, innerS, gotS) {
					faults++
				}
			}
			if lo, hi := int((rate-0.05)*n), int((rate+0.05)*n); faults < lo || faults > hi {
				t.Errorf("%d faults in %d questions, want %d to %d", faults, n, lo, hi)
			}
			t.Logf("%d/%d", faults, n)
		})
	}

	t.Run("uniform", func(t *testing.T) {
		p := newNoisy(t, 1, noisy.Uniform(rate))
		abstained := 0
		for _, q := range questions {
			if got, _ := p.Select(t.Context(), q, catalogstest.Retail().Menu()); got == nil {
				abstained++
			}
		}
		if abstained < 150 || abstained > 250 {
			t.Errorf("%d wrong abstentions at Uniform(0.2), want 150 to 250", abstained)
		}
	})
}

func TestNew_Validation(t *testing.T) {
	bad := []float64{-0.1, 1.1, math.NaN(), math.Inf(1)}
	fields := []struct {
		name string
		set  func(*noisy.Rates, float64)
	}{
		{"WrongTool", func(r *noisy.Rates, v float64) { r.WrongTool = v }},
		{"WrongParam", func(r *noisy.Rates, v float64) { r.WrongParam = v }},
		{"HallucinatedTool", func(r *noisy.Rates, v float64) { r.HallucinatedTool = v }},
		{"RawQuery", func(r *noisy.Rates, v float64) { r.RawQuery = v }},
		{"WrongAbstain", func(r *noisy.Rates, v float64) { r.WrongAbstain = v }},
		{"FabricatedNumeral", func(r *noisy.Rates, v float64) { r.FabricatedNumeral = v }},
		{"TransposedNumeral", func(r *noisy.Rates, v float64) { r.TransposedNumeral = v }},
	}
	for _, f := range fields {
		for _, v := range bad {
			t.Run(fmt.Sprintf("%s=%v", f.name, v), func(t *testing.T) {
				r := noisy.Uniform(0.5)
				f.set(&r, v)
				_, err := noisy.New(rules.Provider{}, noisy.Options{Rates: r})
				if !errors.Is(err, noisy.ErrRate) {
					t.Fatalf("New() error = %v, want ErrRate", err)
				}
				msg := err.Error()
				if !strings.Contains(msg, f.name) {
					t.Errorf("error %q does not name the field %s", msg, f.name)
				}
				if s := fmt.Sprint(v); strings.Contains(msg, s) {
					t.Errorf("error %q echoes the value %s", msg, s)
				}
			})
		}
		for _, v := range []float64{0, 1} {
			r := noisy.Rates{}
			f.set(&r, v)
			if _, err := noisy.New(rules.Provider{}, noisy.Options{Rates: r}); err != nil {
				t.Errorf("New(%s=%v) error = %v, want nil", f.name, v, err)
			}
		}
	}
	if _, err := noisy.New(nil, noisy.Options{}); !errors.Is(err, noisy.ErrNoInner) {
		t.Errorf("New(nil) error = %v, want ErrNoInner", err)
	}
}

func TestName(t *testing.T) {
	tests := []struct {
		opts noisy.Options
		want string
	}{
		{noisy.Options{Seed: 1, Rates: noisy.Uniform(0.2)}, "noisy(rules)[rate=0.2,seed=1]"},
		{noisy.Options{Seed: 1}, "noisy(rules)[rate=0,seed=1]"},
		{noisy.Options{Seed: 42, Rates: noisy.Rates{WrongTool: 0.1, RawQuery: 0.05}}, "noisy(rules)[wrong_tool=0.1,raw_query=0.05,seed=42]"},
	}
	for _, tt := range tests {
		if got := newNoisy(t, tt.opts.Seed, tt.opts.Rates).Name(); got != tt.want {
			t.Errorf("Name() = %q, want %q", got, tt.want)
		}
	}
}
