package repair

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/provenant/provenant/answer"
)

// Retry bounds: the loop makes at most MaxRetries repair attempts after
// the first proposal; DefaultRetries is the surfaces' default.
const (
	MaxRetries     = 3
	DefaultRetries = 2
)

// Errors the parsers return. They never echo the rejected text.
var (
	// ErrClass: the text is not a failure class.
	ErrClass = errors.New("not a failure class")
	// ErrRetries: the text is not an integer from 0 to MaxRetries.
	ErrRetries = errors.New("want an integer from 0 to 3")
)

// Classes returns the closed set of failure classes (answer.FailureClasses).
func Classes() []answer.ReasonKind { return slices.Clone(answer.FailureClasses) }

// IsClass reports whether k is a failure class.
func IsClass(k answer.ReasonKind) bool { return slices.Contains(answer.FailureClasses, k) }

// ParseClass reads a failure class name, exactly as it is written.
func ParseClass(s string) (answer.ReasonKind, error) {
	k := answer.ReasonKind(s)
	if !IsClass(k) {
		return "", fmt.Errorf("parse class: %w", ErrClass)
	}
	return k, nil
}

// ParseRetries reads a retry bound: a decimal integer from 0 (the loop
// off) to MaxRetries, with no sign, space or leading zero.
func ParseRetries(s string) (int, error) {
	if len(s) != 1 || s[0] < '0' || s[0] > '0'+MaxRetries {
		return 0, fmt.Errorf("parse retries: %w", ErrRetries)
	}
	return int(s[0] - '0'), nil
}

// Domain is the closed range a metric's values lie in; a nil bound is
// absent.
type Domain struct {
	Min, Max *float64
}

// Bounded reports whether both bounds are present.
func (d Domain) Bounded() bool { return d.Min != nil && d.Max != nil }

// Policy configures the history band.
type Policy struct {
	// MinHistory is how many history points a metric needs before its
	// band is checked; fewer, and only the domain is.
	MinHistory int
	// Widen widens the p1..p99 band on each side by this multiple of its
	// width (0: the band itself).
	Widen float64
}

// DefaultPolicy is 8 history points and a band widened by half its width
// on each side.
func DefaultPolicy() Policy { return Policy{MinHistory: 8, Widen: 0.5} }

// Finding is what Check found.
type Finding int

// The findings.
const (
	// Plausible: every value is within the domain and, when the band was
	// checked, within the band.
	Plausible Finding = iota
	// OutOfDomain: a value lies outside the declared domain. Never ships.
	OutOfDomain
	// OutOfBand: a value lies outside the widened band of the history.
	OutOfBand
)

// String names the finding.
func (f Finding) String() string {
	switch f {
	case OutOfDomain:
		return "out_of_domain"
	case OutOfBand:
		return "out_of_band"
	}
	return "plausible"
}

// Verdict is Check's result.
type Verdict struct {
	Finding Finding
	// Lo and Hi are the widened band, when it was checked.
	Lo, Hi float64
	Banded bool
	// Detail says which bound failed, never the value.
	Detail string
}

// Class is the failure class of a verdict that is not Plausible:
// implausible_magnitude; "" otherwise.
func (v Verdict) Class() answer.ReasonKind {
	if v.Finding == Plausible {
		return ""
	}
	return answer.ReasonImplausibleMagnitude
}

// Check judges values (a metric table's value column; NaN and infinities
// are out of any domain) against the domain, then, for a metric with a
// side unbounded and at least p.MinHistory finite history points, against
// the widened p1..p99 band of the history. The first failing value
// decides.
func Check(values []float64, d Domain, history []float64, p Policy) Verdict {
	for _, v := range values {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return Verdict{Finding: OutOfDomain, Detail: "a value is not a finite number"}
		case d.Min != nil && v < *d.Min:
			return Verdict{Finding: OutOfDomain, Detail: "a value is below the metric's declared minimum " + num(*d.Min)}
		case d.Max != nil && v > *d.Max:
			return Verdict{Finding: OutOfDomain, Detail: "a value is above the metric's declared maximum " + num(*d.Max)}
		}
	}
	if d.Bounded() {
		return Verdict{}
	}
	var h []float64
	for _, x := range history {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			h = append(h, x)
		}
	}
	if len(h) == 0 || len(h) < p.MinHistory {
		return Verdict{}
	}
	lo, hi := Band(h, p.Widen)
	out := Verdict{Lo: lo, Hi: hi, Banded: true}
	for _, v := range values {
		if v < lo || v > hi {
			out.Finding = OutOfBand
			out.Detail = "a value lies outside the band of the metric's own history"
			return out
		}
	}
	return out
}

// Band returns the p1..p99 band of history (linear interpolation between
// order statistics) widened on each side by widen times its width.
// history must not be empty.
func Band(history []float64, widen float64) (lo, hi float64) {
	s := slices.Clone(history)
	sort.Float64s(s)
	p1, p99 := quantile(s, 0.01), quantile(s, 0.99)
	w := (p99 - p1) * widen
	return p1 - w, p99 + w
}

// quantile is the q-quantile of sorted s by linear interpolation.
func quantile(s []float64, q float64) float64 {
	pos := q * float64(len(s)-1)
	i := int(math.Floor(pos))
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	f := pos - float64(i)
	return s[i] + f*(s[i+1]-s[i])
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Failure is what a repair message is built from.
type Failure struct {
	Class answer.ReasonKind
	// Detail says what failed (a rejection's detail), never a secret.
	Detail string
	// Selection is the failing call as the model proposed it (JSON), or
	// SQL the failing statement.
	Selection string
	SQL       string
	// Snippet is the catalog's declaration of the metric (or, for free
	// SQL, the allowlisted tables); Definition the metric's one-sentence
	// definition.
	Snippet    string
	Definition string
}

// MaxPart bounds each part of a message, in bytes.
const MaxPart = 4096

// ErrFailure: a failure without a class from the closed set.
var ErrFailure = errors.New("repair failure has no failure class")

// Message writes the repair message for f: the class, what failed, the
// failing selection or SQL, the catalog snippet and the definition, each
// redacted and bounded to MaxPart bytes.
func Message(f Failure) (string, error) {
	if !IsClass(f.Class) {
		return "", fmt.Errorf("build repair message: %w", ErrFailure)
	}
	var b strings.Builder
	b.WriteString("Your previous proposal failed verification with failure class " + string(f.Class) + ": " + hint(f.Class) + "\n")
	part := func(label, s string) {
		if s = strings.TrimSpace(s); s != "" {
			b.WriteString(label + ":\n" + clip(Redact(s)) + "\n")
		}
	}
	part("What failed", f.Detail)
	part("Failing selection", f.Selection)
	part("Failing SQL", f.SQL)
	part("Catalog", f.Snippet)
	part("Metric definition", f.Definition)
	b.WriteString("Propose a corrected call from the same menu, or abstain if the question cannot be answered.")
	return b.String(), nil
}

// hint says what a class usually means.
func hint(c answer.ReasonKind) string {
	switch c {
	case answer.ReasonSQLError:
		return "the query failed while it ran."
	case answer.ReasonEmptyResult:
		return "the query returned no row or no value; check the window, the filters and the dimensions."
	case answer.ReasonBudgetExceeded:
		return "the query exceeded a limit; narrow the window or the grouping."
	case answer.ReasonPermissionDenied:
		return "the query asked for something outside the caller's permissions."
	case answer.ReasonSchemaViolation:
		return "the call does not fit the declared schema (a metric, dimension, grain or column that is not declared or not allowed)."
	}
	return "the value is implausible for the metric (outside its declared domain or its history); check the metric, the window and the dimensions."
}

// secretRE matches credential-shaped text.
var secretRE = regexp.MustCompile(`(?i)` +
	`\bsk-[a-z0-9_\-]{6,}` + // API keys
	`|\bbearer\s+[a-z0-9._\-~+/=]{6,}` +
	`|(?:\b(?:api[_-]?key|access[_-]?key|secret|password|passwd|pwd|token|authorization)\b\s*[:=]\s*)+(?:bearer\s+)?(?:"[^"]*"|'[^']*'|[^\s,;&)\]}]+)` +
	`|://[^/\s:@]+:[^/\s@]+@`) // user:password@ in a DSN

// Redact replaces every credential-shaped run of s with [redacted].
func Redact(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return secretRE.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "://") {
			return "://[redacted]@"
		}
		return "[redacted]"
	})
}

func clip(s string) string {
	if len(s) <= MaxPart {
		return s
	}
	cut := MaxPart
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Advise builds the repair advice a client that proposed the failing call
// itself receives: the class, its hint, what failed, the failing
// selection by its declared names (sel, never the client's raw input),
// the catalog snippet and the definition, and the message a provider
// would be shown for the same failure, written by Message with sel as the
// selection and no SQL: a client's rejected statement is never echoed.
// Every part is redacted and bounded as Message's are.
func Advise(f Failure, sel answer.Selection) (answer.Advice, error) {
	if !IsClass(f.Class) {
		return answer.Advice{}, fmt.Errorf("build repair advice: %w", ErrFailure)
	}
	safe := Failure{Class: f.Class, Detail: f.Detail, Snippet: f.Snippet, Definition: f.Definition}
	if b, err := json.Marshal(sel); err == nil && sel.Tool != "" {
		safe.Selection = string(b)
	}
	msg, err := Message(safe)
	if err != nil {
		return answer.Advice{}, fmt.Errorf("build repair advice: %w", err)
	}
	part := func(s string) string { return clip(Redact(strings.TrimSpace(s))) }
	return answer.Advice{
		Class: f.Class, Hint: hint(f.Class), Detail: part(f.Detail), Selection: sel,
		Catalog: part(f.Snippet), Definition: part(f.Definition), Message: msg,
	}, nil
}

// TablesSnippet is the catalog snippet of a free SQL failure: the tables a
// statement may read.
func TablesSnippet(tables []string) string {
	if len(tables) == 0 {
		return ""
	}
	return "allowlisted tables: " + strings.Join(tables, ", ")
}

// StatementDetail says what the sandbox refused of a free SQL statement
// and where, never its text: kind (the sandbox's rejection kind), layer,
// and, when position is at least 0, the byte offset.
func StatementDetail(kind, layer string, position int) string {
	d := "the sandbox stopped the statement: " + strings.ReplaceAll(kind, "_", " ") + " at layer " + layer
	if position >= 0 {
		d += " (byte " + strconv.Itoa(position) + ")"
	}
	return d
}
