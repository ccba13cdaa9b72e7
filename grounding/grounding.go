package grounding

// Unit is the vocabulary of units a numeral or a ledger entry may carry.
type Unit string

// The units. UnitNone matches any unit of the same magnitude class only
// through the value (a bare "3" against a count of 3).
const (
	UnitNone      Unit = ""
	UnitCount     Unit = "count"     // stores, products, scans, events
	UnitCents     Unit = "cents"     // money in cents: 299 cents == 2.99 usd
	UnitUSD       Unit = "usd"       // $, USD, dollars
	UnitEUR       Unit = "eur"       // €, EUR, euros
	UnitGBP       Unit = "gbp"       // £, GBP, pounds
	UnitRatio     Unit = "ratio"     // 0.12 == 12 percent
	UnitPercent   Unit = "percent"   // %, percent, per cent
	UnitTimestamp Unit = "timestamp" // value: unix seconds (ISO 8601 UTC in text)
	UnitDate      Unit = "date"      // value: unix seconds of 00:00 UTC (YYYY-MM-DD in text)
	UnitID        Unit = "id"        // an identifier token; matched by its ID string
)

// Numeral is one ledger entry: a number the text may cite. ID, when set,
// is an identifier string (st-003, evt-000123) the text may name; Window,
// when set, is a [start, end] span of ISO 8601 UTC timestamps inside which
// a cited timestamp is allowed (allowance window_timestamp).
//
// An entry with unit id, or with an ID and no unit, is an identifier only:
// its Value backs nothing. An entry with a Window, Value 0 and unit none,
// timestamp or date is a window only. Give a count or a price that comes
// with an ID or a window its unit (count, cents) so that its value counts.
type Numeral struct {
	Value  float64   `json:"value"`
	Unit   Unit      `json:"unit,omitempty"`
	ID     string    `json:"id,omitempty"`
	Window [2]string `json:"window,omitempty"`
}

// Ledger is what a text may cite.
type Ledger struct {
	Numerals []Numeral `json:"numerals"`
}

// Allowance names one of the four ways an unmatched numeral may pass.
type Allowance string

// The four allowances, and no fifth.
const (
	AllowQuestionEcho    Allowance = "question_echo"    // the numeral appears in the question's own text
	AllowOrdinal         Allowance = "ordinal"          // a list index: "1.", "2)", "1st", "second"
	AllowWindowTimestamp Allowance = "window_timestamp" // a timestamp or date inside a ledger entry's Window
	AllowIdentifier      Allowance = "identifier"       // a bare number equal to a ledger ID's digits ("store 3" for st-003)
)

// Policy sets the match tolerance and which allowances are on.
type Policy struct {
	MatchRelTol float64            `json:"match_rel_tol"`
	Allow       map[Allowance]bool `json:"allow"`
}

// DefaultPolicy: tolerance 0.005; question echo, ordinal and window
// timestamp on; identifier off.
func DefaultPolicy() Policy {
	return Policy{MatchRelTol: DefaultMatchRelTol, Allow: map[Allowance]bool{
		AllowQuestionEcho:    true,
		AllowOrdinal:         true,
		AllowWindowTimestamp: true,
		AllowIdentifier:      false,
	}}
}

// StrictPolicy: tolerance 0.005; all four allowances off.
func StrictPolicy() Policy {
	return Policy{MatchRelTol: DefaultMatchRelTol, Allow: map[Allowance]bool{
		AllowQuestionEcho:    false,
		AllowOrdinal:         false,
		AllowWindowTimestamp: false,
		AllowIdentifier:      false,
	}}
}

// DefaultMatchRelTol is both policies' relative tolerance: it admits
// honest rounding to three significant digits ($7.8 for 781 cents) and
// rejects a wrong one ($8 for 781 cents).
const DefaultMatchRelTol = 0.005

// Allowances returns the four allowances in the order Check tries them.
func Allowances() []Allowance {
	a := allowanceOrder
	return a[:]
}

// Found is one numeral found in a text.
type Found struct {
	Text  string  `json:"text"`  // as written, e.g. "$3.49", "twelve", "12-15"
	Value float64 `json:"value"` // normalised; a range is reported as two Founds
	Unit  Unit    `json:"unit"`
	Start int     `json:"-"` // byte offsets in the text
	End   int     `json:"-"`
}

// Extract returns every numeral in text, in order.
func Extract(text string) []Found {
	ns := extract(text)
	out := make([]Found, len(ns))
	for i, n := range ns {
		out[i] = n.Found
	}
	return out
}

// Verdict is the checker's decision.
type Verdict string

// The verdicts.
const (
	Pass   Verdict = "PASS"
	Refuse Verdict = "REFUSE"
)

// Unmatched is a numeral nothing backed.
type Unmatched struct {
	Text  string  `json:"text"`
	Value float64 `json:"value"`
	Unit  Unit    `json:"unit"`
}

// Report is the result of a Check.
type Report struct {
	Verdict       Verdict           `json:"verdict"`
	NumeralsTotal int               `json:"numerals_total"`
	Unmatched     []Unmatched       `json:"unmatched"`      // never nil
	AllowanceHits map[Allowance]int `json:"allowance_hits"` // all four keys, always
}

// Check grounds text against ledger under policy; question is the text the
// answer replies to (for the question-echo allowance).
func Check(text string, ledger Ledger, question string, p Policy) Report {
	_, r := ground(text, ledger, question, p, false)
	return r
}
