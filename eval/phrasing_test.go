package eval_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/eval"
)

const phrasingHead = "suite_version: s1\ndataset_version: retail-demo-v1\nnow: 2026-01-07T15:30:00Z\nitems:\n"

// abstainItem is a valid abstention with a reason; tests replace parts.
const abstainItem = `  - id: amb-1
    question: is milk in stock at st-003?
    coverage: out
    family: abstain_ambiguous
    expect:
      outcome: abstained
      reason: ambiguous
      slot: product
      candidates: [pr-001, pr-007]
`

// todayItem is a valid in-coverage item of a relative family.
const todayItem = `  - id: today-1
    question: how many times was st-003 out of stock today?
    coverage: in
    family: window_today
    expect:
      outcome: absence
      tool: count_events_in_window
      params: {store_id: st-003, state: OUT_OF_STOCK, start: "2026-01-07T00:00:00Z", end: "2026-01-07T15:30:00Z"}
      value: {count: 0}
`

func TestParse_PhrasingValid(t *testing.T) {
	src := phrasingHead + abstainItem + todayItem + `  - id: missing-1
    question: what's the price of pr-007?
    coverage: out
    family: abstain_missing_slot
    expect:
      outcome: abstained
      reason: missing_slot
      slot: store
  - id: window-1
    question: how many scans were recorded at st-003?
    coverage: out
    expect:
      outcome: abstained
      reason: missing_slot
      slot: window
  - id: none-1
    question: how many employees work at st-003?
    coverage: out
    family: abstain_no_tool
    expect:
      outcome: abstained
      reason: no_tool
  - id: plain-out
    question: who supplies pr-007?
    coverage: out
    expect:
      outcome: abstained
`
	g, err := eval.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(catalogstest.Retail()); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 1, 7, 15, 30, 0, 0, time.UTC); !g.Now.Equal(want) || g.Now.Location() != time.UTC {
		t.Errorf("now = %v, want %v", g.Now, want)
	}
	tests := []struct {
		i      int
		family eval.Family
		reason eval.AbstainReason
		slot   string
		cands  int
	}{
		{0, eval.FamilyAbstainAmbiguous, eval.ReasonAmbiguous, "product", 2},
		{1, eval.FamilyWindowToday, "", "", 0},
		{2, eval.FamilyAbstainMissingSlot, eval.ReasonMissingSlot, "store", 0},
		{3, "", eval.ReasonMissingSlot, "window", 0},
		{4, eval.FamilyAbstainNoTool, eval.ReasonNoTool, "", 0},
		{5, "", "", "", 0},
	}
	for _, tt := range tests {
		it := g.Items[tt.i]
		if it.Family != tt.family || it.Expect.Reason != tt.reason || it.Expect.Slot != tt.slot || len(it.Expect.Candidates) != tt.cands {
			t.Errorf("items[%d] = family %q reason %q slot %q candidates %v", tt.i, it.Family, it.Expect.Reason, it.Expect.Slot, it.Expect.Candidates)
		}
	}
	// Without a now key the set has the zero time.
	g, err = eval.Parse(strings.NewReader(head + outItem))
	if err != nil || !g.Now.IsZero() {
		t.Fatalf("now = %v, err = %v; want zero", g.Now, err)
	}
}

// TestParse_PhrasingErrors checks each rule of the phrasing fields names
// the position, the item and the field, and never the offending value.
func TestParse_PhrasingErrors(t *testing.T) {
	amb := func(old, new string) string {
		if !strings.Contains(abstainItem, old) {
			t.Fatalf("test setup: %q not in abstainItem", old)
		}
		return phrasingHead + strings.Replace(abstainItem, old, new, 1)
	}
	today := func(old, new string) string {
		if !strings.Contains(todayItem, old) {
			t.Fatalf("test setup: %q not in todayItem", old)
		}
		return phrasingHead + strings.Replace(todayItem, old, new, 1)
	}
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"now not a timestamp", strings.Replace(phrasingHead, "2026-01-07T15:30:00Z", "tomorrow", 1) + abstainItem,
			[]string{"parse gold set: line 3 column 1: field now: must be a UTC timestamp like 2026-01-07T15:30:00Z"}},
		{"now with an offset", strings.Replace(phrasingHead, "15:30:00Z", "15:30:00+01:00", 1) + abstainItem, []string{"line 3 column 1: field now: must be a UTC timestamp"}},
		{"now with a fraction", strings.Replace(phrasingHead, "15:30:00Z", "15:30:00.5Z", 1) + abstainItem, []string{"field now: must be a UTC timestamp"}},
		{"now not a string", strings.Replace(phrasingHead, "2026-01-07T15:30:00Z", "[1]", 1) + abstainItem, []string{"line 3", "wrong type"}},
		{"unknown top key near now", strings.Replace(phrasingHead, "now:", "nwo:", 1) + abstainItem, []string{"unknown field (did you mean now?)"}},
		{"unknown family", amb("family: abstain_ambiguous", "family: poetry"), []string{"line 8 column 5: items[0] (amb-1): field family: is not a known family"}},
		{"relative family without now", strings.Replace(phrasingHead, "now: 2026-01-07T15:30:00Z\n", "", 1) + todayItem,
			[]string{"items[0] (today-1): field family: is a relative-time family: the suite needs a now"}},
		{"abstain family on an in item", today("family: window_today", "family: abstain_no_tool"), []string{"field coverage: must be out for an abstain_ family"}},
		{"abstain family without a reason", amb("      reason: ambiguous\n      slot: product\n      candidates: [pr-001, pr-007]\n", ""),
			[]string{"field expect.reason: is required for an abstain_ family"}},
		{"family and reason disagree", amb("family: abstain_ambiguous", "family: abstain_unknown_name"), []string{"field expect.reason: must be the reason the family names"}},
		{"wording family on an out item", amb("family: abstain_ambiguous", "family: name"), []string{"field family: must be an abstain_ family for an out-of-coverage item"}},
		{"reason on an in item", today("      outcome: absence\n", "      outcome: absence\n      reason: no_tool\n"), []string{"field expect.reason: must be absent for outcome absence"}},
		{"unknown reason", amb("reason: ambiguous", "reason: confused"), []string{"field expect.reason: must be no_tool, missing_slot, ambiguous or unknown_name"}},
		{"slot without reason", phrasingHead + strings.Replace(outItem, "      outcome: abstained\n", "      outcome: abstained\n      slot: store\n", 1),
			[]string{"field expect.slot: must be absent without a reason"}},
		{"candidates without reason", phrasingHead + strings.Replace(outItem, "      outcome: abstained\n", "      outcome: abstained\n      candidates: [st-001, st-002]\n", 1),
			[]string{"field expect.candidates: must be absent without a reason"}},
		{"slot for no_tool", phrasingHead +
			"  - id: n\n    question: q\n    coverage: out\n    expect:\n      outcome: abstained\n      reason: no_tool\n      slot: store\n",
			[]string{"line 11 column 7: items[0] (n): field expect.slot: must be absent for reason no_tool"}},
		{"missing slot", amb("      slot: product\n", ""), []string{"field expect.slot: is required for reason ambiguous"}},
		{"bad slot", amb("slot: product", "slot: Product!"), []string{"field expect.slot: must be a lower-case word"}},
		{"slot names no parameter", amb("slot: product", "slot: colour"), []string{"field expect.slot: names no parameter of a registered tool"}},
		{"candidates for another reason", phrasingHead +
			strings.Replace(strings.Replace(abstainItem, "reason: ambiguous", "reason: unknown_name", 1), "family: abstain_ambiguous", "family: abstain_unknown_name", 1),
			[]string{"field expect.candidates: must be absent for reason unknown_name"}},
		{"one candidate", amb("[pr-001, pr-007]", "[pr-001]"), []string{"field expect.candidates: must hold 2 to 5 ids"}},
		{"six candidates", amb("[pr-001, pr-007]", "[pr-001, pr-002, pr-003, pr-004, pr-005, pr-006]"), []string{"field expect.candidates: must hold 2 to 5 ids"}},
		{"unsorted candidates", amb("[pr-001, pr-007]", "[pr-007, pr-001]"), []string{"field expect.candidates[1]: must be sorted and unique"}},
		{"candidate of another entity", amb("[pr-001, pr-007]", "[pr-001, st-007]"), []string{"field expect.candidates[1]: is not a product id"}},
		{"candidates not a list", amb("[pr-001, pr-007]", "pr-001"), []string{"line 13", "sequence"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := eval.Parse(strings.NewReader(tt.src))
			if err == nil {
				err = g.Validate(catalogstest.Retail())
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, eval.ErrInvalidGold) {
				t.Errorf("error %v does not match ErrInvalidGold", err)
			}
			msg := err.Error()
			rest := msg
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error = %q\nwant it to contain %q", msg, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestParse_PhrasingNeverEchoesValues(t *testing.T) {
	for _, src := range []string{
		strings.Replace(phrasingHead, "2026-01-07T15:30:00Z", "SECRET", 1) + abstainItem,
		phrasingHead + strings.Replace(abstainItem, "family: abstain_ambiguous", "family: SECRET", 1),
		phrasingHead + strings.Replace(abstainItem, "reason: ambiguous", "reason: SECRET", 1),
		phrasingHead + strings.Replace(abstainItem, "slot: product", "slot: SECRET", 1),
		phrasingHead + strings.Replace(abstainItem, "slot: product", "slot: secret", 1),
		phrasingHead + strings.Replace(abstainItem, "pr-007]", "pr-SECRET]", 1),
	} {
		g, err := eval.Parse(strings.NewReader(src))
		if err == nil {
			err = g.Validate(catalogstest.Retail())
		}
		if err == nil || strings.Contains(strings.ToLower(err.Error()), "secret") {
			t.Errorf("error = %v, want one that does not repeat the value", err)
		}
	}
}

// FuzzParsePhrasing checks the phrasing fields keep the invariants the
// report relies on in any set that validates.
func FuzzParsePhrasing(f *testing.F) {
	if b, ok := eval.SuiteFile(eval.SuitePhrasing); ok {
		f.Add(b)
	}
	f.Add([]byte(phrasingHead + abstainItem + todayItem))
	f.Add([]byte(strings.Replace(phrasingHead, "now: 2026-01-07T15:30:00Z\n", "", 1) + todayItem))
	f.Add([]byte(phrasingHead + strings.Replace(abstainItem, "[pr-001, pr-007]", "[pr-001]", 1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := eval.Parse(bytes.NewReader(b))
		if err != nil {
			return
		}
		if err := g.Validate(catalogstest.Retail()); err != nil {
			return
		}
		if !g.Now.IsZero() && (g.Now.Location() != time.UTC || g.Now.Nanosecond() != 0) {
			t.Fatalf("now %v validated", g.Now)
		}
		for _, it := range g.Items {
			x := it.Expect
			switch {
			case x.Reason != "" && (it.Coverage != eval.Out || x.Outcome != answer.Abstained):
				t.Fatalf("item %s: reason on a %s item expecting %s validated", it.ID, it.Coverage, x.Outcome)
			case len(x.Candidates) > eval.MaxCandidates:
				t.Fatalf("item %s: %d candidates validated", it.ID, len(x.Candidates))
			case it.Family.Relative() && g.Now.IsZero():
				t.Fatalf("item %s: relative family without now validated", it.ID)
			case (x.Reason == eval.ReasonNoTool) != (x.Reason != "" && x.Slot == ""):
				t.Fatalf("item %s: reason %s with slot %q validated", it.ID, x.Reason, x.Slot)
			}
		}
	})
}

// clockKey carries the now a fake asker reads, standing for the
// provider's own context key.
type clockKey struct{}

// scripted answers each question with a fixed answer, checking it was
// asked with the suite's now.
type scripted struct {
	t       testing.TB
	now     time.Time
	answers map[string]answer.Answer
}

func (s scripted) Ask(ctx context.Context, q string) answer.Answer {
	if got, _ := ctx.Value(clockKey{}).(time.Time); !got.Equal(s.now) {
		s.t.Errorf("question %q asked with now %v, want %v", q, got, s.now)
	}
	if a, ok := s.answers[q]; ok {
		return a
	}
	return answer.Abstain(answer.ReasonNoTool, "no tool on the menu covers the question")
}

// TestRun_PhrasingFamilies drives the committed phrasing suite through an
// asker that abstains with no_tool on every question: every in item is
// an over-refusal, no fact is shipped, the no_tool items match and every
// other reason does not; the per-family counts and the reason checks say
// so in both reports.
func TestRun_PhrasingFamilies(t *testing.T) {
	g, err := eval.Suite(eval.SuitePhrasing)
	if err != nil {
		t.Fatal(err)
	}
	withNow := func(ctx context.Context, now time.Time) context.Context {
		return context.WithValue(ctx, clockKey{}, now)
	}
	r, err := eval.RunTarget(t.Context(), scripted{t: t, now: g.Now}, g, eval.Target{WithNow: withNow})
	if err != nil {
		t.Fatal(err)
	}
	var in, noTool, otherReasons int
	for _, it := range g.Items {
		switch {
		case it.Coverage == eval.In:
			in++
		case it.Expect.Reason == eval.ReasonNoTool:
			noTool++
		default:
			otherReasons++
		}
	}
	if r.Now != "2026-01-07T15:30:00Z" {
		t.Errorf("report now = %q", r.Now)
	}
	if r.WrongAnswers != 0 || r.ReasonMismatches != otherReasons || r.OverRefusals != in {
		t.Errorf("wrong = %d, reason mismatches = %d (want %d), over-refusals = %d (want %d)", r.WrongAnswers, r.ReasonMismatches, otherReasons, r.OverRefusals, in)
	}
	if got := r.Gates.OutOfCoverageAbstention; got.Passed != noTool || got.Total != noTool+otherReasons {
		t.Errorf("out-of-coverage gate = %d/%d, want %d/%d: a wrong reason is not a correct abstention", got.Passed, got.Total, noTool, noTool+otherReasons)
	}
	total := 0
	for _, f := range eval.Families {
		st := r.Families[f]
		if st == nil {
			t.Fatalf("family %s missing from the report", f)
		}
		total += st.Items
		if st.Abstained != st.Items || st.Wrong != 0 {
			t.Errorf("family %s: %+v, want every item abstained, none wrong", f, *st)
		}
		switch f {
		case eval.FamilyAbstainNoTool:
			if st.Correct != st.Items || st.Reasons != st.Items || st.ReasonsMatched != st.Items {
				t.Errorf("family %s: %+v, want every reason matched", f, *st)
			}
		case eval.FamilyAbstainMissingSlot, eval.FamilyAbstainAmbiguous, eval.FamilyAbstainUnknownName:
			if st.Correct != 0 || st.Reasons != st.Items || st.ReasonsMatched != 0 {
				t.Errorf("family %s: %+v, want every reason unmatched", f, *st)
			}
		default:
			if st.Correct != 0 || st.Reasons != 0 {
				t.Errorf("family %s: %+v, want nothing correct, no reason judged", f, *st)
			}
		}
	}
	if total != len(g.Items) {
		t.Errorf("families hold %d items, the suite %d", total, len(g.Items))
	}
	for _, row := range r.Items {
		if row.ID == "missing-store-price" {
			if row.ReasonMatched == nil || *row.ReasonMatched || row.Correct || !strings.Contains(row.Detail, "reason: want missing_slot store, got no_tool") {
				t.Errorf("row %s: reason matched %v, correct %t, detail %q", row.ID, row.ReasonMatched, row.Correct, row.Detail)
			}
		}
	}

	var js bytes.Buffer
	if err := eval.WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"families": {`, `"abstain_missing_slot": {`, `"reasons_matched": 0`, `"reason_matched": false`, `"wrong_answers": 0`, `"now": "2026-01-07T15:30:00Z"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON report lacks %s", want)
		}
	}
	var tb bytes.Buffer
	if err := eval.WriteTable(&tb, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"now 2026-01-07T15:30:00Z", "FAMILY", "abstain_no_tool", "wrong answers shipped: 0 (must be 0)"} {
		if !strings.Contains(tb.String(), want) {
			t.Errorf("table lacks %q", want)
		}
	}
}

// TestWriteTable_FamiliesGolden pins the family table's layout with a
// hand-built report. Regenerate with -update.
func TestWriteTable_FamiliesGolden(t *testing.T) {
	yes, no := true, false
	r := eval.Report{
		Provider: "rules", SuiteVersion: "s1", DatasetVersion: "retail-demo-v1", Now: "2026-01-07T15:30:00Z",
		Items: []eval.Row{
			{ID: "yn-1", Coverage: eval.In, Expected: answer.Answered, Outcome: answer.Answered, Tool: "get_stock_state", Correct: true, Provenance: eval.ProvVerified, Family: eval.FamilyYesNoState},
			{ID: "today-1", Coverage: eval.In, Expected: answer.Answered, Outcome: answer.Answered, Tool: "count_events_in_window", Provenance: eval.ProvContained,
				Family: eval.FamilyWindowToday, Detail: "params.start differs"},
			{ID: "amb-1", Coverage: eval.Out, Expected: answer.Abstained, Outcome: answer.Abstained, Correct: true, Provenance: eval.ProvNone, Family: eval.FamilyAbstainAmbiguous, ReasonMatched: &yes},
			{ID: "missing-1", Coverage: eval.Out, Expected: answer.Abstained, Outcome: answer.Abstained, Provenance: eval.ProvNone, Family: eval.FamilyAbstainMissingSlot, ReasonMatched: &no,
				Detail: "reason: want missing_slot store, got no_tool"},
		},
		Gates: eval.Gates{
			InCoverageCorrectness:   eval.Gate{Passed: 1, Total: 2, Rate: 0.5},
			OutOfCoverageAbstention: eval.Gate{Passed: 1, Total: 2, Rate: 0.5},
			Containment:             eval.Gate{Passed: 2, Total: 2, Rate: 1},
			ProvenanceCompleteness:  eval.Gate{Passed: 1, Total: 2, Rate: 0.5},
		},
		Families: map[eval.Family]*eval.FamilyStats{
			eval.FamilyYesNoState:         {Items: 1, Correct: 1},
			eval.FamilyWindowToday:        {Items: 1, Wrong: 1},
			eval.FamilyAbstainAmbiguous:   {Items: 1, Correct: 1, Abstained: 1, Reasons: 1, ReasonsMatched: 1},
			eval.FamilyAbstainMissingSlot: {Items: 1, Abstained: 1, Reasons: 1},
		},
		WrongAnswers: 1, ReasonMismatches: 1,
	}
	var b bytes.Buffer
	if err := eval.WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "table-families.golden")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("table differs from %s (run with -update if intended)\ngot:\n%s\nwant:\n%s", path, b.Bytes(), want)
	}
}

func TestSuite_Named(t *testing.T) {
	for _, name := range eval.Suites {
		g, err := eval.Suite(name)
		if err != nil {
			t.Fatalf("suite %s: %v", name, err)
		}
		if len(g.Items) == 0 {
			t.Errorf("suite %s: no items", name)
		}
	}
	if _, err := eval.Suite("nonesuch"); err == nil || strings.Contains(err.Error(), "nonesuch") {
		t.Errorf("unknown suite: error = %v, want one that does not repeat the name", err)
	}
	if _, ok := eval.SuiteFile("nonesuch"); ok {
		t.Error("SuiteFile found an unknown suite")
	}
}
