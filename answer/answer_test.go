package answer_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/tool"
)

var update = flag.Bool("update", false, "rewrite golden files")

var ok = fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true, Enumerated: 1}

func staple(t *testing.T, v fact.Value, ids []string, text string) answer.Answer {
	t.Helper()
	var p fact.Provenance
	if ids == nil {
		p = fact.Absent(fact.Absence{Tool: "get_price", Filter: map[string]string{"store_id": "st-001", "product_id": "pr-001"},
			Window: []string{"2026-01-01T00:00:00Z"}, DatasetVersion: "retail-demo-v1"})
	} else {
		var err error
		if p, err = fact.Events(ids); err != nil {
			t.Fatal(err)
		}
	}
	r, err := fact.NewResult("get_price", map[string]string{"store_id": "st-001", "product_id": "pr-001", "as_of": "2026-01-01T00:00:00Z"}, v, p)
	if err != nil {
		t.Fatal(err)
	}
	verdict := ok
	if ids == nil {
		verdict.Enumerated = 0
	}
	var tp *string
	if text != "" {
		tp = &text
	}
	a, err := answer.Staple(r, verdict, tp, "res-000007")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAnswer_JSON pins the documented answer object for every outcome and
// value kind.
func TestAnswer_JSON(t *testing.T) {
	answers := []struct {
		name string
		a    answer.Answer
	}{
		{"state", staple(t, fact.Text("LOW_STOCK"), []string{"evt-000002"}, "It is low.")},
		{"price", staple(t, fact.Integer(299, "cents"), []string{"evt-000002"}, "It costs $2.99.")},
		{"price with grounding", staple(t, fact.Integer(299, "cents"), []string{"evt-000002"}, "It costs $2.99.").WithGrounding(
			grounding.Check("It costs $2.99.", grounding.Ledger{Numerals: []grounding.Numeral{{Value: 299, Unit: grounding.UnitCents}}}, "", grounding.DefaultPolicy()))},
		{"store count", staple(t, fact.EntityCount("store_ids", []string{"st-002", "st-001"}), []string{"evt-000009", "evt-000001", "evt-000003"}, "2 stores.")},
		{"product list", staple(t, fact.EntityList("product_ids", []string{"pr-003", "pr-001"}), []string{"evt-000004", "evt-000002"}, "2 products.")},
		{"event count", staple(t, fact.RowCount(1), []string{"evt-000001"}, "1 scan.")},
		{"no observation", staple(t, fact.NoObservation(fact.KindInteger), nil, "No scan.")},
		{"empty list", staple(t, fact.EntityList("product_ids", nil), nil, "None.")},
		{"compose failed", staple(t, fact.Integer(299, "cents"), []string{"evt-000002"}, "")},
		{"abstained", answer.Abstain(answer.ReasonNoTool, "no tool on the menu covers the question")},
		{"rejected", answer.Reject("get_price", &tool.Rejection{Kind: tool.RawQuery, Param: "store_id", Reason: "carries query syntax"})},
		{"rejected unregistered", answer.Reject("", &tool.Rejection{Kind: tool.Unregistered, Reason: "tool is not on the menu"})},
		{"select failed", answer.Fail(answer.StageSelect, answer.ReasonModelUnavailable, "", nil)},
		{"unverified", answer.Unverified("get_price", map[string]string{"store_id": "st-001"}, fact.Verdict{ProvenanceValid: true, ValueMatches: true})},
	}
	var buf bytes.Buffer
	for _, a := range answers {
		b, err := json.Marshal(a.a)
		if err != nil {
			t.Fatal(err)
		}
		buf.WriteString(a.name + "\n" + string(b) + "\n\n")
	}
	golden := "testdata/answers.golden"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("answer JSON differs from %s (run go test ./answer -update and review the diff):\n%s", golden, buf.String())
	}
	// Every object has exactly the documented keys.
	for _, a := range answers {
		var m map[string]any
		b, _ := json.Marshal(a.a)
		json.Unmarshal(b, &m)
		if len(m) != 12 {
			t.Errorf("%s: %d keys, want 12: %s", a.name, len(m), b)
		}
	}
}

func TestStaple_RefusesFailedVerdict(t *testing.T) {
	p, _ := fact.Events([]string{"evt-000001"})
	r, _ := fact.NewResult("get_price", nil, fact.Integer(1, "cents"), p)
	text := "x"
	for _, v := range []fact.Verdict{
		{ValueMatches: true, Complete: true},
		{ProvenanceValid: true, Complete: true},
		{ProvenanceValid: true, ValueMatches: true},
	} {
		if _, err := answer.Staple(r, v, &text, "res-000001"); err == nil {
			t.Errorf("Staple(%+v) succeeded, want ErrUnverified", v)
		}
	}
}

func TestNewResult_PositiveNeedsEvents(t *testing.T) {
	if _, err := fact.Events(nil); err == nil {
		t.Error("Events(nil) succeeded")
	}
	abs := fact.Absent(fact.Absence{Tool: "get_price"})
	if _, err := fact.NewResult("get_price", nil, fact.Integer(1, "cents"), abs); err == nil {
		t.Error("a positive value with an absence attestation was accepted")
	}
	p, _ := fact.Events([]string{"evt-000001"})
	if _, err := fact.NewResult("get_price", nil, fact.NoObservation(fact.KindInteger), p); err == nil {
		t.Error("no observation with events was accepted")
	}
	if _, err := fact.NewResult("x", nil, fact.RowCount(0), fact.Provenance{}); err == nil {
		t.Error("zero provenance was accepted")
	}
}

// TestReason_Typed pins that every non-answer carries its reason as a kind
// from its outcome's closed set and a detail, and that the wire form is
// "kind: detail" (or "kind" alone), so no caller cuts the text apart.
func TestReason_Typed(t *testing.T) {
	tests := []struct {
		name     string
		a        answer.Answer
		wantKind answer.ReasonKind
		wantWire string
	}{
		{"abstained", answer.Abstain(answer.ReasonNoTool, "no tool on the menu covers the question"),
			answer.ReasonNoTool, "no_tool: no tool on the menu covers the question"},
		{"rejected with parameter", answer.Reject("get_price", &tool.Rejection{Kind: tool.RawQuery, Param: "store_id", Reason: "carries query syntax"}),
			answer.ReasonRawQuery, "raw_query: parameter store_id carries query syntax"},
		{"rejected without parameter", answer.Reject("", &tool.Rejection{Kind: tool.Unregistered, Reason: "tool is not on the menu"}),
			answer.ReasonUnregistered, "unregistered: tool is not on the menu"},
		{"error", answer.Fail(answer.StageResolve, answer.ReasonTimeout, "", nil), answer.ReasonTimeout, "timeout"},
		{"unverified", answer.Unverified("get_price", nil, fact.Verdict{}), answer.ReasonVerificationFailed, "verification_failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.a.Reason()
			if r.Kind != tt.wantKind || r.String() != tt.wantWire {
				t.Errorf("Reason() = %q (kind %q), want %q (kind %q)", r, r.Kind, tt.wantWire, tt.wantKind)
			}
			var m struct{ Reason string }
			b, _ := json.Marshal(tt.a)
			if err := json.Unmarshal(b, &m); err != nil || m.Reason != tt.wantWire {
				t.Errorf("wire reason %q, want %q", m.Reason, tt.wantWire)
			}
		})
	}
	if _, ok := answer.Abstain(answer.ReasonNoTool, "").Rejection(); ok {
		t.Error("an abstention reports a rejection kind")
	}
	if k, ok := tests[1].a.Rejection(); !ok || k != tool.RawQuery {
		t.Errorf("Rejection() = %q, %t", k, ok)
	}
}

// TestReason_ClosedSets pins that the constructors refuse a kind outside
// their outcome's set, and that the rejection kinds are the wall's.
func TestReason_ClosedSets(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
	mustPanic("abstain with an error kind", func() { answer.Abstain(answer.ReasonInternal, "") })
	mustPanic("fail with an abstain kind", func() { answer.Fail(answer.StageSelect, answer.ReasonNoTool, "", nil) })
	mustPanic("reject with an unknown kind", func() { answer.Reject("", &tool.Rejection{Kind: "on_fire"}) })
	for _, k := range []tool.RejectKind{tool.Unregistered, tool.Invalid, tool.RawQuery, tool.OutOfScope} {
		answer.Reject("", &tool.Rejection{Kind: k}) // must not panic
	}
}
