package pipeline_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail/storetest"
)

// TestAsk_ProviderAbstentions: a provider's reasoned abstention becomes
// the answer's reason of the same kind with its detail; a kind outside
// the closed set is no_tool.
func TestAsk_ProviderAbstentions(t *testing.T) {
	tests := []struct {
		kind provider.AbstentionKind
		want string
	}{
		{provider.AbstainMissingSlot, "missing_slot: store (the question names no store)"},
		{provider.AbstainAmbiguous, "ambiguous: store (the question could name st-001, st-002)"},
		{provider.AbstainUnknownName, "unknown_name: store (the question names no declared store)"},
		{provider.AbstainNotUnderstood, "not_understood: d"},
		{provider.AbstainNoTool, "no_tool: no tool on the menu covers the question"},
		{"made_up", "no_tool: no tool on the menu covers the question"},
	}
	details := map[provider.AbstentionKind]string{
		provider.AbstainMissingSlot:   "store (the question names no store)",
		provider.AbstainAmbiguous:     "store (the question could name st-001, st-002)",
		provider.AbstainUnknownName:   "store (the question names no declared store)",
		provider.AbstainNotUnderstood: "d",
		provider.AbstainNoTool:        "x",
		"made_up":                     "x",
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			var logs bytes.Buffer
			p := newPipeline(t, fakeProvider{selectErr: &provider.Abstention{Kind: tt.kind, Detail: details[tt.kind]}}, nil, &logs, nil)
			a := p.Ask(t.Context(), "anything")
			if a.Outcome() != answer.Abstained || a.Reason().String() != tt.want {
				t.Errorf("Ask() = %s %q, want abstained %q", a.Outcome(), a.Reason(), tt.want)
			}
		})
	}
}

// TestAsk_NaturalQuestion: the rules provider reads a question as people
// ask it at the pipeline's clock; a yes/no question's sentence says yes
// or no and names the observed state; a clock in the request's context
// wins over the pipeline's.
func TestAsk_NaturalQuestion(t *testing.T) {
	wall, exec, res := enginetest.Parts(t, storetest.Fixture())
	clock := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	p := pipeline.New(rules.Provider{}, wall, exec, res, &pipeline.Options{Logger: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return clock }})
	a := p.Ask(t.Context(), "Is PR-001 in stock at st-001?")
	if a.Outcome() != answer.Answered || a.Tool() != "get_stock_state" || a.Args()["as_of"] != "2026-01-01T10:00:00Z" {
		t.Fatalf("Ask() = %s %s %v (%s)", a.Outcome(), a.Tool(), a.Args(), a.Reason())
	}
	v, _ := a.Value()
	yes := v.Text == "IN_STOCK"
	if want := map[bool]string{true: "Yes: ", false: "No: "}[yes]; !strings.HasPrefix(a.Text(), want) || !strings.Contains(a.Text(), v.Text) ||
		!strings.Contains(a.Text(), "2026-01-01T10:00:00Z") {
		t.Errorf("Text() = %q, want %q..., the state %s and the instant", a.Text(), want, v.Text)
	}

	ctx := provider.WithNow(t.Context(), time.Date(2026, 1, 1, 9, 30, 0, 0, time.UTC))
	if a := p.Ask(ctx, "is pr-001 in stock at st-001"); a.Args()["as_of"] != "2026-01-01T09:30:00Z" {
		t.Errorf("with a clock in the context: as_of = %q, want 2026-01-01T09:30:00Z", a.Args()["as_of"])
	}

	if a := p.Ask(t.Context(), "what's the price of pr-001?"); a.Reason().String() != "missing_slot: store (the question names no store)" {
		t.Errorf("missing store: %s %q", a.Outcome(), a.Reason())
	}

	noClock := pipeline.New(rules.Provider{}, wall, exec, res, nil)
	if a := noClock.Ask(t.Context(), "is pr-001 in stock at st-001"); a.Reason().Kind != answer.ReasonMissingSlot {
		t.Errorf("no clock: %s %q, want missing_slot", a.Outcome(), a.Reason())
	}
}
