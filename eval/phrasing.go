package eval

import (
	"bytes"
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// Family is the phrasing family an item exercises: how the question is
// worded (a template, free word order, a name for an id, a synonym, a
// relative time), or why it must abstain. The set is closed (Families).
type Family string

// The phrasing families of issue 9 ("questions as people ask them").
const (
	// Wording.
	FamilyTemplate        Family = "template"         // a catalog phrasing as declared
	FamilyWordOrder       Family = "word_order"       // the slots in another order
	FamilyPoliteness      Family = "politeness"       // please, could you, thanks
	FamilyFiller          Family = "filler"           // hey, um, quick question
	FamilyCasePunctuation Family = "case_punctuation" // letter case and punctuation
	FamilyContraction     Family = "contraction"      // what's, isn't, don't
	FamilyYesNoState      Family = "yes_no_state"     // "is X in stock at Y?": the state tool
	FamilyListCount       Family = "list_count"       // "how many products are low at Y": the list tool

	// Names.
	FamilyIDCase       Family = "id_case"       // an id in another letter case (ST-003)
	FamilyName         Family = "name"          // a declared display name (Riverside, Whole milk 1L)
	FamilyEntityNumber Family = "entity_number" // the entity word and a number (store 3, product 7)

	// Everyday words for enumerations.
	FamilySynonymState     Family = "synonym_state"     // sold out, running low, on the shelf, ...
	FamilySynonymCondition Family = "synonym_condition" // wrong price, mispriced, compliance issues, ...

	// Instants.
	FamilyInstantNow            Family = "instant_now"              // no time, now, currently, today (a state)
	FamilyInstantDate           Family = "instant_date"             // a date alone: the end of that UTC day
	FamilyInstantYesterday      Family = "instant_yesterday"        // the end of the day before now's
	FamilyInstantDatetimeNoZone Family = "instant_datetime_no_zone" // 2026-01-06 08:00, read as UTC

	// Windows.
	FamilyWindowToday             Family = "window_today"              // [start of now's day, now)
	FamilyWindowYesterday         Family = "window_yesterday"          // the whole day before now's
	FamilyWindowThisWeek          Family = "window_this_week"          // [Monday 00:00 of now's ISO week, now)
	FamilyWindowLastWeek          Family = "window_last_week"          // the whole previous ISO week
	FamilyWindowLastN             Family = "window_last_n"             // last/past N days or hours: [now-N, now)
	FamilyWindowBetweenDates      Family = "window_between_dates"      // [A 00:00, B+1 day 00:00)
	FamilyWindowBetweenTimestamps Family = "window_between_timestamps" // [A, B)
	FamilyWindowOnDate            Family = "window_on_date"            // that whole day
	FamilyWindowSince             Family = "window_since"              // [A, now)

	// Governed metrics (query_metric): a metric's declared phrase, "by"
	// a dimension, a filter named by an id or a value, and a window.
	FamilyMetric Family = "metric"

	// Abstentions, one per reason.
	FamilyAbstainNoTool      Family = "abstain_no_tool"
	FamilyAbstainMissingSlot Family = "abstain_missing_slot"
	FamilyAbstainAmbiguous   Family = "abstain_ambiguous"
	FamilyAbstainUnknownName Family = "abstain_unknown_name"
)

// Families lists the families in report order.
var Families = []Family{
	FamilyTemplate, FamilyWordOrder, FamilyPoliteness, FamilyFiller, FamilyCasePunctuation,
	FamilyContraction, FamilyYesNoState, FamilyListCount,
	FamilyIDCase, FamilyName, FamilyEntityNumber,
	FamilySynonymState, FamilySynonymCondition,
	FamilyInstantNow, FamilyInstantDate, FamilyInstantYesterday, FamilyInstantDatetimeNoZone,
	FamilyWindowToday, FamilyWindowYesterday, FamilyWindowThisWeek, FamilyWindowLastWeek,
	FamilyWindowLastN, FamilyWindowBetweenDates, FamilyWindowBetweenTimestamps,
	FamilyWindowOnDate, FamilyWindowSince,
	FamilyMetric,
	FamilyAbstainNoTool, FamilyAbstainMissingSlot, FamilyAbstainAmbiguous, FamilyAbstainUnknownName,
}

// relative lists the families whose truth depends on the suite's now.
var relative = []Family{
	FamilyInstantNow, FamilyInstantYesterday,
	FamilyWindowToday, FamilyWindowYesterday, FamilyWindowThisWeek, FamilyWindowLastWeek,
	FamilyWindowLastN, FamilyWindowSince,
}

// Relative reports whether the family's questions resolve against the
// suite's now.
func (f Family) Relative() bool { return slices.Contains(relative, f) }

// AbstainReason is the reason kind an abstention must give.
type AbstainReason string

// The abstention reasons a gold item may expect.
const (
	// ReasonNoTool: no tool's vocabulary matches the question at all.
	ReasonNoTool AbstainReason = "no_tool"
	// ReasonMissingSlot: a tool matches but a required slot is absent.
	ReasonMissingSlot AbstainReason = "missing_slot"
	// ReasonAmbiguous: a name matches several ids.
	ReasonAmbiguous AbstainReason = "ambiguous"
	// ReasonUnknownName: a name matches no id.
	ReasonUnknownName AbstainReason = "unknown_name"
)

// AbstainReasons is the closed set of expected reasons.
var AbstainReasons = []AbstainReason{ReasonNoTool, ReasonMissingSlot, ReasonAmbiguous, ReasonUnknownName}

// MaxCandidates bounds the candidates an ambiguous abstention names.
const MaxCandidates = 5

var slotPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// validatePhrasing checks an item's family and its expected abstention
// reason; hasNow says the set has a now.
func (it Item) validatePhrasing(reg *tool.Registry, hasNow bool, fail failFunc) error {
	x := it.Expect
	if x.Reason != "" && !slices.Contains(AbstainReasons, x.Reason) {
		return fail("expect.reason", "must be no_tool, missing_slot, ambiguous or unknown_name")
	}
	if it.Family != "" {
		switch {
		case !slices.Contains(Families, it.Family):
			return fail("family", "is not a known family (see eval.Families)")
		case it.Family.Relative() && !hasNow:
			return fail("family", "is a relative-time family: the suite needs a now")
		}
		r, abstain := strings.CutPrefix(string(it.Family), "abstain_")
		switch {
		case abstain && it.Coverage != Out:
			return fail("coverage", "must be out for an abstain_ family")
		case abstain && x.Reason == "":
			return fail("expect.reason", "is required for an abstain_ family")
		case abstain && AbstainReason(r) != x.Reason:
			return fail("expect.reason", "must be the reason the family names")
		case !abstain && it.Coverage == Out:
			return fail("family", "must be an abstain_ family for an out-of-coverage item")
		}
	}
	if x.Reason == "" {
		if x.Slot != "" {
			return fail("expect.slot", "must be absent without a reason")
		}
		if x.Candidates != nil {
			return fail("expect.candidates", "must be absent without a reason")
		}
		return nil
	}
	// validate has already required an out item for a reason.
	if x.Reason == ReasonNoTool {
		if x.Slot != "" {
			return fail("expect.slot", "must be absent for reason no_tool")
		}
		if x.Candidates != nil {
			return fail("expect.candidates", "must be absent for reason no_tool")
		}
		return nil
	}
	if x.Slot == "" {
		return fail("expect.slot", "is required for reason "+string(x.Reason))
	}
	if !slotPattern.MatchString(x.Slot) {
		return fail("expect.slot", "must be a lower-case word of up to 32 letters, digits or underscores")
	}
	p, ok := slotParam(reg, x.Slot)
	if !ok {
		return fail("expect.slot", "names no parameter of a registered tool (slot or slot_id)")
	}
	if x.Candidates == nil {
		return nil
	}
	if x.Reason != ReasonAmbiguous {
		return fail("expect.candidates", "must be absent for reason "+string(x.Reason))
	}
	if len(x.Candidates) < 2 || len(x.Candidates) > MaxCandidates {
		return fail("expect.candidates", fmt.Sprintf("must hold 2 to %d ids", MaxCandidates))
	}
	for j, c := range x.Candidates {
		field := fmt.Sprintf("expect.candidates[%d]", j)
		if reason := reg.OutOfDomain(p, c); reason != "" {
			return fail(field, reason)
		}
		if j > 0 && x.Candidates[j-1] >= c {
			return fail(field, "must be sorted and unique")
		}
	}
	return nil
}

// slotParam finds the parameter a slot names: the first registered
// tool's parameter called slot+"_id" or slot. The slot "window" names a
// tool's start and end (the start is returned).
func slotParam(reg *tool.Registry, slot string) (tool.Param, bool) {
	for _, def := range reg.Menu() {
		has := func(name string) bool {
			return slices.ContainsFunc(def.Params, func(p tool.Param) bool { return p.Name == name })
		}
		for _, p := range def.Params {
			if p.Name == slot+"_id" || p.Name == slot || slot == "window" && p.Name == "start" && has("end") {
				return p, true
			}
		}
	}
	return tool.Param{}, false
}

// reasonMismatch returns "" when an abstention's reason r is the one x
// expects, else what differs (never r's detail). The kind must equal
// x.Reason; the detail's first word must be x.Slot; every candidate must
// occur in the detail as a whole word.
func reasonMismatch(x Expect, r answer.Reason) string {
	want := string(x.Reason)
	if x.Slot != "" {
		want += " " + x.Slot
	}
	words := detailWords(r.Detail)
	switch {
	case string(r.Kind) != string(x.Reason):
		return fmt.Sprintf("reason: want %s, got %s", want, orNone(string(r.Kind)))
	case x.Slot != "" && (len(words) == 0 || words[0] != x.Slot):
		return fmt.Sprintf("reason: want %s, got another slot", want)
	}
	for _, c := range x.Candidates {
		if !slices.Contains(words, c) {
			return fmt.Sprintf("reason: want candidate %s named", c)
		}
	}
	return ""
}

// detailWords splits a reason's detail into its words: runs of letters,
// digits, _ and - (so an id such as st-003 is one word), lower-cased.
func detailWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	})
}

// FamilyStats counts one family's results.
type FamilyStats struct {
	Items   int `json:"items"`
	Correct int `json:"correct"`
	// Wrong counts facts shipped (answered or absence) that are not the
	// gold's: the number that must stay 0.
	Wrong     int `json:"wrong"`
	Abstained int `json:"abstained"`
	// Reasons counts abstentions whose gold names a reason, and
	// ReasonsMatched those whose reason (and slot and candidates) matched.
	Reasons        int `json:"reasons"`
	ReasonsMatched int `json:"reasons_matched"`
}

func (s *FamilyStats) add(row Row) {
	s.Items++
	switch {
	case row.Correct:
		s.Correct++
	case row.Outcome == answer.Answered || row.Outcome == answer.Absence:
		s.Wrong++
	}
	if row.Outcome == answer.Abstained {
		s.Abstained++
	}
	if row.ReasonMatched != nil {
		s.Reasons++
		if *row.ReasonMatched {
			s.ReasonsMatched++
		}
	}
}

// Named retail suites: the embedded gold sets for the demo store that
// `provenant eval --gold NAME` runs.
const (
	SuiteDemo     = "demo"     // retail-demo-v1.gold.yaml, the default
	SuitePhrasing = "phrasing" // retail-phrasing-v1.gold.yaml, questions as people ask them
)

// Suites lists the named retail suites.
var Suites = []string{SuiteDemo, SuitePhrasing}

//go:embed retail-phrasing-v1.gold.yaml
var phrasingGold []byte

// SuiteFile returns the embedded file of a named retail suite, false when
// there is no such suite.
func SuiteFile(name string) ([]byte, bool) {
	switch name {
	case SuiteDemo:
		return slices.Clone(defaultGold), true
	case SuitePhrasing:
		return slices.Clone(phrasingGold), true
	}
	return nil, false
}

// Suite parses a named retail suite and validates it against the tools
// of the embedded retail catalog.
func Suite(name string) (*GoldSet, error) {
	b, ok := SuiteFile(name)
	if !ok {
		return nil, fmt.Errorf("load gold set: no such suite (want one of %s)", strings.Join(Suites, ", "))
	}
	g, err := Parse(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	cat, err := catalogs.Load("retail")
	if err != nil {
		return nil, fmt.Errorf("load gold set: %w", err)
	}
	reg, err := shape.NewMenuRegistry(cat)
	if err != nil {
		return nil, fmt.Errorf("load gold set: %w", err)
	}
	if err := g.Validate(reg); err != nil {
		return nil, err
	}
	return g, nil
}
