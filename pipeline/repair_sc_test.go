package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/tool"
)

// scScript is a fake provider for self-consistency with repair: sample i
// proposes scripts[i][0] and, on its k-th repair, scripts[i][k] (nil when
// the script has run out: it abstains from repairing). Every turn reports
// turnTokens tokens of model "fake" to the request's meter. It records
// every turn with the sample index its context carried.
type scScript struct {
	scripts [][]*tool.Proposal

	mu      sync.Mutex
	selects []int
	repairs []scTurn
}

type scTurn struct {
	sample, attempt int
	class           string
}

const turnTokens = 10

func (s *scScript) Name() string { return "sc-script" }

func (s *scScript) Select(ctx context.Context, _ string, _ []tool.Def) (*tool.Proposal, error) {
	i, _ := provider.SampleFrom(ctx)
	s.mu.Lock()
	s.selects = append(s.selects, i)
	s.mu.Unlock()
	provider.Report(ctx, provider.Usage{Model: "fake", Input: turnTokens, Output: 0})
	if i >= len(s.scripts) || len(s.scripts[i]) == 0 {
		return nil, nil
	}
	return s.scripts[i][0], nil
}

func (s *scScript) Compose(context.Context, provider.ComposeInput) (string, error) {
	return "Here is the metric.", nil
}

func (s *scScript) Repair(ctx context.Context, in provider.RepairInput) (*tool.Proposal, error) {
	i, ok := provider.SampleFrom(ctx)
	if !ok {
		i = -1
	}
	s.mu.Lock()
	s.repairs = append(s.repairs, scTurn{sample: i, attempt: in.Attempt, class: in.Class})
	s.mu.Unlock()
	provider.Report(ctx, provider.Usage{Model: "fake", Input: turnTokens, Output: 0})
	if i < 0 || i >= len(s.scripts) || in.Attempt >= len(s.scripts[i]) {
		return nil, nil
	}
	return s.scripts[i][in.Attempt], nil
}

// turns counts the proposal turns (Select and Repair), compositions
// aside.
func (s *scScript) turns() int { return len(s.selects) + len(s.repairs) }

func scPipeline(t testing.TB, p provider.Provider, samples, retries int, o *pipeline.Options) (*pipeline.Pipeline, *recorder) {
	t.Helper()
	rec := &recorder{}
	var opts pipeline.Options
	if o != nil {
		opts = *o
	}
	opts.Observer, opts.ResultIDs = rec, &ledger.Sequence{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.SelfConsistency = &pipeline.SelfConsistency{Samples: samples}
	if retries > 0 {
		opts.Repair = &pipeline.Repair{Retries: retries, Metrics: metricFacts{}}
	}
	reg, err := tool.NewRegistry(repairRegistry(t.(*testing.T)).Menu(), "store")
	if err != nil {
		t.Fatal(err)
	}
	return pipeline.New(p, tool.NewWall(reg, nil), metricExec{}, okResolver{}, &opts), rec
}

func at(class answer.ReasonKind, sample int) answer.Attempt {
	return answer.Attempt{Class: class, Sample: &sample}
}

func props(ps ...tool.Proposal) []*tool.Proposal {
	out := make([]*tool.Proposal, len(ps))
	for i := range ps {
		out[i] = &ps[i]
	}
	return out
}

// TestRepair_SelfConsistency: under a vote each sample that fails
// verification is repaired on its own, under its own sample index and
// within the loop's bound; the vote is over the repaired outcomes; every
// attempt is on the answer and the record with its sample.
func TestRepair_SelfConsistency(t *testing.T) {
	good, count := prop("share", winGood), prop("count", winGood)
	tests := []struct {
		name        string
		scripts     [][]*tool.Proposal
		retries     int
		wantOutcome answer.Outcome
		wantReason  answer.ReasonKind
		wantValue   float64 // when answered
		wantSpecial bool
		wantClasses []answer.Attempt
		wantRepairs []scTurn
		wantCluster []int
	}{
		{"every sample good: no attempt", [][]*tool.Proposal{props(good), props(good), props(good)}, 2,
			answer.Answered, "", 0.4, false, nil, nil, []int{3}},
		{"one sample empty_result, repaired", [][]*tool.Proposal{props(good), props(prop("share", winEmpty), good), props(good)}, 2,
			answer.Answered, "", 0.4, false, []answer.Attempt{at(answer.ReasonEmptyResult, 1)},
			[]scTurn{{1, 1, "empty_result"}}, []int{3}},
		{"every class once, each repaired", [][]*tool.Proposal{
			props(prop("bogus", winGood), good),       // schema_violation
			props(prop("share", winTooBig), good),     // implausible_magnitude (domain)
			props(prop("share", winBoom), good),       // sql_error
			props(prop("share", winDenied), good),     // permission_denied
			props(prop("share", winBudget), good)}, 2, // budget_exceeded
			answer.Answered, "", 0.4, false,
			[]answer.Attempt{at(answer.ReasonSchemaViolation, 0), at(answer.ReasonImplausibleMagnitude, 1), at(answer.ReasonSQLError, 2),
				at(answer.ReasonPermissionDenied, 3), at(answer.ReasonBudgetExceeded, 4)},
			[]scTurn{{0, 1, "schema_violation"}, {1, 1, "implausible_magnitude"}, {2, 1, "sql_error"}, {3, 1, "permission_denied"}, {4, 1, "budget_exceeded"}},
			[]int{5}},
		{"two retries for one sample", [][]*tool.Proposal{props(prop("share", winEmpty), prop("share", winTooBig), good), props(good), props(count)}, 2,
			answer.Answered, "", 0.4, false, []answer.Attempt{at(answer.ReasonEmptyResult, 0), at(answer.ReasonImplausibleMagnitude, 0)},
			[]scTurn{{0, 1, "empty_result"}, {0, 2, "implausible_magnitude"}}, []int{2, 1}},
		{"repairs turn a minority into a majority", [][]*tool.Proposal{props(count), props(prop("share", winBoom), good), props(prop("bogus", winGood), good)}, 1,
			answer.Answered, "", 0.4, false, []answer.Attempt{at(answer.ReasonSQLError, 1), at(answer.ReasonSchemaViolation, 2)},
			[]scTurn{{1, 1, "sql_error"}, {2, 1, "schema_violation"}}, []int{2, 1}},
		{"exhausted samples vote for nothing", [][]*tool.Proposal{props(prop("share", winTooBig), prop("share", winTooBig)), props(prop("share", winDenied), prop("count", winDenied)), props(good)}, 1,
			answer.Abstained, answer.ReasonNoMajority, 0, false, []answer.Attempt{at(answer.ReasonImplausibleMagnitude, 0), at(answer.ReasonPermissionDenied, 1)},
			[]scTurn{{0, 1, "implausible_magnitude"}, {1, 1, "permission_denied"}}, []int{1}},
		{"an empty table the loop gave up on is a ballot", [][]*tool.Proposal{props(prop("share", winEmpty), prop("count", winEmpty)), props(prop("count", winEmpty)), props(good)}, 1,
			answer.Answered, "", -1, false, []answer.Attempt{at(answer.ReasonEmptyResult, 0), at(answer.ReasonEmptyResult, 1)},
			[]scTurn{{0, 1, "empty_result"}, {1, 1, "empty_result"}}, []int{2, 1}},
		{"out of band unchanged is a special cause", [][]*tool.Proposal{props(prop("count", winSpecial), prop("count", winSpecial2)), props(prop("count", winSpecial2), prop("count", winSpecial)), props(good)}, 3,
			answer.Answered, "", 1000, true, []answer.Attempt{at(answer.ReasonImplausibleMagnitude, 0), at(answer.ReasonImplausibleMagnitude, 1)},
			[]scTurn{{0, 1, "implausible_magnitude"}, {1, 1, "implausible_magnitude"}}, []int{2, 1}},
		{"loop off: no repair", [][]*tool.Proposal{props(good), props(prop("share", winEmpty), good), props(prop("bogus", winGood), good)}, 0,
			answer.Abstained, answer.ReasonNoMajority, 0, false, nil, nil, []int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov := &scScript{scripts: tt.scripts}
			n := len(tt.scripts)
			p, rec := scPipeline(t, prov, n, tt.retries, nil)
			a := p.Ask(t.Context(), "what is the metric?")
			if a.Outcome() != tt.wantOutcome || a.Reason().Kind != tt.wantReason {
				t.Fatalf("answer = %s %q, want %s %q", a.Outcome(), a.Reason(), tt.wantOutcome, tt.wantReason)
			}
			if tt.wantOutcome == answer.Answered {
				v, _ := a.Value()
				switch {
				case tt.wantValue < 0 && len(v.Table.Rows) != 0:
					t.Errorf("rows %v, want the empty table", v.Table.Rows)
				case tt.wantValue >= 0 && (len(v.Table.Rows) != 1 || v.Table.Rows[0][0].Num != tt.wantValue):
					t.Errorf("rows %v, want %v", v.Table.Rows, tt.wantValue)
				}
			}
			if got := a.SpecialCause() != ""; got != tt.wantSpecial {
				t.Errorf("special cause %q, want %t", a.SpecialCause(), tt.wantSpecial)
			}
			if got := a.Attempts(); !equalAttempts(got, tt.wantClasses) {
				t.Errorf("attempts = %s, want %s", attemptsJSON(got), attemptsJSON(tt.wantClasses))
			}
			if !slices.Equal(prov.repairs, tt.wantRepairs) {
				t.Errorf("repair turns = %v, want %v", prov.repairs, tt.wantRepairs)
			}
			if got, bound := prov.turns(), n*(1+tt.retries); got > bound {
				t.Errorf("%d proposal turns over the bound %d", got, bound)
			}
			r := rec.recs[0]
			if !slices.Equal(r.SCClusters, tt.wantCluster) {
				t.Errorf("clusters %v, want %v", r.SCClusters, tt.wantCluster)
			}
			var classes []string
			var samples []int
			for _, w := range tt.wantClasses {
				classes, samples = append(classes, string(w.Class)), append(samples, *w.Sample)
			}
			if !slices.Equal(r.RepairAttempts, classes) || !slices.Equal(r.RepairSamples, samples) {
				t.Errorf("record's attempts %v samples %v, want %v %v", r.RepairAttempts, r.RepairSamples, classes, samples)
			}
		})
	}
}

func equalAttempts(a, b []answer.Attempt) bool {
	return slices.EqualFunc(a, b, func(x, y answer.Attempt) bool {
		return x.Class == y.Class && (x.Sample == nil) == (y.Sample == nil) && (x.Sample == nil || *x.Sample == *y.Sample)
	})
}

func attemptsJSON(a []answer.Attempt) string {
	b, _ := json.Marshal(a)
	return string(b)
}

// TestRepair_SelfConsistencyBudget: each repair turn is charged to the
// question's budget: its tool call reserves a tool call, and its model
// tokens are charged with the next reservation (or at the end). A
// question budget too small for the repairs abstains budget_exhausted.
func TestRepair_SelfConsistencyBudget(t *testing.T) {
	scripts := [][]*tool.Proposal{props(prop("share", winEmpty), prop("share", winGood)), props(prop("bogus", winGood), prop("share", winGood)), props(prop("share", winGood))}
	tests := []struct {
		name      string
		calls     int64
		want      answer.Outcome
		wantKind  answer.ReasonKind
		wantCalls int64 // tool.invoked events
	}{
		{"room for every repair", 10, answer.Answered, "", 4}, // 3 samples + 1 repair executed (the wall refused bogus before any call)
		{"no room for the repairs", 2, answer.Abstained, answer.ReasonBudgetExhausted, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &eventlog.MemStore{}
			l, err := eventlog.NewLog(t.Context(), store, &eventlog.Options{Seed: 1, Deterministic: true})
			if err != nil {
				t.Fatal(err)
			}
			cfg := &budget.Config{Session: amounts(100), Question: amounts(tt.calls), Prices: map[string]budget.Price{"fake": {Input: 1, Output: 1}}}
			prov := &scScript{scripts: scripts}
			p, _ := scPipeline(t, prov, 3, 2, &pipeline.Options{Events: &pipeline.Events{Log: l}, Budget: cfg})
			a := p.Ask(t.Context(), "what is the metric?")
			if a.Outcome() != tt.want || a.Reason().Kind != tt.wantKind {
				t.Fatalf("answer %s %q, want %s %q", a.Outcome(), a.Reason(), tt.want, tt.wantKind)
			}
			evs, err := eventlog.ReadAll(t.Context(), store)
			if err != nil {
				t.Fatal(err)
			}
			var invoked, tokens int64
			for _, e := range evs {
				switch e.Type {
				case eventlog.TypeToolInvoked:
					invoked++
				case eventlog.TypeBudgetReserved:
					var r eventlog.BudgetReserved
					if err := json.Unmarshal(e.Payload, &r); err != nil {
						t.Fatal(err)
					}
					if r.Scope == "question" {
						tokens += r.Amount.Tokens
					}
				}
			}
			if invoked != tt.wantCalls {
				t.Errorf("%d tool calls, want %d", invoked, tt.wantCalls)
			}
			if tt.want == answer.Answered {
				// Every proposal turn (3 selections, 2 repairs) is charged.
				if want := int64(prov.turns() * turnTokens); tokens != want || prov.turns() != 5 {
					t.Errorf("charged %d tokens for %d turns, want %d", tokens, prov.turns(), want)
				}
			}
		})
	}
}

// TestRepair_SelfConsistencyTurnsBound: whatever the samples propose and
// however they fail, the provider is asked for at most samples × (1 +
// retries) proposals, at most retries repairs per sample, each under its
// own sample index, and every attempt on the answer is one repair turn.
func TestRepair_SelfConsistencyTurnsBound(t *testing.T) {
	metrics := []string{"share", "count", "bogus"}
	windows := []string{winGood, winEmpty, winTooBig, winBoom, winDenied, winBudget, winSpecial, winSpecial2}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.SampledFrom([]int{1, 3, 5, 7}).Draw(rt, "samples")
		retries := rapid.IntRange(0, 3).Draw(rt, "retries")
		scripts := make([][]*tool.Proposal, n)
		for i := range scripts {
			k := rapid.IntRange(0, 6).Draw(rt, "script_length")
			for range k {
				var pr *tool.Proposal
				if !rapid.Bool().Draw(rt, "abstain") {
					p := prop(rapid.SampledFrom(metrics).Draw(rt, "metric"), rapid.SampledFrom(windows).Draw(rt, "window"))
					pr = &p
				}
				scripts[i] = append(scripts[i], pr)
			}
		}
		prov := &scScript{scripts: scripts}
		p, rec := scPipeline(t, prov, n, retries, nil)
		a := p.Ask(context.Background(), "what is the metric?")
		if got, bound := prov.turns(), n*(1+retries); got > bound {
			rt.Fatalf("%d proposal turns over the bound %d × (1 + %d)", got, n, retries)
		}
		// One sample is no vote: the single-proposal path, whose repairs
		// carry no sample index, and whose attempts name none.
		single := n == 1
		perSample := map[int]int{}
		for _, r := range prov.repairs {
			if single && r.sample != -1 || !single && (r.sample < 0 || r.sample >= n) {
				rt.Fatalf("repair asked under sample %d of %d", r.sample, n)
			}
			perSample[r.sample]++
			if perSample[r.sample] > retries || r.attempt != perSample[r.sample] {
				rt.Fatalf("sample %d: repair %d numbered %d, bound %d", r.sample, perSample[r.sample], r.attempt, retries)
			}
		}
		got := a.Attempts()
		if len(got) != len(prov.repairs) {
			rt.Fatalf("%d attempts on the answer for %d repair turns", len(got), len(prov.repairs))
		}
		for i, at := range got {
			if (at.Sample == nil) != single || !single && *at.Sample != prov.repairs[i].sample || string(at.Class) != prov.repairs[i].class {
				rt.Fatalf("attempt %d %s, repair turn %+v", i, attemptsJSON(got[i:i+1]), prov.repairs[i])
			}
		}
		if len(rec.recs[0].RepairAttempts) != len(got) {
			rt.Fatalf("record holds %d attempts, answer %d", len(rec.recs[0].RepairAttempts), len(got))
		}
	})
}

// seededSamples is a seeded fake: each sample's first proposal and each
// repair is drawn from its own named stream, keyed by the seed, the
// sample and the attempt, so a run replays exactly and another seed runs
// differently.
type seededSamples struct{ seed uint64 }

func (s seededSamples) draw(name string, sample, attempt int) *tool.Proposal {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d\x00%d", name, sample, attempt)
	r := rand.New(rand.NewPCG(s.seed, h.Sum64()))
	metrics := []string{"share", "count", "bogus"}
	windows := []string{winGood, winGood, winEmpty, winTooBig, winBoom, winDenied, winSpecial}
	p := prop(metrics[r.IntN(len(metrics))], windows[r.IntN(len(windows))])
	return &p
}

func (s seededSamples) Name() string { return "seeded-samples" }
func (s seededSamples) Select(ctx context.Context, _ string, _ []tool.Def) (*tool.Proposal, error) {
	i, _ := provider.SampleFrom(ctx)
	return s.draw("select", i, 0), nil
}
func (s seededSamples) Compose(context.Context, provider.ComposeInput) (string, error) {
	return "Here is the metric.", nil
}
func (s seededSamples) Repair(ctx context.Context, in provider.RepairInput) (*tool.Proposal, error) {
	i, _ := provider.SampleFrom(ctx)
	return s.draw("repair", i, in.Attempt), nil
}

// TestRepair_SelfConsistencyLogHash: a seeded run of voted, repaired
// questions writes the same event log, hash for hash, every time; another
// seed writes another.
func TestRepair_SelfConsistencyLogHash(t *testing.T) {
	run := func(seed uint64) (eventlog.Digest, int) {
		store := &eventlog.MemStore{}
		l, err := eventlog.NewLog(t.Context(), store, &eventlog.Options{Seed: 1, Deterministic: true})
		if err != nil {
			t.Fatal(err)
		}
		p, _ := scPipeline(t, seededSamples{seed}, 5, 2, &pipeline.Options{Events: &pipeline.Events{Log: l}})
		attempts := 0
		for q := range 6 {
			a := p.Ask(t.Context(), fmt.Sprintf("what is the metric, question %d?", q))
			attempts += len(a.Attempts())
		}
		evs, err := eventlog.ReadAll(t.Context(), store)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := eventlog.VerifyEvents(t.Context(), evs, nil)
		if err != nil {
			t.Fatalf("verify: %v", err)
		}
		return rep.Hash, attempts
	}
	h1, n := run(7)
	h2, _ := run(7)
	if h1 != h2 {
		t.Errorf("seed 7 ran twice: log hashes %s and %s", h1, h2)
	}
	if n == 0 {
		t.Error("seed 7 made no repair attempt: the test covers nothing")
	}
	if h3, _ := run(8); h3 == h1 {
		t.Errorf("seeds 7 and 8 wrote the same log %s", h1)
	}
}
