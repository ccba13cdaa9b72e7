package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/internal/strictjson"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/tool"
)

// Asker answers a question through the pipeline (*pipeline.Pipeline is
// one).
type Asker interface {
	Ask(ctx context.Context, question string) answer.Answer
}

// Named is an optional capability of an Asker: the provider's name, for
// the report (*pipeline.Pipeline has it).
type Named interface {
	ProviderName() string
}

// Lookup tells which event ids name rows (*engine.Engine has it). The
// harness asks it about every pointer an answer carries.
type Lookup interface {
	Known(ctx context.Context, ids []string) ([]string, error)
}

// ProvenanceStatus is the provenance axis of one item.
type ProvenanceStatus string

// The provenance statuses.
const (
	// ProvNone: the answer carries no provenance (abstained, rejected, or
	// an error without a fact).
	ProvNone ProvenanceStatus = "none"
	// ProvVerified: the expected call; the resolver's verdict passed every
	// clause, and the events (or the absence) equal the gold's.
	ProvVerified ProvenanceStatus = "verified"
	// ProvIncomplete: the expected call, but the verdict failed a clause
	// or the events differ from the gold's.
	ProvIncomplete ProvenanceStatus = "incomplete"
	// ProvContained: another call than expected, but every pointer is a
	// real event (or the absence was re-enumerated empty).
	ProvContained ProvenanceStatus = "contained"
	// ProvDangling: some pointer is not a real event, or an absence
	// attestation was not re-enumerated empty.
	ProvDangling ProvenanceStatus = "dangling"
	// ProvUnverified: the resolver's verdict failed and the pipeline
	// refused to ship the fact (an error at stage resolve).
	ProvUnverified ProvenanceStatus = "unverified"
)

// Row is one scored item.
type Row struct {
	ID          string           `json:"id"`
	Coverage    Coverage         `json:"coverage"`
	Expected    answer.Outcome   `json:"expected"`
	Outcome     answer.Outcome   `json:"outcome"`
	Tool        string           `json:"tool,omitempty"`
	Correct     bool             `json:"correct"`
	OverRefusal bool             `json:"over_refusal"`
	Provenance  ProvenanceStatus `json:"provenance"`
	// Family is the item's phrasing family; "" when the gold gives none.
	Family Family `json:"family,omitempty"`
	// ReasonMatched says, for an abstention whose gold names a reason,
	// whether the answer's reason (kind, slot, candidates) is the gold's;
	// nil otherwise.
	ReasonMatched *bool `json:"reason_matched,omitempty"`
	// Detail says what differs when the item is not correct or its
	// provenance is not verified; "" otherwise.
	Detail string `json:"detail,omitempty"`
	// Answer is the answer object as every surface returns it.
	Answer json.RawMessage `json:"answer"`
}

// Gate is one pass/fail rate.
type Gate struct {
	Passed int     `json:"passed"`
	Total  int     `json:"total"`
	Rate   float64 `json:"rate"` // Passed/Total; 0 when Total is 0
}

// Met reports whether every item passed. A gate with no items is not met:
// a run that answered nothing proves nothing.
func (g Gate) Met() bool { return g.Total > 0 && g.Passed == g.Total }

func (g *Gate) add(ok bool) {
	g.Total++
	if ok {
		g.Passed++
	}
	g.Rate = float64(g.Passed) / float64(g.Total)
}

// Gates are the four rates the harness reports.
type Gates struct {
	// InCoverageCorrectness: in-coverage items whose answer equals the
	// gold structurally (outcome, tool, params, value; for an expected
	// rejection, the rejection kind and tool).
	InCoverageCorrectness Gate `json:"in_coverage_correctness"`
	// OutOfCoverageAbstention: out-of-coverage items that abstained.
	OutOfCoverageAbstention Gate `json:"out_of_coverage_abstention"`
	// Containment: items answered with provenance (any item, any call)
	// whose every pointer is a real event, or whose absence attestation
	// was re-enumerated empty. Must be 100%.
	Containment Gate `json:"containment"`
	// ProvenanceCompleteness: items whose gold expects a fact that came
	// back through the expected call with a passing verdict and exactly
	// the gold's events (or an absence where the gold has none).
	ProvenanceCompleteness Gate `json:"provenance_completeness"`
}

// All returns the gates with their report names, in a fixed order.
func (g Gates) All() []NamedGate {
	return []NamedGate{
		{"in_coverage_correctness", g.InCoverageCorrectness},
		{"out_of_coverage_abstention", g.OutOfCoverageAbstention},
		{"containment", g.Containment},
		{"provenance_completeness", g.ProvenanceCompleteness},
	}
}

// NamedGate is a gate with its report name.
type NamedGate struct {
	Name string
	Gate Gate
}

// Report is the result of a run.
type Report struct {
	Provider     string `json:"provider"`
	SuiteVersion string `json:"suite_version"`
	// Catalog is the gold set's catalog; "" for the retail store file.
	Catalog        string `json:"catalog,omitempty"`
	DatasetVersion string `json:"dataset_version"`
	Items          []Row  `json:"items"`
	Gates          Gates  `json:"gates"`
	// OverRefusals counts in-coverage items the engine abstained on.
	OverRefusals int `json:"over_refusals"`
	// Passed is true when every gate is met.
	Passed bool `json:"passed"`
	// Classes break the run down by question class.
	Classes map[string]*ClassStats `json:"classes"`
	// Escapes is the total of the classes' fabricated-numeral escapes.
	Escapes int `json:"fabricated_numeral_escapes"`
	// Now is the set's now (RFC 3339), "" when it has none.
	Now string `json:"now,omitempty"`
	// Families break the run down by phrasing family, for the items that
	// name one; absent when none does.
	Families map[Family]*FamilyStats `json:"families,omitempty"`
	// WrongAnswers counts facts shipped (answered or absence) that are not
	// the gold's, over every item: the number that must stay 0.
	WrongAnswers int `json:"wrong_answers"`
	// ReasonMismatches counts abstentions whose gold names a reason they
	// did not give.
	ReasonMismatches int `json:"reason_mismatches"`
}

// Run drives every item of g through asker and scores it. lookup is asked
// whether each pointer of each answer is a real event; it may be nil only
// if no answer carries event ids. An absence attestation must carry the
// set's dataset_version. The set must have passed Validate, which records
// the tool registry it is scored against. An error means the run could
// not finish (the context ended, or lookup failed); a failing gate is not
// an error.
func Run(ctx context.Context, asker Asker, g *GoldSet, lookup Lookup) (Report, error) {
	// A set's now is the clock its questions are asked at, as the
	// providers read it (provider.NowFrom).
	t := Target{WithNow: provider.WithNow}
	if lookup != nil {
		t.Keys = lookup.Known
	}
	return RunTarget(ctx, asker, g, t)
}

// Target is the data a run checks an answer's provenance against.
type Target struct {
	// Keys returns which of ids are real events (for a catalog engine,
	// keys of its datasets' rows). It may be nil only if no answer
	// carries event ids.
	Keys func(ctx context.Context, ids []string) ([]string, error)
	// DataVersions maps a tool name to the data version its absence
	// attestations must carry (a catalog engine's snapshot version, such
	// as "seq:20000"). A tool not in the map must carry the set's
	// dataset_version.
	DataVersions map[string]string
	// WithNow, when set, returns the context a question is asked with
	// carrying the set's now (GoldSet.Now), so that relative times
	// ("today", "last week", no time at all) resolve against the set's
	// clock, not the wall clock; it is not called for a set without a now.
	WithNow func(ctx context.Context, now time.Time) context.Context
}

// RunTarget is Run with the provenance checked against t: the form a
// catalog engine's gold set runs in (see CatalogTarget).
func RunTarget(ctx context.Context, asker Asker, g *GoldSet, t Target) (Report, error) {
	if g.reg == nil {
		return Report{}, errors.New("run gold set: the set was not validated against a tool registry")
	}
	r := Report{SuiteVersion: g.SuiteVersion, Catalog: g.Catalog, DatasetVersion: g.DatasetVersion, Items: []Row{}, Classes: map[string]*ClassStats{}}
	for _, c := range Classes {
		r.Classes[c] = &ClassStats{}
	}
	if n, ok := asker.(Named); ok {
		r.Provider = n.ProviderName()
	}
	if !g.Now.IsZero() {
		r.Now = g.Now.UTC().Format(tool.TimestampLayout)
	}
	for _, it := range g.Items {
		if err := ctx.Err(); err != nil {
			return r, fmt.Errorf("run gold set: %w", err)
		}
		actx := ctx
		if t.WithNow != nil && !g.Now.IsZero() {
			actx = t.WithNow(ctx, g.Now)
		}
		a := asker.Ask(actx, it.Question)
		version := g.DatasetVersion
		if v, ok := t.DataVersions[a.Tool()]; ok {
			version = v
		}
		row, err := score(ctx, it, a, t.Keys, version)
		if err != nil {
			return r, fmt.Errorf("run gold set: item %s: %w", it.ID, err)
		}
		r.Items = append(r.Items, row)
		if it.Family != "" {
			if r.Families == nil {
				r.Families = map[Family]*FamilyStats{}
			}
			if r.Families[it.Family] == nil {
				r.Families[it.Family] = &FamilyStats{}
			}
			r.Families[it.Family].add(row)
		}
		if !row.Correct && (row.Outcome == answer.Answered || row.Outcome == answer.Absence) {
			r.WrongAnswers++
		}
		if row.ReasonMatched != nil && !*row.ReasonMatched {
			r.ReasonMismatches++
		}
		esc := escaped(g.reg, it.Question, a)
		r.Classes[g.ClassOf(it)].add(row.Correct, a, esc)
		if esc {
			r.Escapes++
		}

		if it.Coverage == Out {
			r.Gates.OutOfCoverageAbstention.add(row.Correct)
		} else {
			r.Gates.InCoverageCorrectness.add(row.Correct)
		}
		if row.OverRefusal {
			r.OverRefusals++
		}
		if _, has := a.Provenance(); has {
			r.Gates.Containment.add(row.Provenance != ProvDangling)
		}
		if it.Coverage == In && (it.Expect.Outcome == answer.Answered || it.Expect.Outcome == answer.Absence) {
			r.Gates.ProvenanceCompleteness.add(row.Provenance == ProvVerified)
		}
	}
	r.Passed = r.Escapes == 0
	for _, ng := range r.Gates.All() {
		r.Passed = r.Passed && ng.Gate.Met()
	}
	return r, nil
}

// score judges one answer on both axes.
func score(ctx context.Context, it Item, a answer.Answer, keys func(context.Context, []string) ([]string, error), datasetVersion string) (Row, error) {
	raw, err := json.Marshal(a)
	if err != nil {
		return Row{}, fmt.Errorf("encode answer: %w", err)
	}
	row := Row{
		ID: it.ID, Coverage: it.Coverage, Expected: it.Expect.Outcome,
		Outcome: a.Outcome(), Tool: a.Tool(), Provenance: ProvNone, Answer: raw,
	}
	row.Family = it.Family
	row.Detail = mismatch(it, a)
	if it.Expect.Reason != "" && a.Outcome() == answer.Abstained {
		why := reasonMismatch(it.Expect, a.Reason())
		ok := why == ""
		row.ReasonMatched = &ok
		row.Detail = joinDetail(row.Detail, why)
	}
	row.Correct = row.Detail == ""
	row.OverRefusal = it.Coverage == In && a.Outcome() == answer.Abstained

	x := it.Expect
	rightCall := a.Tool() == x.Tool && x.Tool != "" && maps.Equal(a.Args(), x.Params)
	prov, has := a.Provenance()
	if !has {
		if v, ok := a.Verdict(); ok && !v.OK() {
			row.Provenance = ProvUnverified
			row.Detail = joinDetail(row.Detail, fmt.Sprintf("verdict failed (provenance_valid=%t value_matches=%t complete=%t)", v.ProvenanceValid, v.ValueMatches, v.Complete))
		}
		return row, nil
	}

	// Containment: every pointer real, or an absence re-enumerated empty.
	contained := true
	ids := prov.EventIDs()
	if abs, absent := prov.Absence(); absent {
		contained = abs.EnumeratedCount == 0 && abs.DatasetVersion == datasetVersion
	} else {
		if keys == nil {
			return Row{}, errors.New("look up events: no lookup given")
		}
		found, err := keys(ctx, ids)
		if err != nil {
			return Row{}, fmt.Errorf("look up events: %w", err)
		}
		real := make(map[string]bool, len(found))
		for _, id := range found {
			real[id] = true
		}
		for _, id := range ids {
			contained = contained && real[id]
		}
		contained = contained && len(ids) > 0
	}
	switch {
	case !contained:
		row.Provenance = ProvDangling
		row.Detail = joinDetail(row.Detail, "provenance does not resolve to real events")
	case !rightCall:
		row.Provenance = ProvContained
	default:
		v, ok := a.Verdict()
		sameEvents := slices.Equal(ids, x.EventIDs) || len(ids) == 0 && len(x.EventIDs) == 0
		if !prov.Complete() {
			// Listed in part: the listed ids are the gold's first ones,
			// and the count and digest stand for them all.
			sameEvents = len(ids) <= len(x.EventIDs) && slices.Equal(ids, x.EventIDs[:len(ids)]) &&
				prov.NumEvents() == len(x.EventIDs) && prov.EventDigest() == fact.Digest(x.EventIDs)
		}
		switch {
		case !ok || !v.OK():
			row.Provenance = ProvIncomplete
			row.Detail = joinDetail(row.Detail, "resolver verdict did not pass")
		case !sameEvents:
			row.Provenance = ProvIncomplete
			row.Detail = joinDetail(row.Detail, fmt.Sprintf("event_ids: want %s, got %s", short(x.EventIDs), short(ids)))
		default:
			row.Provenance = ProvVerified
		}
	}
	return row, nil
}

// mismatch returns "" when a is correct for it, else what differs first.
func mismatch(it Item, a answer.Answer) string {
	x := it.Expect
	if a.Outcome() != x.Outcome {
		return fmt.Sprintf("outcome: want %s, got %s", x.Outcome, a.Outcome())
	}
	switch x.Outcome {
	case answer.Abstained:
		return ""
	case answer.Rejected:
		if kind, _ := a.Rejection(); kind != x.Rejection {
			return fmt.Sprintf("rejection: want %s, got %s", x.Rejection, kind)
		}
		if x.Tool != "" && a.Tool() != x.Tool {
			return fmt.Sprintf("tool: want %s, got %s", x.Tool, orNone(a.Tool()))
		}
		return ""
	}
	if a.Tool() != x.Tool {
		return fmt.Sprintf("tool: want %s, got %s", x.Tool, orNone(a.Tool()))
	}
	if args := a.Args(); !maps.Equal(args, x.Params) {
		for _, k := range slices.Sorted(maps.Keys(x.Params)) {
			if args[k] != x.Params[k] {
				return fmt.Sprintf("params.%s differs", k)
			}
		}
		return "params differ"
	}
	v, ok := a.Value()
	if !ok {
		return "value: missing"
	}
	got, err := json.Marshal(v)
	if err != nil {
		return "value: not encodable"
	}
	if !sameJSON(got, x.Value) {
		return fmt.Sprintf("value: want %s, got %s", clip(x.Value), clip(got))
	}
	return ""
}

// sameJSON reports whether two JSON texts hold structurally equal values.
func sameJSON(a, b []byte) bool {
	decode := func(b []byte) (any, bool) {
		var v any
		return v, strictjson.Decode(b, &v, nil) == nil
	}
	va, okA := decode(a)
	vb, okB := decode(b)
	return okA && okB && reflect.DeepEqual(va, vb)
}

func joinDetail(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func clip(b []byte) string {
	const max = 80
	if len(b) > max {
		return string(b[:max-3]) + "..."
	}
	return string(b)
}

func short(ids []string) string {
	if len(ids) == 0 {
		return "[]"
	}
	if len(ids) > 4 {
		return fmt.Sprintf("[%s ... +%d]", strings.Join(ids[:4], " "), len(ids)-4)
	}
	return "[" + strings.Join(ids, " ") + "]"
}
