package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/provenant/provenant/engine/enginetest"
	"log/slog"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/retail/storetest"
	"github.com/provenant/provenant/tool"
)

// Each fake below lets the request's deadline pass while it works (it
// cancels the context), as a slow model, index or store would, so that
// the tests need no timer.

// lateProvider cancels during the job named by at ("select" or
// "compose"), then answers as fakeProvider would.
type lateProvider struct {
	fakeProvider
	at     string
	cancel context.CancelFunc
}

func (p lateProvider) Select(ctx context.Context, q string, m []tool.Def) (*tool.Proposal, error) {
	if p.at == "select" {
		p.cancel()
	}
	return p.fakeProvider.Select(ctx, q, m)
}

func (p lateProvider) Compose(ctx context.Context, in provider.ComposeInput) (string, error) {
	if p.at == "compose" {
		p.cancel()
	}
	return p.fakeProvider.Compose(ctx, in)
}

type lateExecutor struct {
	pipeline.Executor
	cancel context.CancelFunc
}

func (x lateExecutor) Execute(ctx context.Context, c tool.Call) (fact.Result, error) {
	x.cancel()
	return x.Executor.Execute(ctx, c)
}

type lateResolver struct {
	pipeline.Resolver
	cancel context.CancelFunc
}

func (r lateResolver) Resolve(ctx context.Context, c tool.Call, res fact.Result) (fact.Verdict, error) {
	r.cancel()
	return r.Resolver.Resolve(ctx, c, res)
}

// TestAsk_Timeout: a request whose deadline passes (or whose client
// leaves) ends in an error with reason timeout at the stage it reached,
// never in internal or model_unavailable, never with a value or a
// sentence computed after the deadline; its log line and record say
// timeout.
func TestAsk_Timeout(t *testing.T) {
	wall, exec, own := enginetest.Parts(t, storetest.Fixture())
	modelDown := errors.New("call model: model unavailable")
	tests := []struct {
		name      string
		at        string // where the deadline passes: before, select, execute, resolve, compose
		provider  fakeProvider
		call      bool // a direct tool call rather than a question
		wantStage answer.Stage
	}{
		{"expired before the request", "before", fakeProvider{proposal: stateCall, sentence: "s"}, false, answer.StageSelect},
		{"direct call expired before the request", "before", fakeProvider{}, true, answer.StageExecute},
		{"model fails as the deadline passes", "select", fakeProvider{selectErr: modelDown}, false, answer.StageSelect},
		{"model ignores the deadline at select", "select", fakeProvider{proposal: stateCall, sentence: "s"}, false, answer.StageSelect},
		{"during execution", "execute", fakeProvider{proposal: stateCall, sentence: "s"}, false, answer.StageExecute},
		{"during re-derivation", "resolve", fakeProvider{proposal: stateCall, sentence: "s"}, false, answer.StageResolve},
		{"direct call during re-derivation", "resolve", fakeProvider{}, true, answer.StageResolve},
		{"model ignores the deadline at compose", "compose", fakeProvider{proposal: stateCall, sentence: "It is out of stock."}, false, answer.StageCompose},
		{"model fails at compose as the deadline passes", "compose", fakeProvider{proposal: stateCall, composeErr: modelDown}, false, answer.StageCompose},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var (
				prov = exec
				res  = own
				logs bytes.Buffer
				rec  recorder
			)
			switch tt.at {
			case "before":
				cancel()
			case "execute":
				prov = lateExecutor{prov, cancel}
			case "resolve":
				res = lateResolver{res, cancel}
			}
			p := pipeline.New(lateProvider{tt.provider, tt.at, cancel}, wall, prov, res, &pipeline.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Observer: &rec})
			var a answer.Answer
			if tt.call {
				a = p.Call(ctx, *stateCall)
			} else {
				a = p.Ask(ctx, "q")
			}
			if a.Outcome() != answer.Error || a.Reason().Kind != answer.ReasonTimeout || a.Stage() != tt.wantStage {
				t.Fatalf("answer = (%s, %q, %q), want (error, timeout, %q)", a.Outcome(), a.Reason(), a.Stage(), tt.wantStage)
			}
			if _, ok := a.Value(); ok || a.Text() != "" || len(a.ResultIDs()) != 0 {
				t.Errorf("a timeout carries a value, a sentence or a result id: %+v", a)
			}
			if b, _ := json.Marshal(a); !strings.Contains(string(b), `"reason":"timeout"`) {
				t.Errorf("wire answer %s lacks reason timeout", b)
			}
			if len(rec.recs) != 1 || rec.recs[0].ErrorKind != answer.ReasonTimeout {
				t.Errorf("records = %+v, want one with error kind timeout", rec.recs)
			}
			var line map[string]any
			if err := json.Unmarshal(logs.Bytes(), &line); err != nil || line[pipeline.KeyErrorKind] != "timeout" {
				t.Errorf("log line %s: want %s timeout", logs.String(), pipeline.KeyErrorKind)
			}
		})
	}
}

// lateSampler lets the deadline pass while sample `at` is drawn, and
// answers anyway.
type lateSampler struct {
	*sampler
	at     int
	cancel context.CancelFunc
}

func (s lateSampler) Select(ctx context.Context, q string, m []tool.Def) (*tool.Proposal, error) {
	if i, _ := provider.SampleFrom(ctx); i == s.at {
		s.cancel()
	}
	return s.sampler.Select(ctx, q, m)
}

// TestVote_Timeout: a deadline passing mid-vote ends the request in a
// timeout; it never leaves a vote decided on the ballots drawn before it
// (here three of five agreeing samples would have won).
func TestVote_Timeout(t *testing.T) {
	f := newSCFixture(t, t.Context())
	for _, at := range []int{1, 3, 4} {
		t.Run(fmt.Sprintf("sample %d", at), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			s := lateSampler{&sampler{proposals: []*tool.Proposal{scA, scA, scA, scA, scA}}, at, cancel}
			a := f.pipeline(s, &pipeline.SelfConsistency{Samples: 5}, nil, nil).Ask(ctx, "q")
			if a.Outcome() != answer.Error || a.Reason().Kind != answer.ReasonTimeout {
				t.Errorf("Ask() = %s %q, want error timeout", a.Outcome(), a.Reason())
			}
		})
	}
}
