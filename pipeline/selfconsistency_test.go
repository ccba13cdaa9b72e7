package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/engine/enginetest"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/noisy"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail/storetest"
	"github.com/provenant/provenant/tool"
	"pgregory.net/rapid"
)

// sampler proposes, for sample index i (provider.SampleFrom; none means
// 0), proposals[i], and composes the code-rendered sentence. It records the
// indexes it was asked for.
type sampler struct {
	proposals []*tool.Proposal
	errs      map[int]error

	mu    sync.Mutex
	asked []int
}

func (s *sampler) Name() string { return "sampler" }

func (s *sampler) Select(ctx context.Context, _ string, _ []tool.Def) (*tool.Proposal, error) {
	i, _ := provider.SampleFrom(ctx)
	s.mu.Lock()
	s.asked = append(s.asked, i)
	s.mu.Unlock()
	if err := s.errs[i]; err != nil {
		return nil, err
	}
	return s.proposals[i], nil
}

func (s *sampler) Compose(_ context.Context, in provider.ComposeInput) (string, error) {
	return tool.Sentence(in.Def, in.Args, in.Value), nil
}

func countAt(asOf string) *tool.Proposal {
	return &tool.Proposal{Tool: "count_stores_with_condition", Params: map[string]any{"condition": "OUT_OF_STOCK", "as_of": asOf}}
}

// Over the storetest fixture: A counts st-001 and st-002; B and B2 (a
// different call) both count st-001 alone; C is a grounded zero; R is
// rejected by the wall (raw query).
var (
	scA  = countAt("2026-01-01T10:00:00Z")
	scB  = countAt("2026-01-03T00:00:00Z")
	scB2 = countAt("2026-01-01T09:00:00Z")
	scC  = countAt("2026-01-01T08:00:00Z")
	scR  = &tool.Proposal{Tool: "count_stores_with_condition", Params: map[string]any{"condition": "OUT_OF_STOCK' OR '1'='1", "as_of": "2026-01-01T10:00:00Z"}}
)

// scFixture holds what every self-consistency test shares: the fixture's
// wall, executor and resolver.
type scFixture struct {
	wall *tool.Wall
	exec pipeline.Executor
	res  pipeline.Resolver
}

func newSCFixture(t testing.TB, ctx context.Context) scFixture {
	t.Helper()
	wall, exec, res := enginetest.Parts(t, storetest.Fixture())
	return scFixture{wall: wall, exec: exec, res: res}
}

func (f scFixture) pipeline(p provider.Provider, sc *pipeline.SelfConsistency, logs *bytes.Buffer, obs pipeline.Observer) *pipeline.Pipeline {
	var h slog.Handler = slog.DiscardHandler
	if logs != nil {
		h = slog.NewJSONHandler(logs, nil)
	}
	return pipeline.New(p, f.wall, f.exec, f.res, &pipeline.Options{Logger: slog.New(h), Observer: obs, SelfConsistency: sc})
}

// executed returns the value the wall and the executor give a proposal,
// or false when either refuses.
func (f scFixture) executed(ctx context.Context, prop *tool.Proposal) (fact.Value, bool) {
	if prop == nil {
		return fact.Value{}, false
	}
	call, err := f.wall.CheckScoped(*prop, tool.AllStores())
	if err != nil {
		return fact.Value{}, false
	}
	r, err := f.exec.Execute(ctx, call)
	if err != nil {
		return fact.Value{}, false
	}
	return r.Value, true
}

func TestSelfConsistency_Vote(t *testing.T) {
	tests := []struct {
		name      string
		proposals []*tool.Proposal
		errs      map[int]error
		plurality bool
		outcome   answer.Outcome
		kind      answer.ReasonKind
		want      *tool.Proposal // the call whose value must be stapled
		clusters  []int
		agreement float64
	}{
		{"strict majority wins", []*tool.Proposal{scA, scA, scB, scA, scB}, nil, false,
			answer.Answered, "", scA, []int{3, 2}, 0.6},
		{"a later majority beats the first proposal", []*tool.Proposal{scB, scA, scA, scC, scA}, nil, false,
			answer.Answered, "", scA, []int{3, 1, 1}, 0.6},
		{"different calls with equal values agree", []*tool.Proposal{scB, scA, scB2, scB2, scC}, nil, false,
			answer.Answered, "", scB, []int{3, 1, 1}, 0.6},
		{"a majority of grounded zeros is an absence", []*tool.Proposal{scC, scC, scC, scA, scB}, nil, false,
			answer.Absence, "", scC, []int{3, 1, 1}, 0.6},
		{"a rejected first sample is a vote for nothing", []*tool.Proposal{scR, scA, scA, scA, scB}, nil, false,
			answer.Answered, "", scA, []int{3, 1}, 0.6},
		{"two of five is no majority", []*tool.Proposal{scA, scB, scB, scC, scR}, nil, false,
			answer.Abstained, "no_majority", nil, []int{2, 1, 1}, 0.4},
		{"rejections and abstentions do not help a plurality pass", []*tool.Proposal{scA, scA, scR, nil, scR}, nil, false,
			answer.Abstained, "no_majority", nil, []int{2}, 0.4},
		{"select errors are votes for nothing", []*tool.Proposal{scA, scA, scA, scB, scB},
			map[int]error{1: provider.ErrUnavailable, 2: provider.ErrUnavailable}, false,
			answer.Abstained, "no_majority", nil, []int{1, 2}, 0.4},
		{"plurality takes the largest cluster", []*tool.Proposal{scA, scB, scB, scC, scR}, nil, true,
			answer.Answered, "", scB, []int{2, 1, 1}, 0.4},
		{"plurality abstains on a tie", []*tool.Proposal{scA, scA, scB, scB, scC}, nil, true,
			answer.Abstained, "no_majority", nil, []int{2, 2, 1}, 0.4},
		{"nothing executed", []*tool.Proposal{scR, scR, nil, scR, nil}, nil, true,
			answer.Abstained, "no_majority", nil, nil, 0},
	}
	f := newSCFixture(t, t.Context())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Clusters are reported largest first.
			slices.SortFunc(tt.clusters, func(a, b int) int { return b - a })
			var logs bytes.Buffer
			rec := &recorder{}
			s := &sampler{proposals: tt.proposals, errs: tt.errs}
			p := f.pipeline(s, &pipeline.SelfConsistency{AllowPlurality: tt.plurality}, &logs, rec)
			a := p.Ask(t.Context(), "How many stores are out of stock?")
			if a.Outcome() != tt.outcome || a.Reason().Kind != tt.kind {
				t.Fatalf("Ask() = %s %q, want %s %q...", a.Outcome(), a.Reason(), tt.outcome, tt.kind)
			}
			if got := s.asked; !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
				t.Errorf("samples asked %v, want 0..4", got)
			}
			v, ok := a.Value()
			if tt.want != nil {
				want, _ := f.executed(t.Context(), tt.want)
				if !ok || !v.Equal(want) {
					t.Errorf("Value() = %+v, want %+v", v, want)
				}
				if args := a.Args(); args["as_of"] != tt.want.Params["as_of"] {
					t.Errorf("Args() = %v, want the first winning sample's call %v", args, tt.want.Params)
				}
			} else if ok {
				t.Errorf("abstention carries a value %+v", v)
			}
			r := rec.recs[0]
			if r.SCSamples != 5 || !slices.Equal(r.SCClusters, tt.clusters) || r.SCAgreement != tt.agreement {
				t.Errorf("record sc = (%d, %v, %v), want (5, %v, %v)", r.SCSamples, r.SCClusters, r.SCAgreement, tt.clusters, tt.agreement)
			}
			var line map[string]any
			if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			if line[pipeline.KeySCSamples] != 5.0 || line[pipeline.KeySCAgreement] != tt.agreement {
				t.Errorf("log line: %v", line)
			}
			if got := fmt.Sprint(line[pipeline.KeySCClusters]); tt.clusters != nil && got != fmt.Sprint(tt.clusters) {
				t.Errorf("log %s = %s, want %v", pipeline.KeySCClusters, got, tt.clusters)
			}
			if strings.Contains(logs.String(), "'1'='1") {
				t.Errorf("rejected value logged: %s", logs.String())
			}
		})
	}
}

// TestSelfConsistency_AskedOnce: a question whose first proposal is not of
// a hard class, an abstention, and one sample are not voted on.
func TestSelfConsistency_AskedOnce(t *testing.T) {
	f := newSCFixture(t, t.Context())
	tests := []struct {
		name    string
		first   *tool.Proposal
		sc      *pipeline.SelfConsistency
		outcome answer.Outcome
	}{
		{"scalar tool", stateCall, &pipeline.SelfConsistency{}, answer.Answered},
		{"abstention", nil, &pipeline.SelfConsistency{}, answer.Abstained},
		{"hallucinated tool", &tool.Proposal{Tool: "count_stores", Params: map[string]any{}}, &pipeline.SelfConsistency{}, answer.Rejected},
		{"one sample", scA, &pipeline.SelfConsistency{Samples: 1}, answer.Answered},
		{"no hard classes", scA, &pipeline.SelfConsistency{Hard: map[string]bool{}}, answer.Answered},
		{"off", scA, nil, answer.Answered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			s := &sampler{proposals: []*tool.Proposal{tt.first, scB, scB, scB, scB}}
			a := f.pipeline(s, tt.sc, nil, rec).Ask(t.Context(), "q")
			if a.Outcome() != tt.outcome {
				t.Errorf("Ask() = %s %q, want %s", a.Outcome(), a.Reason(), tt.outcome)
			}
			if len(s.asked) != 1 || rec.recs[0].SCSamples != 0 {
				t.Errorf("asked %v, sc_samples %d: want one unvoted proposal", s.asked, rec.recs[0].SCSamples)
			}
		})
	}
	// A custom hard set votes on the classes it names.
	s := &sampler{proposals: []*tool.Proposal{stateCall, stateCall, stateCall}}
	rec := &recorder{}
	f.pipeline(s, &pipeline.SelfConsistency{Samples: 3, Hard: map[string]bool{"get_stock_state": true}}, nil, rec).Ask(t.Context(), "q")
	if len(s.asked) != 3 || rec.recs[0].SCAgreement != 1 {
		t.Errorf("custom hard set: asked %v, record %+v", s.asked, rec.recs[0])
	}
}

func TestSelfConsistency_Validate(t *testing.T) {
	for n := -1; n <= pipeline.MaxSamples+2; n++ {
		err := pipeline.SelfConsistency{Samples: n}.Validate()
		valid := n == 0 || n >= 1 && n <= pipeline.MaxSamples && n%2 == 1
		if (err == nil) != valid {
			t.Errorf("Validate(Samples: %d) = %v, want valid %t", n, err, valid)
		}
		if err != nil && !errors.Is(err, pipeline.ErrSamples) {
			t.Errorf("Validate(Samples: %d) = %v, want ErrSamples", n, err)
		}
	}
	f := newSCFixture(t, t.Context())
	for _, n := range []int{2, 13, -3} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(Samples: %d) did not panic", n)
				}
			}()
			f.pipeline(&sampler{}, &pipeline.SelfConsistency{Samples: n}, nil, nil)
		}()
	}
}

// TestSelfConsistency_Property: whatever the samples propose, the answer
// is a sample's executed value or an abstention; under strict voting it
// is the strict majority's value exactly when one exists.
func TestSelfConsistency_Property(t *testing.T) {
	ctx := context.Background()
	f := newSCFixture(t, ctx)
	pool := []*tool.Proposal{
		scA, scB, scB2, scC, scR, nil,
		countAt("2026-01-02T12:00:00Z"),
		{Tool: "list_products_in_state", Params: map[string]any{"store_id": "st-001", "state": "OUT_OF_STOCK", "as_of": "2026-01-03T00:00:00Z"}},
		{Tool: "count_events_in_window", Params: map[string]any{"store_id": "st-001", "state": "OUT_OF_STOCK", "start": "2026-01-01T00:00:00Z", "end": "2026-01-02T00:00:00Z"}},
		{Tool: "count_events_in_window", Params: map[string]any{"store_id": "st-009", "state": "OUT_OF_STOCK", "start": "2026-01-01T00:00:00Z", "end": "2026-01-02T00:00:00Z"}},
		stateCall,
	}
	hard := []*tool.Proposal{scA, scB, scC, scR, pool[7], pool[8]}
	rapid.Check(t, func(rt *rapid.T) {
		n := 2*rapid.IntRange(1, pipeline.MaxSamples/2).Draw(rt, "half") + 1
		plurality := rapid.Bool().Draw(rt, "plurality")
		props := []*tool.Proposal{rapid.SampledFrom(hard).Draw(rt, "first")}
		for i := 1; i < n; i++ {
			props = append(props, rapid.SampledFrom(pool).Draw(rt, fmt.Sprintf("sample%d", i)))
		}
		var values []fact.Value
		for _, prop := range props {
			if v, ok := f.executed(ctx, prop); ok {
				values = append(values, v)
			}
		}
		// The test's own tally: the largest count of equal values.
		best, bestCount := fact.Value{}, 0
		for _, v := range values {
			c := 0
			for _, w := range values {
				if v.Equal(w) {
					c++
				}
			}
			if c > bestCount {
				best, bestCount = v, c
			}
		}

		rec := &recorder{}
		a := f.pipeline(&sampler{proposals: props}, &pipeline.SelfConsistency{Samples: n, AllowPlurality: plurality}, nil, rec).Ask(ctx, "q")
		switch a.Outcome() {
		case answer.Answered, answer.Absence:
			v, _ := a.Value()
			if !slices.ContainsFunc(values, v.Equal) {
				rt.Fatalf("answer %+v is no sample's executed value %+v", v, values)
			}
			if !plurality && !v.Equal(best) {
				rt.Fatalf("answer %+v, strict majority %+v", v, best)
			}
		case answer.Abstained:
			if a.Reason().Kind != answer.ReasonNoMajority {
				rt.Fatalf("abstained %q", a.Reason())
			}
		default:
			rt.Fatalf("outcome %s %q", a.Outcome(), a.Reason())
		}
		if majority := 2*bestCount > n; !plurality && majority != (a.Outcome() != answer.Abstained) {
			rt.Fatalf("strict majority %t (%d of %d), outcome %s", majority, bestCount, n, a.Outcome())
		}
		if r := rec.recs[0]; r.SCSamples != n || r.SCAgreement != float64(bestCount)/float64(n) {
			rt.Fatalf("record sc = (%d, %v), want (%d, %d/%d)", r.SCSamples, r.SCAgreement, n, bestCount, n)
		}
	})
}

// TestSelfConsistency_NoisySamples: the noisy instrument draws independent
// noise per sample index, the same noise for the same index, and for
// sample 0 the noise of a call with no index; a voted run replays exactly.
func TestSelfConsistency_NoisySamples(t *testing.T) {
	ctx := t.Context()
	nz, err := noisy.New(rules.Provider{}, noisy.Options{Seed: 7, Rates: noisy.Uniform(0.3)})
	if err != nil {
		t.Fatal(err)
	}
	questions := []string{
		"How many stores have condition OUT_OF_STOCK as of 2026-01-01T10:00:00Z?",
		"Which products are in state OUT_OF_STOCK at st-001 as of 2026-01-03T00:00:00Z?",
		"How many OUT_OF_STOCK events were recorded for st-001 in [2026-01-01T00:00:00Z, 2026-01-02T00:00:00Z)?",
	}
	sel := func(ctx context.Context, q string) string {
		p, err := nz.Select(ctx, q, catalogstest.Retail().Menu())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(p)
		return string(b)
	}
	differ := false
	for _, q := range questions {
		if sel(ctx, q) != sel(provider.WithSample(ctx, 0), q) {
			t.Errorf("%q: sample 0 differs from an unsampled call", q)
		}
		for i := 1; i <= 10; i++ {
			a, b := sel(provider.WithSample(ctx, i), q), sel(provider.WithSample(ctx, i), q)
			if a != b {
				t.Errorf("%q sample %d does not replay: %s / %s", q, i, a, b)
			}
			differ = differ || a != sel(ctx, q)
		}
	}
	if !differ {
		t.Error("no sample drew noise different from sample 0's")
	}

	f := newSCFixture(t, ctx)
	voted := 0
	run := func() []string {
		var out []string
		for _, q := range questions {
			rec := &recorder{}
			a := f.pipeline(nz, &pipeline.SelfConsistency{Samples: 7}, nil, rec).Ask(ctx, q)
			v, _ := a.Value()
			if rec.recs[0].SCSamples == 7 {
				voted++
			}
			out = append(out, fmt.Sprintf("%s %q %+v %v", a.Outcome(), a.Reason(), v, rec.recs[0].SCClusters))
		}
		return out
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Errorf("voted runs differ:\n%v\n%v", a, b)
	}
	if voted == 0 {
		t.Errorf("no question was voted on: %v", a)
	}
	t.Log(a)
}
