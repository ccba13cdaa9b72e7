package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/tool"
)

// scriptedRepair proposes first, then each repair in turn, recording the
// repair inputs.
type scriptedRepair struct {
	first   tool.Proposal
	repairs []tool.Proposal
	seen    []provider.RepairInput
}

func (s *scriptedRepair) Name() string { return "scripted-repair" }
func (s *scriptedRepair) Select(context.Context, string, []tool.Def) (*tool.Proposal, error) {
	p := s.first
	return &p, nil
}
func (s *scriptedRepair) Compose(context.Context, provider.ComposeInput) (string, error) {
	return "Here it is.", nil
}
func (s *scriptedRepair) Repair(_ context.Context, in provider.RepairInput) (*tool.Proposal, error) {
	s.seen = append(s.seen, in)
	if len(s.seen) > len(s.repairs) {
		return nil, nil
	}
	p := s.repairs[len(s.seen)-1]
	return &p, nil
}

func repairProposal(metric, start, end string, extra map[string]any) tool.Proposal {
	p := tool.Proposal{Tool: "query_metric", Params: map[string]any{"metric": metric, "start": start, "end": end}}
	for k, v := range extra {
		p.Params[k] = v
	}
	return p
}

// On the demo store's catalog engine the loop repairs a real query_metric
// call: an undeclared dimension (the wall: schema_violation) and a window
// with no data for a ratio (no value: empty_result), each resolved by the
// scripted repair; the message carries the catalog's definition.
func TestRepair_DemoEngine(t *testing.T) {
	store := map[string]any{"filters": []any{map[string]any{"dimension": "store", "op": "eq", "values": []any{"st-003"}}}}
	good := repairProposal("scan_count", "2026-01-06T00:00:00Z", "2026-01-07T00:00:00Z", store)
	tests := []struct {
		name       string
		first      tool.Proposal
		wantClass  answer.ReasonKind
		wantInMsg  string
		wantRepair int
	}{
		{"undeclared dimension", repairProposal("scan_count", "2026-01-06T00:00:00Z", "2026-01-07T00:00:00Z", map[string]any{"dimensions": []any{"planet"}}),
			answer.ReasonSchemaViolation, "The number of shelf scans", 1},
		{"empty window", repairProposal("price_mismatch_share", "2020-01-06T00:00:00Z", "2020-01-07T00:00:00Z", nil),
			answer.ReasonEmptyResult, "PRICE_MISMATCH", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov := &scriptedRepair{first: tt.first, repairs: []tool.Proposal{good}}
			e := enginetest.OpenDemo(t, engine.Options{Provider: prov, Repair: &pipeline.Repair{Retries: 2}})
			a := e.Pipeline.Ask(t.Context(), "what was the scan count at st-003 yesterday?")
			if a.Outcome() != answer.Answered {
				t.Fatalf("outcome %s %q", a.Outcome(), a.Reason())
			}
			v, _ := a.Value()
			if got := v.Table.Rows[0][len(v.Table.Rows[0])-1].Num; got != 27 {
				t.Errorf("value %v, want 27 (the gold's metric-store-yesterday)", got)
			}
			if got := a.Attempts(); len(got) != 1 || got[0].Class != tt.wantClass {
				t.Errorf("attempts %v, want [%s]", got, tt.wantClass)
			}
			if len(prov.seen) != tt.wantRepair {
				t.Fatalf("Repair called %d times", len(prov.seen))
			}
			if msg := prov.seen[0].Message; !strings.Contains(msg, tt.wantInMsg) || !strings.Contains(msg, "metric ") {
				t.Errorf("message lacks the catalog's snippet or definition (%q):\n%s", tt.wantInMsg, msg)
			}
		})
	}
}

// With the loop on and a provider that cannot repair, the demo's answers
// are what they were, byte for byte: no attempts key.
func TestRepair_DemoEngineRulesUnchanged(t *testing.T) {
	off := enginetest.OpenDemo(t, engine.Options{ResultIDs: &ledger.Sequence{}})
	on := enginetest.OpenDemo(t, engine.Options{ResultIDs: &ledger.Sequence{}, Repair: &pipeline.Repair{Retries: 2}})
	now, _ := time.Parse(time.RFC3339, "2026-01-07T12:00:00Z")
	ctx := provider.WithNow(t.Context(), now)
	for _, q := range []string{"what was the scan count at st-003 yesterday?", "what was the price mismatch share in 2020?", "what is the price of pr-001 at st-001 as of 2026-01-02T00:00:00Z?"} {
		a, _ := json.Marshal(off.Pipeline.Ask(ctx, q))
		b, _ := json.Marshal(on.Pipeline.Ask(ctx, q))
		if !bytes.Equal(a, b) {
			t.Errorf("%q:\noff %s\non  %s", q, a, b)
		}
	}
}
