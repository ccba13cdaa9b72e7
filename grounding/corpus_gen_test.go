package grounding_test

// This file is the regression corpus's source. With -update it rewrites
// testdata/corpus.jsonl; without it, TestCorpusGenerated checks that the
// committed file is exactly what the generator produces now, so a hand
// edit of the corpus or a drift in the generator fails.
//
// Templates are written as marked text: every numeral the answer cites is
// wrapped in braces, {13} or {$7.81}; an unlogged numeral is {!14}, an
// ordinal list index is {#1.}. The generator strips the marks, and before
// it writes an item it checks the item against its own small model of the
// issue's semantics (a model of labels, not a second checker: it reads the
// marks, never the free text):
//
//   - outside the marks, text and question hold no digit and no number word,
//     so no numeral escapes the labelling;
//   - in a grounded item every mark is backed: by a ledger numeral of the
//     same quantity within 0.4% (inside the 0.5% tolerance with margin)
//     of which it is the honest rounding (half away from zero, to the
//     place the mark is written to),
//     by the same text in the question, by being an ordinal list index, or
//     (timestamps and dates) by lying strictly inside a ledger window;
//   - in a fabricated item every unlogged mark is backed by nothing: at
//     least 0.6% from every ledger numeral of its quantity, and, unless the
//     item is a unit swap whose point is the equal digits, at least 0.6%
//     from every ledger numeral under any of the scalings 1, 100, 1/100
//     regardless of unit, unless the only reading that comes close is a
//     dishonest rounding (a kind in roundingKinds) or, for a scaled
//     count against a count, the digits before the scale word
//     (scaleKinds); far from every numeral of the question; a
//     timestamp or date more than an hour outside every window and ledger
//     instant; an identifier absent from the ledger and the question.
//
// Random draws come from a named stream (math/rand/v2 PCG seeded with a
// fixed seed and a hash of the stream's name). A draw that breaks a rule
// above is redrawn, so the output is deterministic and always labelled
// right by construction.

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/provenant/provenant/grounding"
)

const (
	corpusEach   = 126 // items of each label
	corpusPath   = "testdata/corpus.jsonl"
	corpusSeed   = 20260104
	corpusStream = "grounding/corpus/v1"
)

// The -update flag may already be registered by another test file of this
// test binary; register it only when it is not.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files (here: testdata/corpus.jsonl from the generator)")
	}
}

func updateFlag() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

func TestCorpusGenerated(t *testing.T) {
	got, err := generateCorpus()
	if err != nil {
		t.Fatal(err)
	}
	if updateFlag() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(corpusPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", corpusPath, len(got))
		return
	}
	want, err := os.ReadFile(corpusPath)
	if err != nil {
		t.Fatalf("%v (run go test ./grounding -run TestCorpusGenerated -update)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := 0; i < min(len(gl), len(wl)); i++ {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("%s differs from the generator at line %d:\n got  %s\n file %s\n(run with -update if the generator change is intended)", corpusPath, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s differs from the generator: %d lines generated, %d in the file", corpusPath, len(gl), len(wl))
	}
}

// ---- output format ----

type genNumeral struct {
	Value  *float64 `json:"value,omitempty"`
	Unit   string   `json:"unit,omitempty"`
	ID     string   `json:"id,omitempty"`
	Window []string `json:"window,omitempty"`
}

type genLedger struct {
	Numerals []genNumeral `json:"numerals"`
}

type genItem struct {
	ID       string    `json:"id"`
	Label    string    `json:"label"`
	Question string    `json:"question"`
	Text     string    `json:"text"`
	Ledger   genLedger `json:"ledger"`
	Unlogged []string  `json:"unlogged"`
	Kind     string    `json:"kind"`
	Note     string    `json:"note"`
}

// ---- ledger entries ----

func val(v float64, unit string) genNumeral { return genNumeral{Value: &v, Unit: unit} }
func lCount(v float64) genNumeral           { return val(v, "count") }
func lCents(v float64) genNumeral           { return val(v, "cents") }
func lUSD(v float64) genNumeral             { return val(v, "usd") }
func lEUR(v float64) genNumeral             { return val(v, "eur") }
func lGBP(v float64) genNumeral             { return val(v, "gbp") }
func lRatio(v float64) genNumeral           { return val(v, "ratio") }
func lPercent(v float64) genNumeral         { return val(v, "percent") }
func lTS(ts string) genNumeral              { return val(float64(unixOf(ts)), "timestamp") }
func lDate(d string) genNumeral             { return val(float64(unixOf(d)), "date") }
func lWindow(a, b string) genNumeral        { return genNumeral{Unit: "timestamp", Window: []string{a, b}} }
func lIDs(ids ...string) []genNumeral {
	var out []genNumeral
	for _, s := range ids {
		out = append(out, genNumeral{Unit: "id", ID: s})
	}
	return out
}

// asOfEntries is what the engine records for an as-of call: the instant,
// and a window holding only it.
func asOfEntries(ts string) []genNumeral { return []genNumeral{lTS(ts), lWindow(ts, ts)} }

// windowEntries is what the engine records for a [start, end) call.
func windowEntries(a, b string) []genNumeral { return []genNumeral{lTS(a), lTS(b), lWindow(a, b)} }

func unixOf(s string) int64 {
	layout := time.RFC3339
	if len(s) == len("2006-01-02") {
		layout = time.DateOnly
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		panic(fmt.Sprintf("bad instant %q in a template", s))
	}
	return t.Unix()
}

func ledger(parts ...any) []genNumeral {
	var out []genNumeral
	for _, p := range parts {
		switch p := p.(type) {
		case genNumeral:
			out = append(out, p)
		case []genNumeral:
			out = append(out, p...)
		default:
			panic(fmt.Sprintf("ledger part %T", p))
		}
	}
	return out
}

// ---- marks and formatting ----

func m(s string) string   { return "{" + s + "}" }
func bad(s string) string { return "{!" + s + "}" }
func ord(s string) string { return "{#" + s + "}" }
func mi(n int) string     { return m(strconv.Itoa(n)) }

var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}

func word(n int) string { return numberWords[n] }
func capWord(n int) string {
	w := numberWords[n]
	return strings.ToUpper(w[:1]) + w[1:]
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// dollars writes cents as 7.81 or 1,234.50 (no symbol).
func dollars(c int) string { return fmt.Sprintf("%s.%02d", thousands(c/100), c%100) }

// idList marks ids and joins them: "a, b and c" (style 0), "a, b, c" (1),
// "a, b, and c" (2).
func idList(ids []string, style int) string {
	ms := make([]string, len(ids))
	for i, s := range ids {
		ms[i] = m(s)
	}
	if len(ms) == 1 {
		return ms[0]
	}
	switch style {
	case 1:
		return strings.Join(ms, ", ")
	case 2:
		if len(ms) == 2 {
			return ms[0] + " and " + ms[1]
		}
		return strings.Join(ms[:len(ms)-1], ", ") + ", and " + ms[len(ms)-1]
	}
	return strings.Join(ms[:len(ms)-1], ", ") + " and " + ms[len(ms)-1]
}

func pctText(r float64, decimals int) string {
	return strconv.FormatFloat(r*100, 'f', decimals, 64)
}

// ---- random draws ----

type gen struct{ r *rand.Rand }

func (g *gen) in(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

func (g *gen) pick(ss ...string) string { return ss[g.r.IntN(len(ss))] }

func (g *gen) distinct(k, lo, hi int) []int {
	p := g.r.Perm(hi - lo + 1)[:k]
	out := make([]int, k)
	for i, x := range p {
		out[i] = lo + x
	}
	slices.Sort(out)
	return out
}

func (g *gen) stores(k int) []string {
	var out []string
	for _, n := range g.distinct(k, 1, 24) {
		out = append(out, fmt.Sprintf("st-%03d", n))
	}
	return out
}

func (g *gen) store() string { return g.stores(1)[0] }

func (g *gen) products(k int) []string {
	var out []string
	for _, n := range g.distinct(k, 1, 36) {
		out = append(out, fmt.Sprintf("pr-%03d", n))
	}
	return out
}

func (g *gen) product() string { return g.products(1)[0] }

func (g *gen) events(k int) []string {
	var out []string
	for _, n := range g.distinct(k, 1, 4000) {
		out = append(out, fmt.Sprintf("evt-%06d", n))
	}
	return out
}

func ts(day, hour, minute int) string {
	return fmt.Sprintf("2026-01-%02dT%02d:%02d:00Z", day, hour, minute)
}

func date(day int) string { return fmt.Sprintf("2026-01-%02d", day) }

func (g *gen) asOf() string {
	return ts(g.in(2, 7), []int{6, 8, 9, 12, 15, 18, 20}[g.r.IntN(7)], 0)
}

// window returns a [start, end) span of whole days inside the demo week.
func (g *gen) window() (start, end string, d0, d1 int) {
	d0 = g.in(1, 3)
	d1 = d0 + g.in(3, 4)
	return ts(d0, 0, 0), ts(d1, 0, 0), d0, d1
}

func (g *gen) cond() string {
	return g.pick("OUT_OF_STOCK", "LOW_STOCK", "PRICE_MISMATCH", "EXPIRED", "NON_COMPLIANT")
}

func (g *gen) state() string { return g.pick("OUT_OF_STOCK", "LOW_STOCK", "OVERSTOCK", "IN_STOCK") }

func (g *gen) price() int { return g.in(99, 1999) }

// ---- templates ----

type spec struct {
	q, text string
	ledger  []genNumeral
	note    string
}

// redraw is what a template returns when the draw cannot make the variant
// (a transposition that changes nothing, say): the generator draws again.
var redraw = spec{note: "\x00redraw"}

type template struct {
	label string // grounded | fabricated
	kind  string
	n     int
	gen   func(g *gen, v int) spec
}

// swapKinds are fabricated kinds whose unlogged numeral deliberately has the
// digits of a ledger numeral in another unit.
var swapKinds = map[string]bool{"unit_swap": true, "percent_count": true, "wrong_currency": true}

// roundingKinds are fabricated kinds whose unlogged numeral is close to a
// ledger numeral but no honest rounding of it.
var roundingKinds = map[string]bool{"dishonest_rounding": true}

// scaleKinds are fabricated kinds whose unlogged numeral has a ledger
// count's digits before a scale word ("9 hundred" against 9).
var scaleKinds = map[string]bool{"scale_word": true}

func generateCorpus() ([]byte, error) {
	h := fnv.New64a()
	h.Write([]byte(corpusStream))
	g := &gen{r: rand.New(rand.NewPCG(corpusSeed, h.Sum64()))}
	var items []genItem
	counts := map[string]int{}
	for _, tp := range corpusTemplates() {
		for v := 0; v < tp.n; v++ {
			var it genItem
			var lastErr error
			ok := false
			for try := 0; try < 200 && !ok; try++ {
				s := tp.gen(g, v)
				it, lastErr = buildItem(tp, s)
				ok = lastErr == nil
			}
			if !ok {
				return nil, fmt.Errorf("template %s/%s variant %d: %v", tp.label, tp.kind, v, lastErr)
			}
			counts[tp.label]++
			prefix := "g"
			if tp.label == "fabricated" {
				prefix = "f"
			}
			it.ID = fmt.Sprintf("%s-%03d", prefix, counts[tp.label])
			items = append(items, it)
		}
	}
	if counts["grounded"] != corpusEach || counts["fabricated"] != corpusEach {
		return nil, fmt.Errorf("generated %d grounded and %d fabricated items, want %d each", counts["grounded"], counts["fabricated"], corpusEach)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// ---- the label model ----

type mark struct {
	text  string
	flag  byte // 0 backed, '!' unlogged, '#' ordinal
	start int  // byte offset in the stripped text
}

var markRe = regexp.MustCompile(`\{([!#]?)([^{}]+)\}`)

func strip(marked string) (string, []mark, error) {
	var b strings.Builder
	var ms []mark
	last := 0
	for _, loc := range markRe.FindAllStringSubmatchIndex(marked, -1) {
		b.WriteString(marked[last:loc[0]])
		mk := mark{text: marked[loc[4]:loc[5]], start: b.Len()}
		if loc[3] > loc[2] {
			mk.flag = marked[loc[2]]
		}
		b.WriteString(mk.text)
		ms = append(ms, mk)
		last = loc[1]
	}
	b.WriteString(marked[last:])
	out := b.String()
	if strings.ContainsAny(out, "{}") {
		return "", nil, fmt.Errorf("unbalanced mark in %q", marked)
	}
	// Nothing outside the marks may look like a numeral.
	var rest strings.Builder
	prev := 0
	for _, mk := range ms {
		rest.WriteString(out[prev:mk.start])
		rest.WriteString(" ")
		prev = mk.start + len(mk.text)
	}
	rest.WriteString(out[prev:])
	if w := strayNumeral(rest.String()); w != "" {
		return "", nil, fmt.Errorf("unmarked numeral %q in %q", w, out)
	}
	return out, ms, nil
}

var strayWords = map[string]bool{"dozen": true, "hundred": true, "thousand": true, "million": true, "billion": true,
	"trillion": true, "lakh": true, "crore": true,
	"half": true, "twice": true, "first": true, "second": true, "third": true, "fourth": true, "fifth": true,
	"sixth": true, "seventh": true, "eighth": true, "ninth": true, "tenth": true}

func strayNumeral(s string) string {
	if i := strings.IndexFunc(s, func(r rune) bool { _, ok := digitOf(r); return ok }); i >= 0 {
		return s[max(0, i-10):min(len(s), i+10)]
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	}) {
		if slices.Contains(numberWords, w) || strayWords[w] {
			return w
		}
	}
	return ""
}

// qty is a mark or a ledger numeral as the label model sees it.
type qty struct {
	class string  // count, usd, eur, gbp (money in minor units), ratio, time, date, id, ordinal
	v     float64 // in the class's canonical unit
	raw   float64 // the number as written (mark) or stored (ledger)
	id    string
	// place is what a mark is written to in the class's canonical unit
	// (1 cent for "$7.81", 1e7 cents for "$1.2M"), rawPlace the same in
	// the written number's own unit; 0 for a ledger numeral.
	place, rawPlace float64
}

// digitOf returns the value of a decimal digit of any script (its
// distance from the start of its run of Nd code points, modulo ten) or
// of a superscript digit.
func digitOf(r rune) (int, bool) {
	if i := slices.Index(grounding.Superscripts, r); i >= 0 {
		return i, true
	}
	if !unicode.IsDigit(r) {
		return 0, false
	}
	z := r
	for unicode.IsDigit(z - 1) {
		z--
	}
	return int(r-z) % 10, true
}

// asciiDigits writes every digit of s in ASCII.
func asciiDigits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if d, ok := digitOf(r); ok {
			b.WriteByte(byte('0' + d))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markScales are the scale words and suffixes a mark may end with; the
// single letters m and B multiply money only.
var markScales = []struct {
	suffix string
	m      float64
	money  bool
}{
	{" hundred", 1e2, false}, {" thousand", 1e3, false}, {" million", 1e6, false}, {" billion", 1e9, false},
	{" dozen", 12, false}, {" lakh", 1e5, false}, {" crore", 1e7, false},
	{"mn", 1e6, false}, {"bn", 1e9, false}, {"k", 1e3, false}, {"K", 1e3, false}, {"M", 1e6, false},
	{"m", 1e6, true}, {"B", 1e9, true},
}

// placeOf is the place a number literal (digits, a fraction, an
// exponent, or a number word) is written to: 10^-k for k decimals, else
// 10 to the integer's trailing zeros.
func placeOf(body string, v float64) float64 {
	exp := 0
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		exp, _ = strconv.Atoi(body[i+1:])
		body = body[:i]
	}
	if i := strings.IndexByte(body, '.'); i >= 0 {
		return math.Pow10(exp - (len(body) - i - 1))
	}
	if !strings.ContainsAny(body, "0123456789") { // a number word
		body = strconv.Itoa(int(v))
	}
	z := 0
	digits := strings.TrimLeft(strings.ReplaceAll(strings.TrimPrefix(body, "-"), ",", ""), "0")
	for strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		z++
	}
	return math.Pow10(exp + z)
}

// honestOf reports whether a mark is an honest rounding of ledger value
// lv (in the mark's canonical unit): lv rounded half away from zero to
// the mark's place is the mark.
func honestOf(q qty, lv float64) bool {
	if q.place == 0 {
		return true
	}
	return halfAway(lv/q.place) == math.Round(q.v/q.place)
}

func halfAway(x float64) float64 {
	return math.Copysign(math.Floor(math.Abs(x)+0.5+1e-9), x)
}

var (
	idRe      = regexp.MustCompile(`^[a-z]{2,4}-\d{3,6}$`)
	tsRe      = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)
	dateRe    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	numRe     = regexp.MustCompile(`^-?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?(e-?\d+)?$`)
	ordinalRe = regexp.MustCompile(`^(\d+[.)]|\d+(st|nd|rd|th))$`)
)

func parseMark(s string) (qty, error) {
	switch {
	case idRe.MatchString(s):
		return qty{class: "id", id: s}, nil
	case tsRe.MatchString(s):
		return qty{class: "time", v: float64(unixOf(s))}, nil
	case dateRe.MatchString(s):
		return qty{class: "date", v: float64(unixOf(s))}, nil
	}
	unit, body := "", asciiDigits(s)
	for _, a := range []struct{ affix, unit string }{
		{"$", "usd"}, {"€", "eur"}, {"£", "gbp"}, {"USD ", "usd"}, {"EUR ", "eur"}, {"GBP ", "gbp"},
	} {
		if strings.HasPrefix(body, a.affix) {
			unit, body = a.unit, strings.TrimPrefix(body, a.affix)
		}
	}
	for _, a := range []struct{ affix, unit string }{
		{" USD", "usd"}, {" dollars", "usd"}, {" cents", "cents"}, {" EUR", "eur"}, {" euros", "eur"},
		{" GBP", "gbp"}, {" pounds", "gbp"}, {"%", "percent"}, {" percent", "percent"},
	} {
		if strings.HasSuffix(body, a.affix) {
			if unit != "" {
				return qty{}, fmt.Errorf("two units in %q", s)
			}
			unit, body = a.unit, strings.TrimSuffix(body, a.affix)
		}
	}
	mult := 1.0
	for _, sc := range markScales {
		if strings.HasSuffix(body, sc.suffix) && len(body) > len(sc.suffix) {
			if sc.money && unit != "usd" && unit != "eur" && unit != "gbp" {
				continue
			}
			mult, body = sc.m, strings.TrimSuffix(body, sc.suffix)
			break
		}
	}
	if strings.HasSuffix(body, " m") && unit == "" { // metres: no multiplier
		body = strings.TrimSuffix(body, " m")
	}
	var x float64
	if i := slices.Index(numberWords, strings.ToLower(body)); i >= 0 {
		x = float64(i)
	} else if numRe.MatchString(body) {
		var err error
		if x, err = strconv.ParseFloat(strings.ReplaceAll(body, ",", ""), 64); err != nil {
			return qty{}, err
		}
	} else {
		return qty{}, fmt.Errorf("mark %q is not a numeral the label model knows", s)
	}
	q := canon(x*mult, unit)
	q.rawPlace = placeOf(body, x) * mult
	q.place = q.rawPlace
	switch unit {
	case "usd", "eur", "gbp":
		q.place *= 100
	case "percent":
		q.place /= 100
	}
	return q, nil
}

func canon(x float64, unit string) qty {
	q := qty{raw: x, v: x}
	switch unit {
	case "usd":
		q.class, q.v = "usd", x*100
	case "cents":
		q.class = "usd"
	case "eur":
		q.class, q.v = "eur", x*100
	case "gbp":
		q.class, q.v = "gbp", x*100
	case "percent":
		q.class, q.v = "ratio", x/100
	case "ratio":
		q.class = "ratio"
	default:
		q.class = "count"
	}
	return q
}

func ledgerQty(n genNumeral) (qty, bool) {
	switch {
	case n.Unit == "id":
		return qty{class: "id", id: n.ID}, true
	case n.Value == nil:
		return qty{}, false
	case n.Unit == "timestamp":
		return qty{class: "time", v: *n.Value}, true
	case n.Unit == "date":
		return qty{class: "date", v: *n.Value}, true
	}
	return canon(*n.Value, n.Unit), true
}

func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

const (
	groundedMaxRel   = 0.004
	fabricatedMinRel = 0.006
	hour             = 3600.0
	day              = 86400.0
)

type windowSpan struct{ a, b float64 }

func windows(l []genNumeral) []windowSpan {
	var out []windowSpan
	for _, n := range l {
		if len(n.Window) == 2 {
			out = append(out, windowSpan{float64(unixOf(n.Window[0])), float64(unixOf(n.Window[1]))})
		}
	}
	return out
}

// backed reports how a grounded mark is backed, or "" when nothing backs it.
func backed(mk mark, q qty, l []genNumeral, question []mark, startOfLine bool) string {
	if mk.flag == '#' {
		if ordinalRe.MatchString(mk.text) && (startOfLine || !strings.ContainsAny(mk.text, ".)")) {
			return "ordinal"
		}
		return ""
	}
	for _, n := range l {
		lq, ok := ledgerQty(n)
		// A bare number matches a ratio through its value (0.12 for 12%).
		if !ok || (lq.class != q.class && !(q.class == "count" && lq.class == "ratio")) {
			continue
		}
		switch q.class {
		case "id":
			if lq.id == q.id {
				return "ledger"
			}
		case "time", "date":
			if lq.v == q.v {
				return "ledger"
			}
		default:
			if relDiff(lq.v, q.v) <= groundedMaxRel && honestOf(q, lq.v) {
				return "ledger"
			}
		}
	}
	for _, qm := range question {
		if qm.text == mk.text {
			return "echo"
		}
	}
	for _, w := range windows(l) {
		if q.class == "time" && w.a < q.v && q.v < w.b {
			return "window"
		}
		if q.class == "date" && w.a < q.v && q.v+day < w.b {
			return "window"
		}
	}
	return ""
}

// unbacked checks that an unlogged mark is backed by nothing, by a margin.
func unbacked(mk mark, q qty, l []genNumeral, question []mark, kind string) error {
	swap := swapKinds[kind]
	if q.class == "ordinal" {
		return fmt.Errorf("an ordinal cannot be unlogged")
	}
	var qs []qty
	for _, qm := range question {
		qq, err := parseMark(qm.text)
		if err != nil {
			return err
		}
		if qm.text == mk.text {
			return fmt.Errorf("%q is echoed from the question", mk.text)
		}
		qs = append(qs, qq)
	}
	var ls []qty
	for _, n := range l {
		if lq, ok := ledgerQty(n); ok {
			ls = append(ls, lq)
		}
	}
	switch q.class {
	case "id":
		for _, o := range append(ls, qs...) {
			if o.class == "id" && o.id == q.id {
				return fmt.Errorf("id %s is in the ledger or the question", q.id)
			}
		}
		return nil
	case "time", "date":
		lo, hi := q.v, q.v
		if q.class == "date" {
			hi = q.v + day
		}
		for _, o := range append(ls, qs...) {
			if o.class != "time" && o.class != "date" {
				continue
			}
			olo, ohi := o.v, o.v
			if o.class == "date" {
				ohi = o.v + day
			}
			if lo <= ohi+hour && olo <= hi+hour {
				return fmt.Errorf("%s is within an hour of a ledger or question instant", mk.text)
			}
		}
		for _, w := range windows(l) {
			if lo <= w.b+hour && w.a <= hi+hour {
				return fmt.Errorf("%s is within an hour of a window", mk.text)
			}
		}
		return nil
	}
	for _, o := range ls {
		sameQty := o.class == q.class || (q.class == "count" && o.class == "ratio")
		if sameQty && relDiff(o.v, q.v) < fabricatedMinRel && (!roundingKinds[kind] || honestOf(q, o.v)) {
			return fmt.Errorf("%s is within tolerance of a ledger numeral", mk.text)
		}
		if swap || o.class == "id" || o.class == "time" || o.class == "date" {
			continue
		}
		for _, s := range []float64{1, 100, 0.01} {
			if scaleKinds[kind] && s != 1 && o.class == "count" && q.class == "count" {
				continue // a count against a count is read in one unit
			}
			if relDiff(o.raw, q.raw*s) < fabricatedMinRel {
				if roundingKinds[kind] && halfAway(o.raw/(q.rawPlace*s)) != math.Round(q.raw/q.rawPlace) {
					continue // close, but no honest rounding of it
				}
				return fmt.Errorf("%s has the digits of ledger numeral %v", mk.text, o.raw)
			}
		}
	}
	for _, o := range qs {
		if o.class == "id" || o.class == "time" || o.class == "date" {
			continue
		}
		for _, s := range []float64{1, 100, 0.01} {
			if relDiff(o.raw, q.raw*s) < fabricatedMinRel {
				return fmt.Errorf("%s is close to question numeral %v", mk.text, o.raw)
			}
		}
	}
	return nil
}

// inlineIndex reports whether an ordinal mark "N." or "N)" inside a line
// is a list index by the issue's rule: 1 after ':', ',' or ';'; the
// previous index plus one when that index is on the same line; or a "1)"
// and "2)" on one line.
func inlineIndex(text string, marks []mark, mk mark) bool {
	if mk.flag != '#' || !strings.ContainsAny(mk.text, ".)") {
		return false
	}
	v, err := strconv.Atoi(mk.text[:len(mk.text)-1])
	if err != nil {
		return false
	}
	before := strings.TrimRight(text[:mk.start], " ")
	if v == 1 && before != "" && strings.ContainsAny(before[len(before)-1:], ":,;") {
		return true
	}
	i := slices.IndexFunc(marks, func(o mark) bool { return o.start == mk.start })
	sameLine := func(o mark) bool {
		a, b := min(o.start, mk.start), max(o.start, mk.start)
		return !strings.Contains(text[a:b], "\n")
	}
	prev := func(j int) (mark, bool) {
		for j--; j >= 0; j-- {
			if marks[j].flag == '#' {
				return marks[j], true
			}
		}
		return mark{}, false
	}
	if p, ok := prev(i); ok && sameLine(p) && strings.ContainsAny(p.text, ".)") && p.text[:len(p.text)-1] == strconv.Itoa(v-1) {
		opens := strings.TrimLeft(text[strings.LastIndexByte(text[:p.start], '\n')+1:p.start], " ") == ""
		return opens || inlineIndex(text, marks, p)
	}
	if v == 1 && strings.HasSuffix(mk.text, ")") {
		for _, o := range marks[i+1:] {
			if o.flag == '#' {
				return o.text == "2)" && sameLine(o)
			}
		}
	}
	return false
}

func buildItem(tp template, s spec) (genItem, error) {
	if s.note == redraw.note {
		return genItem{}, errors.New("the draw does not fit the variant")
	}
	q, qmarks, err := strip(s.q)
	if err != nil {
		return genItem{}, err
	}
	for _, qm := range qmarks {
		if qm.flag != 0 {
			return genItem{}, fmt.Errorf("flagged mark in a question")
		}
		if _, err := parseMark(qm.text); err != nil {
			return genItem{}, err
		}
	}
	text, marks, err := strip(s.text)
	if err != nil {
		return genItem{}, err
	}
	for _, n := range s.ledger {
		if n.Unit == "id" && !idRe.MatchString(n.ID) {
			return genItem{}, fmt.Errorf("bad ledger id %q", n.ID)
		}
	}
	unlogged := []string{}
	for _, mk := range marks {
		var qq qty
		if mk.flag == '#' {
			qq = qty{class: "ordinal"}
		} else if qq, err = parseMark(mk.text); err != nil {
			return genItem{}, err
		}
		lineStart := mk.start == 0 || text[mk.start-1] == '\n'
		if mk.flag == '!' {
			if tp.label != "fabricated" {
				return genItem{}, fmt.Errorf("unlogged mark %q in a grounded template", mk.text)
			}
			if lineStart && strings.ContainsAny(text[mk.start+len(mk.text):min(len(text), mk.start+len(mk.text)+1)], ".)") {
				return genItem{}, fmt.Errorf("unlogged %q looks like a list index", mk.text)
			}
			if err := unbacked(mk, qq, s.ledger, qmarks, tp.kind); err != nil {
				return genItem{}, err
			}
			if !slices.Contains(unlogged, mk.text) {
				unlogged = append(unlogged, mk.text)
			}
			continue
		}
		if backed(mk, qq, s.ledger, qmarks, lineStart || inlineIndex(text, marks, mk)) == "" {
			return genItem{}, fmt.Errorf("mark %q is not backed in %q", mk.text, text)
		}
	}
	if tp.label == "fabricated" && len(unlogged) == 0 {
		return genItem{}, fmt.Errorf("fabricated item without an unlogged numeral: %q", text)
	}
	return genItem{
		Label: tp.label, Question: q, Text: text, Ledger: genLedger{Numerals: s.ledger},
		Unlogged: unlogged, Kind: tp.kind, Note: s.note,
	}, nil
}

// ---- the templates ----

func corpusTemplates() []template {
	return []template{
		// grounded: 100
		{"grounded", "plain", 6, gPlain},
		{"grounded", "spelled", 6, gSpelled},
		{"grounded", "list", 5, gList},
		{"grounded", "money", 9, gMoney},
		{"grounded", "reformatted", 6, gReformatted},
		{"grounded", "percent", 7, gPercent},
		{"grounded", "rounded", 6, gRounded},
		{"grounded", "window", 8, gWindow},
		{"grounded", "window_timestamp", 5, gWindowTS},
		{"grounded", "date", 4, gDate},
		{"grounded", "echo", 7, gEcho},
		{"grounded", "ordinal", 6, gOrdinal},
		{"grounded", "range", 4, gRange},
		{"grounded", "negative", 3, gNegative},
		{"grounded", "identifier", 4, gIdentifier},
		{"grounded", "summary", 4, gSummary},
		{"grounded", "near_round", 2, gNearRound},
		{"grounded", "scientific", 1, gScientific},
		{"grounded", "transposed_pair", 1, gTransposedPair},
		{"grounded", "full_percent", 1, gFullPercent},
		{"grounded", "small_percent", 1, gSmallPercent},
		{"grounded", "zero", 1, gZero},
		{"grounded", "foreign_currency", 2, gForeignCurrency},
		{"grounded", "cents_for_dollars", 1, gCentsForDollars},
		// fabricated: 100
		{"fabricated", "rounding", 10, fRounding},
		{"fabricated", "near_miss", 6, fNearMiss},
		{"fabricated", "unit_swap", 10, fUnitSwap},
		{"fabricated", "transposed", 10, fTransposed},
		{"fabricated", "off_by_one", 10, fOffByOne},
		{"fabricated", "invented", 10, fInvented},
		{"fabricated", "percent_count", 5, fPercentCount},
		{"fabricated", "timestamp_outside", 8, fTimestampOutside},
		{"fabricated", "wrong_id", 8, fWrongID},
		{"fabricated", "derived", 6, fDerived},
		{"fabricated", "wrong_currency", 3, fWrongCurrency},
		{"fabricated", "decimal_shift", 4, fDecimalShift},
		{"fabricated", "range_edge", 3, fRangeEdge},
		{"fabricated", "altered_echo", 3, fAlteredEcho},
		{"fabricated", "buried", 4, fBuried},
		// issue 7, appended so the items above keep their draws: 26 + 26
		{"grounded", "scale_word", 8, gScaleWord},
		{"grounded", "unicode_digits", 6, gUnicodeDigits},
		{"grounded", "honest_rounding", 6, gHonestRounding},
		{"grounded", "inline_list", 6, gInlineList},
		{"fabricated", "scale_word", 8, fScaleWord},
		{"fabricated", "unicode_digits", 7, fUnicodeDigits},
		{"fabricated", "dishonest_rounding", 7, fDishonestRounding},
		{"fabricated", "prose_number", 4, fProseNumber},
	}
}

func qCount(c, at string) string {
	return fmt.Sprintf("How many stores have condition %s as of %s?", c, m(at))
}

func qPrice(p, s, at string) string {
	return fmt.Sprintf("What is the price of %s at %s as of %s?", m(p), m(s), m(at))
}

func qWindow(st, state, a, b string) string {
	return fmt.Sprintf("How many %s scans did %s record between %s and %s?", state, m(st), m(a), m(b))
}

func ratioText(r float64, decimals int) string { return strconv.FormatFloat(r, 'f', decimals, 64) }

// ---- grounded ----

func gPlain(g *gen, v int) spec {
	c, at, n := g.cond(), g.asOf(), g.in(2, 20)
	sts := g.stores(n)
	texts := []string{
		fmt.Sprintf("%s stores have condition %s as of %s.", mi(n), c, m(at)),
		fmt.Sprintf("As of %s, %s stores meet the %s condition.", m(at), mi(n), c),
		fmt.Sprintf("There were %s stores with %s at %s.", mi(n), c, m(at)),
		fmt.Sprintf("%s of the monitored stores showed %s as of %s, judged on each store's latest scan.", mi(n), c, m(at)),
		fmt.Sprintf("The count is %s: that many stores were flagged %s as of %s.", mi(n), c, m(at)),
		fmt.Sprintf("Answer: %s stores (condition %s, as of %s).", mi(n), c, m(at)),
	}
	return spec{qCount(c, at), texts[v], ledger(lCount(float64(n)), asOfEntries(at), lIDs(sts...)),
		fmt.Sprintf("count %d and the as-of instant are in the ledger", n)}
}

func gSpelled(g *gen, v int) spec {
	at := g.asOf()
	switch v {
	case 0:
		n := g.in(3, 5)
		sts := g.stores(n)
		return spec{fmt.Sprintf("Which stores were out of stock as of %s?", m(at)),
			fmt.Sprintf("%s stores were out of stock as of %s: %s.", m(capWord(n)), m(at), idList(sts, 0)),
			ledger(lCount(float64(n)), asOfEntries(at), lIDs(sts...)),
			fmt.Sprintf("capitalised spelled-out count %q for ledger count %d", capWord(n), n)}
	case 1:
		n, st := g.in(4, 12), g.store()
		return spec{fmt.Sprintf("How many products are LOW_STOCK at %s as of %s?", m(st), m(at)),
			fmt.Sprintf("As of %s, %s products are in state LOW_STOCK at %s.", m(at), m(word(n)), m(st)),
			ledger(lCount(float64(n)), lIDs(st), lIDs(g.products(n)...), asOfEntries(at)),
			fmt.Sprintf("spelled-out %q for ledger count %d", word(n), n)}
	case 2:
		n := g.in(13, 20)
		return spec{qCount("PRICE_MISMATCH", at),
			fmt.Sprintf("I found %s stores with PRICE_MISMATCH as of %s.", m(word(n)), m(at)),
			ledger(lCount(float64(n)), asOfEntries(at), lIDs(g.stores(n)...)),
			fmt.Sprintf("spelled-out %q (above ten) for ledger count %d", word(n), n)}
	case 3:
		sts := g.stores(2)
		return spec{fmt.Sprintf("Which stores had EXPIRED products as of %s?", m(at)),
			fmt.Sprintf("Only %s stores, %s and %s, had EXPIRED product scans as of %s.", m("two"), m(sts[0]), m(sts[1]), m(at)),
			ledger(lCount(2), asOfEntries(at), lIDs(sts...)),
			"spelled-out \"two\" for ledger count 2, with both store ids"}
	case 4:
		n := g.in(11, 19)
		return spec{qCount("NON_COMPLIANT", at),
			fmt.Sprintf("%s stores reported NON_COMPLIANT shelves as of %s.", m(capWord(n)), m(at)),
			ledger(lCount(float64(n)), asOfEntries(at), lIDs(g.stores(n)...)),
			fmt.Sprintf("sentence-initial %q for ledger count %d", capWord(n), n)}
	}
	st, k := g.store(), g.in(2, 9)
	a, b, _, _ := g.window()
	return spec{qWindow(st, "OVERSTOCK", a, b),
		fmt.Sprintf("%s recorded %s OVERSTOCK scans between %s and %s.", m(st), m(word(k)), m(a), m(b)),
		ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st), lIDs(g.events(k)...)),
		fmt.Sprintf("spelled-out %q for window count %d; window bounds are ledger instants", word(k), k)}
}

func gList(g *gen, v int) spec {
	at, st := g.asOf(), g.store()
	k := g.in(2, 5)
	prs := g.products(k)
	base := ledger(lCount(float64(k)), lIDs(prs...), lIDs(st), asOfEntries(at))
	qList := func(state string) string {
		return fmt.Sprintf("Which products are in state %s at %s as of %s?", state, m(st), m(at))
	}
	switch v {
	case 0:
		return spec{qList("OUT_OF_STOCK"),
			fmt.Sprintf("%s products are in state OUT_OF_STOCK at %s as of %s: %s.", mi(k), m(st), m(at), idList(prs, 1)),
			base, fmt.Sprintf("the rules sentence for a list of %d products", k)}
	case 1:
		return spec{qList("LOW_STOCK"),
			fmt.Sprintf("At %s, the products showing LOW_STOCK as of %s are %s.", m(st), m(at), idList(prs, 0)),
			base, "a list without a count; every id is in the ledger"}
	case 2:
		var b strings.Builder
		for _, p := range prs {
			b.WriteString("\n* " + m(p))
		}
		return spec{qList("LOW_STOCK"),
			fmt.Sprintf("These %s products were LOW_STOCK at %s as of %s:%s", mi(k), m(st), m(at), b.String()),
			base, "a bulleted list with its length"}
	case 3:
		return spec{qList("OUT_OF_STOCK"),
			fmt.Sprintf("%s has %s products out of stock as of %s (%s).", m(st), mi(k), m(at), idList(prs, 1)),
			base, "count and ids in parentheses"}
	}
	c := g.cond()
	n := g.in(3, 6)
	sts := g.stores(n)
	return spec{fmt.Sprintf("Which stores have condition %s as of %s?", c, m(at)),
		fmt.Sprintf("The %s stores with %s as of %s are %s.", mi(n), c, m(at), idList(sts, 2)),
		ledger(lCount(float64(n)), lIDs(sts...), asOfEntries(at)), "a store list with an Oxford comma"}
}

func gMoney(g *gen, v int) spec {
	at, st, pr, c := g.asOf(), g.store(), g.product(), g.price()
	ev := g.events(1)
	cents := ledger(lCents(float64(c)), lIDs(st, pr), lIDs(ev...), lCount(1), asOfEntries(at))
	usd := ledger(lUSD(float64(c)/100), lIDs(st, pr), asOfEntries(at))
	q := qPrice(pr, st, at)
	switch v {
	case 0:
		return spec{q, fmt.Sprintf("The price of %s at %s as of %s is %s (%s).", m(pr), m(st), m(at), m("$"+dollars(c)), m(fmt.Sprintf("%d cents", c))),
			cents, fmt.Sprintf("the rules sentence: %d cents as dollars and as cents", c)}
	case 1:
		return spec{q, fmt.Sprintf("%s costs %s at %s (as of %s).", m(pr), m("$"+dollars(c)), m(st), m(at)),
			cents, fmt.Sprintf("$%s for ledger %d cents", dollars(c), c)}
	case 2:
		return spec{q, fmt.Sprintf("As of %s, %s lists %s at %s.", m(at), m(st), m(pr), m(dollars(c)+" USD")),
			cents, "trailing currency code USD for a ledger price in cents"}
	case 3:
		return spec{q, fmt.Sprintf("The shelf price for %s in %s was %s as of %s.", m(pr), m(st), m("USD "+dollars(c)), m(at)),
			cents, "leading currency code USD"}
	case 4:
		return spec{q, fmt.Sprintf("%s is priced at %s at %s as of %s.", m(pr), m(fmt.Sprintf("%d cents", c)), m(st), m(at)),
			cents, "the price in cents, as the ledger holds it"}
	case 5:
		return spec{q, fmt.Sprintf("At %s, %s sells for %s as of %s.", m(st), m(pr), m(dollars(c)+" dollars"), m(at)),
			usd, "the word dollars for a ledger price in usd"}
	case 6:
		return spec{q, fmt.Sprintf("%s at %s: %s as of %s.", m(pr), m(st), m(fmt.Sprintf("%d cents", c)), m(at)),
			usd, fmt.Sprintf("%d cents for a ledger price of %s usd: the same quantity", c, dollars(c))}
	case 7:
		sts := g.stores(2)
		c2 := c + g.in(20, 150)
		return spec{fmt.Sprintf("What does %s cost at %s and at %s as of %s?", m(pr), m(sts[0]), m(sts[1]), m(at)),
			fmt.Sprintf("%s is %s at %s and %s at %s as of %s.", m(pr), m("$"+dollars(c)), m(sts[0]), m("$"+dollars(c2)), m(sts[1]), m(at)),
			ledger(lCents(float64(c)), lCents(float64(c2)), lIDs(pr), lIDs(sts...), asOfEntries(at)),
			"two prices from two calls"}
	}
	c = g.in(1000, 2999)
	return spec{q, fmt.Sprintf("Price check: %s at %s is %s as of %s.", m(pr), m(st), m("$"+dollars(c)), m(at)),
		ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)), "a price above ten dollars"}
}

func gReformatted(g *gen, v int) spec {
	a, b, _, _ := g.window()
	n := g.in(1000, 9999)
	win := ledger(lCount(float64(n)), windowEntries(a, b))
	qAll := fmt.Sprintf("How many scans were recorded across all stores between %s and %s?", m(a), m(b))
	switch v {
	case 0:
		return spec{qAll, fmt.Sprintf("The stores recorded %s scans between %s and %s.", m(thousands(n)), m(a), m(b)),
			win, fmt.Sprintf("thousands separator: %s for %d", thousands(n), n)}
	case 1:
		return spec{qAll, fmt.Sprintf("%s scan events were logged across all stores in [%s, %s).", mi(n), m(a), m(b)),
			win, "four digits without a separator"}
	case 2:
		return spec{qAll, fmt.Sprintf("In total, %s shelf scans fall in the window from %s to %s.", m(thousands(n)), m(a), m(b)),
			win, "thousands separator, window bounds as ledger instants"}
	case 3:
		at, st, k, sum := g.asOf(), g.store(), g.in(4, 9), g.in(10000, 99999)
		return spec{fmt.Sprintf("What is the total shelf value of the OVERSTOCK products at %s as of %s?", m(st), m(at)),
			fmt.Sprintf("Summed over its %s OVERSTOCK products, %s carries %s of shelf value as of %s.", mi(k), m(st), m("$"+dollars(sum)), m(at)),
			ledger(lCount(float64(k)), lCents(float64(sum)), lIDs(st), asOfEntries(at)),
			fmt.Sprintf("$%s for %d cents: separator and decimals", dollars(sum), sum)}
	case 4:
		avg := float64(n) / 24
		return spec{qAll, fmt.Sprintf("%s OUT_OF_STOCK scans were logged chain-wide in [%s, %s), or %s per store on average.", m(thousands(n)), m(a), m(b), m(strconv.FormatFloat(avg, 'f', 2, 64))),
			ledger(win, lCount(avg)), fmt.Sprintf("the average %.2f is a ledger value (%v), rounded to two decimals", avg, avg)}
	}
	pr, at, k, sum := g.product(), g.asOf(), g.in(5, 12), g.in(3000, 29999)
	return spec{fmt.Sprintf("What is the summed price of %s over the stores that stock it as of %s?", m(pr), m(at)),
		fmt.Sprintf("The price of %s summed over the %s stores that stock it is %s as of %s.", m(pr), mi(k), m("USD "+dollars(sum)), m(at)),
		ledger(lCount(float64(k)), lCents(float64(sum)), lIDs(pr), asOfEntries(at)),
		"USD code with a thousands separator for a ledger sum in cents"}
}

func gPercent(g *gen, v int) spec {
	at, c := g.asOf(), g.cond()
	n := []int{12, 16, 20, 24, 25}[g.r.IntN(5)]
	if v == 6 {
		n = []int{20, 25}[g.r.IntN(2)]
	}
	k := g.in(2, n-1)
	r := float64(k) / float64(n)
	counts := ledger(lCount(float64(k)), lCount(float64(n)), asOfEntries(at))
	q := fmt.Sprintf("What share of stores have condition %s as of %s?", c, m(at))
	switch v {
	case 0:
		return spec{q, fmt.Sprintf("%s of %s stores (%s) had %s as of %s.", mi(k), mi(n), m(pctText(r, 1)+"%"), c, m(at)),
			ledger(counts, lRatio(r)), fmt.Sprintf("%s%% for ratio %v", pctText(r, 1), r)}
	case 1:
		return spec{q, fmt.Sprintf("As of %s, %s of stores (%s out of %s) report %s.", m(at), m(pctText(r, 1)+"%"), mi(k), mi(n), c),
			ledger(counts, lRatio(r)), "percent first, counts in parentheses"}
	case 2:
		return spec{q, fmt.Sprintf("That is %s of the %s stores: %s had %s as of %s.", m(pctText(r, 2)+" percent"), mi(n), mi(k), c, m(at)),
			ledger(counts, lRatio(r)), "the word percent, two decimals"}
	case 3:
		return spec{q, fmt.Sprintf("The share of stores with %s is %s (%s of %s) as of %s.", c, m(ratioText(r, 3)), mi(k), mi(n), m(at)),
			ledger(counts, lRatio(r)), fmt.Sprintf("the ratio written as a bare decimal %s", ratioText(r, 3))}
	case 4:
		return spec{q, fmt.Sprintf("%s of stores had %s as of %s.", m(pctText(r, 1)+"%"), c, m(at)),
			ledger(counts, lPercent(r*100)), "ledger holds percent, text writes percent"}
	case 5:
		return spec{q, fmt.Sprintf("As of %s, the %s rate across stores is %s.", m(at), c, m(pctText(r, 2)+"%")),
			ledger(counts, lRatio(r)), "two-decimal percent for a ratio"}
	}
	return spec{q, fmt.Sprintf("Roughly %s of stores (%s of %s) had %s as of %s.", m(pctText(r, 0)+"%"), mi(k), mi(n), c, m(at)),
		ledger(counts, lRatio(r)), "a whole percent that is exact"}
}

func gRounded(g *gen, v int) spec {
	a, b, _, _ := g.window()
	q := fmt.Sprintf("On average, how many OUT_OF_STOCK scans did each store log between %s and %s?", m(a), m(b))
	switch v {
	case 0:
		n := g.in(50, 120)
		avg := float64(n) / 24
		return spec{q, fmt.Sprintf("Each store logged %s OUT_OF_STOCK scans on average in [%s, %s).", m(strconv.FormatFloat(avg, 'f', 2, 64)), m(a), m(b)),
			ledger(lCount(avg), lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("%.2f for ledger average %v", avg, avg)}
	case 1:
		avg := []float64{2.5, 3.5, 4.5}[g.r.IntN(3)]
		return spec{q, fmt.Sprintf("That is an average of %s scans per store in the window from %s to %s.", m(strconv.FormatFloat(avg, 'f', 1, 64)), m(a), m(b)),
			ledger(lCount(avg), lCount(avg*24), windowEntries(a, b)), "an average that is in the ledger exactly"}
	case 2:
		pr, at, k := g.product(), g.asOf(), g.in(3, 9)
		sum := 0
		for range k {
			sum += g.price()
		}
		avg := float64(sum) / float64(k)
		return spec{fmt.Sprintf("What is the average price of %s across stores as of %s?", m(pr), m(at)),
			fmt.Sprintf("The average shelf price of %s across %s stores is %s as of %s.", m(pr), mi(k), m("$"+dollars(int(math.Round(avg)))), m(at)),
			ledger(lCount(float64(k)), lCents(avg), lIDs(pr), asOfEntries(at)),
			fmt.Sprintf("$%s for a ledger average of %v cents", dollars(int(math.Round(avg))), avg)}
	case 3:
		n, k := g.in(150, 400), g.in(9, 14)
		avg := float64(n) / float64(k)
		return spec{q, fmt.Sprintf("Across the %s affected stores, that is about %s scans per store.", mi(k), m(strconv.FormatFloat(avg, 'f', 1, 64))),
			ledger(lCount(avg), lCount(float64(k)), lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("one-decimal rounding of %v", avg)}
	case 4:
		n := g.in(40, 300)
		avg := float64(n) / 7
		return spec{fmt.Sprintf("How many LOW_STOCK scans per day were logged chain-wide between %s and %s?", m(a), m(b)),
			fmt.Sprintf("Chain-wide, LOW_STOCK scans averaged %s per day over the window.", m(strconv.FormatFloat(avg, 'f', 2, 64))),
			ledger(lCount(avg), lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("two-decimal rounding of %v", avg)}
	}
	n := g.in(300, 900)
	k := g.in(n/8, n/3)
	r := float64(k) / float64(n)
	return spec{fmt.Sprintf("What fraction of scans between %s and %s were OUT_OF_STOCK?", m(a), m(b)),
		fmt.Sprintf("%s of the scans in the window were OUT_OF_STOCK (%s of %s).", m(pctText(r, 1)+"%"), mi(k), m(thousands(n))),
		ledger(lRatio(r), lCount(float64(k)), lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("%s%% for ratio %v", pctText(r, 1), r)}
}

func gWindow(g *gen, v int) spec {
	st, k := g.store(), g.in(2, 30)
	a, b, d0, d1 := g.window()
	base := ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st))
	switch v {
	case 0:
		state := g.state()
		return spec{qWindow(st, state, a, b),
			fmt.Sprintf("%s scans with state %s were recorded for %s in [%s, %s).", mi(k), state, m(st), m(a), m(b)),
			base, "the rules sentence for a window count"}
	case 1:
		state := g.state()
		return spec{qWindow(st, state, a, b),
			fmt.Sprintf("Between %s and %s, %s logged %s %s scans.", m(a), m(b), m(st), mi(k), state), base, "window first"}
	case 2:
		return spec{qWindow(st, "OUT_OF_STOCK", a, b),
			fmt.Sprintf("%s had %s out-of-stock scans from %s up to %s.", m(st), mi(k), m(a), m(b)), base, "prose window"}
	case 3:
		return spec{qWindow(st, "LOW_STOCK", a, b),
			fmt.Sprintf("In the window %s to %s there were %s LOW_STOCK events at %s.", m(a), m(b), mi(k), m(st)), base, "count after the window"}
	case 4:
		k = g.in(2, 20)
		return spec{qWindow(st, "OVERSTOCK", a, b),
			fmt.Sprintf("%s recorded %s OVERSTOCK scans between %s and %s.", m(st), m(word(k)), m(a), m(b)),
			ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)), "spelled-out window count"}
	case 5:
		state := g.state()
		return spec{qWindow(st, state, a, b),
			fmt.Sprintf("%s events (state %s, store %s, window [%s, %s)).", mi(k), state, m(st), m(a), m(b)), base, "terse parenthesised answer"}
	case 6:
		da, db := date(d0), date(d1)
		return spec{fmt.Sprintf("How many OUT_OF_STOCK scans did %s record from %s to %s?", m(st), m(da), m(db)),
			fmt.Sprintf("From %s to %s, %s recorded %s OUT_OF_STOCK scans.", m(da), m(db), m(st), mi(k)),
			base, "dates echoed from the question; the ledger holds the window as timestamps"}
	}
	days := g.in(2, 6)
	a, b = ts(1, 0, 0), ts(1+days, 0, 0)
	return spec{fmt.Sprintf("How many LOW_STOCK scans did %s log in the opening %s days of January?", m(st), mi(days)),
		fmt.Sprintf("In the opening %s days of January (%s to %s), %s logged %s LOW_STOCK scans.", mi(days), m(a), m(b), m(st), mi(k)),
		ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)),
		fmt.Sprintf("the %d-day span is echoed from the question", days)}
}

// inside returns an instant strictly inside [d0, d1) days, at least an hour
// from either end.
func (g *gen) inside(d0, d1 int) string {
	return ts(g.in(d0, d1-1), g.in(1, 22), 5*g.in(0, 11))
}

func gWindowTS(g *gen, v int) spec {
	st, k := g.store(), g.in(3, 25)
	a, b, d0, d1 := g.window()
	base := ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st))
	t := g.inside(d0, d1)
	switch v {
	case 0:
		return spec{qWindow(st, "OUT_OF_STOCK", a, b),
			fmt.Sprintf("%s logged %s OUT_OF_STOCK scans in [%s, %s); the latest came at %s.", m(st), mi(k), m(a), m(b), m(t)),
			base, fmt.Sprintf("%s is inside the ledger window", t)}
	case 1:
		return spec{qWindow(st, "OUT_OF_STOCK", a, b),
			fmt.Sprintf("%s began showing OUT_OF_STOCK at %s and logged %s such scans before %s.", m(st), m(t), mi(k), m(b)),
			base, "a first-seen instant inside the window"}
	case 2:
		t2 := g.inside(d0, d1)
		for t2 == t {
			t2 = g.inside(d0, d1)
		}
		t1, t2 := min(t, t2), max(t, t2)
		return spec{qWindow(st, "LOW_STOCK", a, b),
			fmt.Sprintf("The %s LOW_STOCK scans at %s ran from %s to %s.", mi(k), m(st), m(t1), m(t2)),
			base, "two instants inside the window, neither a ledger value"}
	case 3:
		ev := g.events(1)[0]
		return spec{qWindow(st, "LOW_STOCK", a, b),
			fmt.Sprintf("Scan %s at %s is the most recent of the %s LOW_STOCK scans %s logged in the window.", m(ev), m(t), mi(k), m(st)),
			ledger(base, lIDs(ev)), "event id in the ledger, its instant inside the window"}
	}
	dd := date(g.in(d0+1, d1-2))
	return spec{qWindow(st, "OUT_OF_STOCK", a, b),
		fmt.Sprintf("%s logged %s OUT_OF_STOCK scans in the window, the most recent on %s.", m(st), mi(k), m(dd)),
		base, fmt.Sprintf("the date %s lies wholly inside the window", dd)}
}

func gDate(g *gen, v int) spec {
	d := g.in(2, 7)
	switch v {
	case 0:
		n := g.in(2, 12)
		return spec{fmt.Sprintf("How many stores had EXPIRED scans on %s?", m(date(d))),
			fmt.Sprintf("On %s, %s stores had EXPIRED scans.", m(date(d)), mi(n)),
			ledger(lCount(float64(n)), lDate(date(d)), lIDs(g.stores(n)...)), "a date in the ledger and in the question"}
	case 1:
		pr, st, c := g.product(), g.store(), g.price()
		return spec{fmt.Sprintf("When did the price of %s at %s last change?", m(pr), m(st)),
			fmt.Sprintf("The last price change for %s at %s was on %s, to %s.", m(pr), m(st), m(date(d)), m("$"+dollars(c))),
			ledger(lDate(date(d)), lCents(float64(c)), lIDs(pr, st)), "a ledger date and a ledger price"}
	case 2:
		st, k := g.store(), g.in(2, 9)
		a, b, d0, d1 := g.window()
		dd := date(g.in(d0+1, d1-2))
		return spec{qWindow(st, "EXPIRED", a, b),
			fmt.Sprintf("%s logged %s EXPIRED scans in that window. All %s of them were logged on %s.", m(st), mi(k), mi(k), m(dd)),
			ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)), "a date inside the window"}
	}
	pr, st := g.product(), g.store()
	return spec{fmt.Sprintf("When was %s last scanned out of stock at %s?", m(pr), m(st)),
		fmt.Sprintf("At %s, %s was last scanned OUT_OF_STOCK on %s.", m(st), m(pr), m(date(d))),
		ledger(lDate(date(d)), lIDs(pr, st)), "a ledger date"}
}

func gEcho(g *gen, v int) spec {
	a, b, _, _ := g.window()
	at := g.asOf()
	switch v {
	case 0:
		th, k := g.in(3, 8), g.in(2, 4)
		sts := g.stores(k)
		return spec{fmt.Sprintf("Which stores had more than %s OUT_OF_STOCK scans between %s and %s?", mi(th), m(a), m(b)),
			fmt.Sprintf("%s stores had more than %s OUT_OF_STOCK scans in that window: %s.", mi(k), mi(th), idList(sts, 0)),
			ledger(lCount(float64(k)), lIDs(sts...), windowEntries(a, b)), fmt.Sprintf("threshold %d is echoed from the question", th)}
	case 1:
		th := g.in(10, 15)
		st, k := g.store(), g.in(th+2, th+9)
		return spec{fmt.Sprintf("Did any store log at least %s OUT_OF_STOCK scans between %s and %s?", mi(th), m(a), m(b)),
			fmt.Sprintf("Yes: %s logged %s, above your threshold of %s.", m(st), mi(k), mi(th)),
			ledger(lCount(float64(k)), lIDs(st), windowEntries(a, b)), "threshold echoed"}
	case 2:
		th := []int{300, 500, 1000}[g.r.IntN(3)]
		pr, st, c := g.product(), g.store(), g.in(th/2, th-20)
		return spec{fmt.Sprintf("Is the price of %s at %s below %s as of %s?", m(pr), m(st), m("$"+dollars(th)), m(at)),
			fmt.Sprintf("Yes. %s costs %s at %s as of %s, which is under %s.", m(pr), m("$"+dollars(c)), m(st), m(at), m("$"+dollars(th))),
			ledger(lCents(float64(c)), lIDs(pr, st), asOfEntries(at)), "a price threshold echoed"}
	case 3:
		days, n := g.in(3, 7), g.in(2, 15)
		t := unixOf(at) - int64(days)*86400
		start := time.Unix(t, 0).UTC().Format(time.RFC3339)
		return spec{fmt.Sprintf("How many stores had LOW_STOCK scans in the %s days before %s?", mi(days), m(at)),
			fmt.Sprintf("In the %s days before %s, %s stores had LOW_STOCK scans.", mi(days), m(at), mi(n)),
			ledger(lCount(float64(n)), windowEntries(start, at)), "day count echoed, instants in the ledger"}
	case 4:
		k := []int{6, 12, 18}[g.r.IntN(3)]
		return spec{fmt.Sprintf("What share of the %s stores were out of stock as of %s?", mi(24), m(at)),
			fmt.Sprintf("%s of the %s stores (%s) were out of stock as of %s.", mi(k), mi(24), m(pctText(float64(k)/24, 0)+"%"), m(at)),
			ledger(lCount(float64(k)), lRatio(float64(k)/24), asOfEntries(at)), "the store total is echoed, not in the ledger"}
	case 5:
		st, k := g.store(), g.in(2, 4)
		prs := g.products(k)
		return spec{fmt.Sprintf("Which products cost more than %s at %s as of %s?", m("1,000 cents"), m(st), m(at)),
			fmt.Sprintf("At %s, %s products cost more than %s as of %s: %s.", m(st), mi(k), m("1,000 cents"), m(at), idList(prs, 0)),
			ledger(lCount(float64(k)), lIDs(prs...), lIDs(st), asOfEntries(at)), "a cents threshold with a separator, echoed"}
	}
	st, th := g.store(), []int{40, 50, 60}[g.r.IntN(3)]
	k := g.in(th-25, th-3)
	return spec{fmt.Sprintf("Did %s log more than %s scans in [%s, %s)?", m(st), mi(th), m(a), m(b)),
		fmt.Sprintf("No. %s logged %s scans in [%s, %s), fewer than %s.", m(st), mi(k), m(a), m(b), mi(th)),
		ledger(lCount(float64(k)), lIDs(st), windowEntries(a, b)), "a negative answer echoing the threshold"}
}

// desc returns k distinct counts in [lo, hi], largest first.
func (g *gen) desc(k, lo, hi int) []int {
	out := g.distinct(k, lo, hi)
	slices.Reverse(out)
	return out
}

func gOrdinal(g *gen, v int) spec {
	a, b, _, _ := g.window()
	at := g.asOf()
	switch v {
	case 0:
		st := g.store()
		prs := g.products(3)
		cs := g.desc(3, 4, 20)
		var lines strings.Builder
		for i := range 3 {
			fmt.Fprintf(&lines, "\n%s %s with %s scans", ord(fmt.Sprintf("%d.", i+1)), m(prs[i]), mi(cs[i]))
		}
		return spec{fmt.Sprintf("Which products had the most OUT_OF_STOCK scans at %s between %s and %s?", m(st), m(a), m(b)),
			fmt.Sprintf("Top products by OUT_OF_STOCK scans at %s in [%s, %s):%s", m(st), m(a), m(b), lines.String()),
			ledger(lCount(float64(cs[0])), lCount(float64(cs[1])), lCount(float64(cs[2])), lIDs(st), lIDs(prs...), windowEntries(a, b)),
			"a numbered list: the indices 1. 2. 3. are ordinals"}
	case 1:
		sts := g.stores(4)
		cs := g.desc(4, 5, 25)
		var lines strings.Builder
		for i := range 4 {
			fmt.Fprintf(&lines, "\n%s %s: %s scans", ord(fmt.Sprintf("%d)", i+1)), m(sts[i]), mi(cs[i]))
		}
		l := ledger(lIDs(sts...), windowEntries(a, b))
		for _, c := range cs {
			l = append(l, lCount(float64(c)))
		}
		return spec{fmt.Sprintf("Rank the stores by LOW_STOCK scans between %s and %s.", m(a), m(b)),
			"Stores by LOW_STOCK scans in the window:" + lines.String(), l, "indices written 1) 2) 3) 4)"}
	case 2:
		sts := g.stores(2)
		cs := g.desc(2, 6, 20)
		return spec{fmt.Sprintf("Which store had the most LOW_STOCK scans between %s and %s?", m(a), m(b)),
			fmt.Sprintf("%s ranks %s with %s LOW_STOCK scans, followed by %s with %s.", m(sts[1]), ord("1st"), mi(cs[0]), m(sts[0]), mi(cs[1])),
			ledger(lCount(float64(cs[0])), lCount(float64(cs[1])), lIDs(sts...), windowEntries(a, b)), "an ordinal 1st in running text"}
	case 3:
		pr := g.product()
		sts := g.stores(2)
		c1 := g.in(300, 900)
		c2 := c1 - g.in(10, 90)
		return spec{fmt.Sprintf("Where is %s most expensive as of %s?", m(pr), m(at)),
			fmt.Sprintf("%s is most expensive at %s, at %s; the %s most expensive is %s at %s.", m(pr), m(sts[0]), m("$"+dollars(c1)), ord("2nd"), m(sts[1]), m("$"+dollars(c2))),
			ledger(lCents(float64(c1)), lCents(float64(c2)), lIDs(pr), lIDs(sts...), asOfEntries(at)), "an ordinal 2nd"}
	case 4:
		c := g.cond()
		k := g.in(4, 5)
		sts := g.stores(k)
		var lines strings.Builder
		for i := range k {
			fmt.Fprintf(&lines, "\n%s %s", ord(fmt.Sprintf("%d.", i+1)), m(sts[i]))
		}
		return spec{fmt.Sprintf("List the stores with condition %s as of %s.", c, m(at)),
			fmt.Sprintf("%s stores had %s as of %s:%s", mi(k), c, m(at), lines.String()),
			ledger(lCount(float64(k)), lIDs(sts...), asOfEntries(at)), "a numbered list whose last index equals the count"}
	}
	sts := g.stores(3)
	cs := g.desc(3, 5, 30)
	return spec{fmt.Sprintf("How did %s, %s and %s rank by OVERSTOCK scans between %s and %s?", m(sts[0]), m(sts[1]), m(sts[2]), m(a), m(b)),
		fmt.Sprintf("%s led with %s OVERSTOCK scans and %s followed with %s, while %s came %s with %s.", m(sts[1]), mi(cs[0]), m(sts[0]), mi(cs[1]), m(sts[2]), ord("3rd"), mi(cs[2])),
		ledger(lCount(float64(cs[0])), lCount(float64(cs[1])), lCount(float64(cs[2])), lIDs(sts...), windowEntries(a, b)), "an ordinal 3rd"}
}

func gRange(g *gen, v int) spec {
	a, b, _, _ := g.window()
	lo := g.in(3, 12)
	hi := lo + g.in(2, 9)
	k := g.in(4, 12)
	l := ledger(lCount(float64(lo)), lCount(float64(hi)), lCount(float64(k)), windowEntries(a, b))
	q := fmt.Sprintf("How many OUT_OF_STOCK scans did the affected stores log between %s and %s?", m(a), m(b))
	switch v {
	case 0:
		return spec{q, fmt.Sprintf("Across the %s affected stores, each logged between %s and %s OUT_OF_STOCK scans in [%s, %s).", mi(k), mi(lo), mi(hi), m(a), m(b)),
			l, "a range in words: minimum and maximum are ledger values"}
	case 1:
		pr, at := g.product(), g.asOf()
		c1 := g.in(150, 600)
		c2 := c1 + g.in(20, 120)
		return spec{fmt.Sprintf("How does the price of %s vary across stores as of %s?", m(pr), m(at)),
			fmt.Sprintf("%s is priced from %s to %s across the %s stores that stock it as of %s.", m(pr), m("$"+dollars(c1)), m("$"+dollars(c2)), mi(k), m(at)),
			ledger(lCents(float64(c1)), lCents(float64(c2)), lCount(float64(k)), lIDs(pr), asOfEntries(at)), "a price range"}
	case 2:
		return spec{q, fmt.Sprintf("Per-store counts ranged %s-%s OUT_OF_STOCK scans over the %s affected stores.", mi(lo), mi(hi), mi(k)),
			l, fmt.Sprintf("a hyphenated range %d-%d", lo, hi)}
	}
	return spec{q, fmt.Sprintf("The affected stores logged %s to %s OUT_OF_STOCK scans each.", mi(lo), mi(hi)),
		l, "a range with 'to'"}
}

func gNegative(g *gen, v int) spec {
	a, b, _, _ := g.window()
	switch v {
	case 0:
		pr, st, d := g.product(), g.store(), g.in(5, 60)
		return spec{fmt.Sprintf("How did the price of %s at %s change between %s and %s?", m(pr), m(st), m(a), m(b)),
			fmt.Sprintf("The price of %s at %s changed by %s between %s and %s.", m(pr), m(st), m(fmt.Sprintf("-%d cents", d)), m(a), m(b)),
			ledger(lCents(float64(-d)), lIDs(pr, st), lTS(a), lTS(b)), "a negative price change in cents"}
	case 1:
		r := -float64(g.in(11, 95)) / 1000
		return spec{fmt.Sprintf("How did OUT_OF_STOCK scans change from the window %s to %s versus the week before?", m(a), m(b)),
			fmt.Sprintf("Week over week, OUT_OF_STOCK scans changed by %s.", m(pctText(r, 1)+"%")),
			ledger(lRatio(r), windowEntries(a, b)), fmt.Sprintf("a negative percent for ratio %v", r)}
	}
	d := g.in(2, 6)
	return spec{fmt.Sprintf("What was the net change in LOW_STOCK stores between %s and %s?", m(a), m(b)),
		fmt.Sprintf("The net change in LOW_STOCK stores between %s and %s was %s.", m(a), m(b), mi(-d)),
		ledger(lCount(float64(-d)), lTS(a), lTS(b)), "a negative count"}
}

func gIdentifier(g *gen, v int) spec {
	at, st, pr := g.asOf(), g.store(), g.product()
	switch v {
	case 0:
		k := g.in(3, 4)
		evs := g.events(k)
		c := g.cond()
		return spec{fmt.Sprintf("Which scans show %s at %s as of %s?", c, m(st), m(at)),
			fmt.Sprintf("The %s scans behind this answer are %s.", mi(k), idList(evs, 0)),
			ledger(lCount(float64(k)), lIDs(evs...), lIDs(st), asOfEntries(at)), "event ids from the provenance"}
	case 1:
		ev := g.events(1)[0]
		return spec{fmt.Sprintf("What is the stock state of %s at %s as of %s?", m(pr), m(st), m(at)),
			fmt.Sprintf("%s is LOW_STOCK at %s. Evidence: scan %s, as of %s.", m(pr), m(st), m(ev), m(at)),
			ledger(lIDs(pr, st, ev), lCount(1), asOfEntries(at)), "an event id as evidence"}
	case 2:
		ev := g.events(1)[0]
		c := g.price()
		return spec{qPrice(pr, st, at),
			fmt.Sprintf("%s at %s is %s; see scan %s for the source of this price.", m(pr), m(st), m("$"+dollars(c)), m(ev)),
			ledger(lCents(float64(c)), lIDs(pr, st, ev), asOfEntries(at)), "price with its event id"}
	}
	prs := g.products(g.in(2, 4))
	return spec{fmt.Sprintf("Which products are OVERSTOCK at %s as of %s?", m(st), m(at)),
		fmt.Sprintf("Products in state OVERSTOCK at %s as of %s: %s.", m(st), m(at), idList(prs, 1)),
		ledger(lCount(float64(len(prs))), lIDs(prs...), lIDs(st), asOfEntries(at)), "ids only"}
}

func gSummary(g *gen, v int) spec {
	a, b, d0, d1 := g.window()
	at := g.asOf()
	switch v {
	case 0:
		n := 24
		k := g.in(3, 12)
		r := float64(k) / float64(n)
		st, pr, c, w := g.store(), g.product(), g.price(), g.in(4, 15)
		return spec{fmt.Sprintf("Give me an out-of-stock summary as of %s.", m(at)),
			fmt.Sprintf("As of %s, %s of %s stores (%s) were out of stock. The worst hit was %s, with %s OUT_OF_STOCK scans in [%s, %s). There, %s is priced at %s.",
				m(at), mi(k), mi(n), m(pctText(r, 1)+"%"), m(st), mi(w), m(a), m(b), m(pr), m("$"+dollars(c))),
			ledger(lCount(float64(k)), lCount(float64(n)), lRatio(r), asOfEntries(at), lCount(float64(w)), windowEntries(a, b), lIDs(st, pr), lCents(float64(c))),
			"a three-sentence summary from four calls; every numeral is in the ledger"}
	case 1:
		k := g.in(2, 4)
		sts := g.stores(k)
		pr, c, j := g.product(), g.price(), g.in(2, 8)
		return spec{fmt.Sprintf("Which stores have PRICE_MISMATCH as of %s, and what does %s cost at %s?", m(at), m(pr), m(sts[0])),
			fmt.Sprintf("%s stores had PRICE_MISMATCH as of %s: %s. At %s the price of %s is %s (%s), and %s products there are LOW_STOCK.",
				mi(k), m(at), idList(sts, 0), m(sts[0]), m(pr), m("$"+dollars(c)), m(fmt.Sprintf("%d cents", c)), mi(j)),
			ledger(lCount(float64(k)), lIDs(sts...), asOfEntries(at), lIDs(pr), lCents(float64(c)), lCount(float64(j))),
			"mixed counts, ids and money"}
	case 2:
		st := g.store()
		n := g.in(40, 120)
		k := g.in(n/5, n/2)
		j := g.in(3, k-1)
		r := float64(k) / float64(n)
		ev := g.events(1)[0]
		t := g.inside(d0, d1)
		return spec{fmt.Sprintf("Summarise the scans at %s between %s and %s.", m(st), m(a), m(b)),
			fmt.Sprintf("Summary for %s between %s and %s: %s scans in total, %s of them OUT_OF_STOCK (%s) and %s LOW_STOCK. The most recent scan, %s, was at %s.",
				m(st), m(a), m(b), mi(n), mi(k), m(pctText(r, 1)+"%"), mi(j), m(ev), m(t)),
			ledger(lCount(float64(n)), lCount(float64(k)), lCount(float64(j)), lRatio(r), windowEntries(a, b), lIDs(st, ev)),
			"a summary with a ratio and an instant inside the window"}
	}
	st := g.store()
	k := g.in(2, 4)
	prs := g.products(k)
	c := g.in(99, 400)
	return spec{fmt.Sprintf("Which products are EXPIRED at %s as of %s, and which is cheapest?", m(st), m(at)),
		fmt.Sprintf("%s products were EXPIRED at %s as of %s: %s. The cheapest of them, %s, costs %s.",
			mi(k), m(st), m(at), idList(prs, 0), m(prs[0]), m(dollars(c)+" USD")),
		ledger(lCount(float64(k)), lIDs(prs...), lIDs(st), asOfEntries(at), lCents(float64(c))),
		"a list and a price"}
}

func gNearRound(g *gen, v int) spec {
	a, b, _, _ := g.window()
	q := fmt.Sprintf("How many scans were logged across all stores between %s and %s?", m(a), m(b))
	if v == 0 {
		n := g.in(3992, 3999)
		return spec{q, fmt.Sprintf("About %s scan events were logged chain-wide between %s and %s.", m("4,000"), m(a), m(b)),
			ledger(lCount(float64(n)), windowEntries(a, b)),
			fmt.Sprintf("adversarial: a round-looking 4,000 for ledger %d is within the 0.5%% tolerance", n)}
	}
	n := g.in(2991, 2998)
	return spec{q, fmt.Sprintf("Nearly %s scans were logged in [%s, %s).", m("3,000"), m(a), m(b)),
		ledger(lCount(float64(n)), windowEntries(a, b)),
		fmt.Sprintf("adversarial: 3,000 for ledger %d is honest rounding inside tolerance", n)}
}

func gScientific(g *gen, _ int) spec {
	a, b, _, _ := g.window()
	n := 2400 + g.in(-8, 8)
	return spec{fmt.Sprintf("How many scans were logged between %s and %s?", m(a), m(b)),
		fmt.Sprintf("Roughly %s scans were logged in the window.", m("2.4e3")),
		ledger(lCount(float64(n)), windowEntries(a, b)),
		fmt.Sprintf("adversarial: scientific notation 2.4e3 for ledger %d", n)}
}

func gTransposedPair(g *gen, _ int) spec {
	a, b, _, _ := g.window()
	x, y := g.in(1, 9), g.in(1, 9)
	for x == y {
		y = g.in(1, 9)
	}
	p, q := 10*x+y, 10*y+x
	sts := g.stores(2)
	return spec{fmt.Sprintf("How many OUT_OF_STOCK scans did %s and %s log between %s and %s?", m(sts[0]), m(sts[1]), m(a), m(b)),
		fmt.Sprintf("%s logged %s OUT_OF_STOCK scans and %s logged %s in that window.", m(sts[0]), mi(p), m(sts[1]), mi(q)),
		ledger(lCount(float64(p)), lCount(float64(q)), lIDs(sts...), windowEntries(a, b)),
		fmt.Sprintf("adversarial: %d and %d look transposed but both are ledger values", p, q)}
}

func gFullPercent(g *gen, _ int) spec {
	at, pr, n := g.asOf(), g.product(), g.in(8, 16)
	return spec{fmt.Sprintf("What share of the stores stocking %s had it IN_STOCK as of %s?", m(pr), m(at)),
		fmt.Sprintf("%s of the %s stores that stock %s had it IN_STOCK as of %s.", m("100%"), mi(n), m(pr), m(at)),
		ledger(lRatio(1), lCount(float64(n)), lIDs(pr), asOfEntries(at)),
		"adversarial: 100% for ratio 1"}
}

func gSmallPercent(g *gen, _ int) spec {
	a, b, _, _ := g.window()
	k := g.in(3, 12)
	n := 200 * k
	return spec{fmt.Sprintf("What fraction of scans between %s and %s were EXPIRED?", m(a), m(b)),
		fmt.Sprintf("Only %s of the scans in the window were EXPIRED (%s of %s).", m("0.5%"), mi(k), m(thousands(n))),
		ledger(lRatio(0.005), lCount(float64(k)), lCount(float64(n)), windowEntries(a, b)),
		"adversarial: a tiny percent 0.5% for ratio 0.005"}
}

func gZero(g *gen, _ int) spec {
	at := g.asOf()
	return spec{qCount("EXPIRED", at),
		fmt.Sprintf("%s stores had condition EXPIRED as of %s.", mi(0), m(at)),
		ledger(lCount(0), asOfEntries(at)), "adversarial: a zero count"}
}

func gForeignCurrency(g *gen, v int) spec {
	at, st, pr := g.asOf(), g.store(), g.product()
	if v == 0 {
		c := g.price()
		return spec{qPrice(pr, st, at),
			fmt.Sprintf("In the euro-area pilot store %s, %s costs %s as of %s.", m(st), m(pr), m("€"+dollars(c)), m(at)),
			ledger(lEUR(float64(c)/100), lIDs(st, pr), asOfEntries(at)), "adversarial: euro sign for a ledger price in eur"}
	}
	e, p := g.in(5, 30), g.price()
	prs := g.products(2)
	return spec{fmt.Sprintf("What do %s and %s cost at %s as of %s?", m(prs[0]), m(prs[1]), m(st), m(at)),
		fmt.Sprintf("At %s, %s is %s and %s is %s as of %s.", m(st), m(prs[0]), m(fmt.Sprintf("EUR %d", e)), m(prs[1]), m("£"+dollars(p)), m(at)),
		ledger(lEUR(float64(e)), lGBP(float64(p)/100), lIDs(st), lIDs(prs...), asOfEntries(at)),
		"adversarial: currency code EUR with an integer amount, and a pound sign"}
}

func gCentsForDollars(g *gen, _ int) spec {
	at, st, pr := g.asOf(), g.store(), g.product()
	c := g.in(1000, 2999)
	return spec{qPrice(pr, st, at),
		fmt.Sprintf("%s costs %s at %s as of %s.", m(pr), m(thousands(c)+" cents"), m(st), m(at)),
		ledger(lUSD(float64(c)/100), lIDs(st, pr), asOfEntries(at)),
		fmt.Sprintf("adversarial: %s cents with a separator for ledger %s usd", thousands(c), dollars(c))}
}

// ---- fabricated ----

func fRounding(g *gen, v int) spec {
	at, st, pr := g.asOf(), g.store(), g.product()
	a, b, _, _ := g.window()
	switch v {
	case 0:
		c := g.price()
		fake := (c/10 + 1) * 10
		return spec{qPrice(pr, st, at),
			fmt.Sprintf("The price of %s at %s as of %s is about %s.", m(pr), m(st), m(at), bad("$"+dollars(fake))),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)),
			fmt.Sprintf("%d cents rounded up to $%s: %.2f%% off", c, dollars(fake), 100*relDiff(float64(c), float64(fake)))}
	case 1:
		n := []int{16, 20, 24, 25}[g.r.IntN(4)]
		k := g.in(2, n-2)
		r := float64(k) / float64(n)
		fake := (math.Round(r*1000) + float64(g.in(6, 9))) / 10
		c := g.cond()
		return spec{fmt.Sprintf("What share of stores have condition %s as of %s?", c, m(at)),
			fmt.Sprintf("%s of stores (%s of %s) had %s as of %s.", bad(strconv.FormatFloat(fake, 'f', 1, 64)+"%"), mi(k), mi(n), c, m(at)),
			ledger(lCount(float64(k)), lCount(float64(n)), lRatio(r), asOfEntries(at)),
			fmt.Sprintf("%.1f%% for ratio %v: a wrong last digit", fake, r)}
	case 2:
		n := g.in(50, 120)
		avg := float64(n) / 24
		return spec{fmt.Sprintf("On average, how many OUT_OF_STOCK scans did each store log between %s and %s?", m(a), m(b)),
			fmt.Sprintf("Stores averaged about %s OUT_OF_STOCK scans each in [%s, %s).", bad(strconv.FormatFloat(avg, 'f', 1, 64)), m(a), m(b)),
			ledger(lCount(avg), lCount(float64(n)), windowEntries(a, b)),
			fmt.Sprintf("one-decimal rounding of %v is %.2f%% off, beyond tolerance", avg, 100*relDiff(avg, math.Round(avg*10)/10))}
	case 3:
		n := g.in(2400, 2600)
		fake := int(math.Round(float64(n)/100)) * 100
		return spec{fmt.Sprintf("How many scans were logged across all stores between %s and %s?", m(a), m(b)),
			fmt.Sprintf("About %s scans were logged across all stores in that window.", bad(thousands(fake))),
			ledger(lCount(float64(n)), windowEntries(a, b)),
			fmt.Sprintf("%d rounded to %s: %.2f%% off", n, thousands(fake), 100*relDiff(float64(n), float64(fake)))}
	case 4:
		n := []int{12, 24}[g.r.IntN(2)]
		k := g.in(2, n-2)
		r := float64(k) / float64(n)
		fake := 5 * math.Round(r*20)
		c := g.cond()
		return spec{fmt.Sprintf("What share of stores have condition %s as of %s?", c, m(at)),
			fmt.Sprintf("Roughly %s of stores had %s as of %s.", bad(strconv.FormatFloat(fake, 'f', 0, 64)+"%"), c, m(at)),
			ledger(lCount(float64(k)), lCount(float64(n)), lRatio(r), asOfEntries(at)),
			fmt.Sprintf("ratio %v rounded to the nearest 5%%", r)}
	case 5:
		k := g.in(3, 8)
		sum := 0
		for range k {
			sum += g.price()
		}
		avg := float64(sum) / float64(k)
		fake := int(math.Round(avg/10)) * 10
		return spec{fmt.Sprintf("What is the average price of %s across stores as of %s?", m(pr), m(at)),
			fmt.Sprintf("Across %s stores, %s averages about %s as of %s.", mi(k), m(pr), bad("$"+dollars(fake)), m(at)),
			ledger(lCount(float64(k)), lCents(avg), lIDs(pr), asOfEntries(at)),
			fmt.Sprintf("average %v cents rounded to ten cents", avg)}
	case 6:
		n := g.in(40, 200)
		avg := float64(n) / 7
		return spec{fmt.Sprintf("How many LOW_STOCK scans per day were logged chain-wide between %s and %s?", m(a), m(b)),
			fmt.Sprintf("Chain-wide, that is around %s LOW_STOCK scans per day.", bad(strconv.Itoa(int(math.Round(avg))))),
			ledger(lCount(avg), lCount(float64(n)), windowEntries(a, b)),
			fmt.Sprintf("per-day average %v rounded to a whole number", avg)}
	case 7:
		n := []int{9, 12, 15, 21}[g.r.IntN(4)]
		k := g.in(2, n-2)
		r := float64(k) / float64(n)
		c := g.cond()
		return spec{fmt.Sprintf("What share of stores have condition %s as of %s?", c, m(at)),
			fmt.Sprintf("%s of the %s stores, about %s, had %s as of %s.", mi(k), mi(n), bad(pctText(r, 0)+"%"), c, m(at)),
			ledger(lCount(float64(k)), lCount(float64(n)), lRatio(r), asOfEntries(at)),
			fmt.Sprintf("whole-percent rounding of %v", r)}
	case 8:
		c := g.in(1000, 2999)
		fake := int(math.Round(float64(c)/100)) * 100
		return spec{qPrice(pr, st, at),
			fmt.Sprintf("%s goes for roughly %s at %s as of %s.", m(pr), bad(fmt.Sprintf("$%d", fake/100)), m(st), m(at)),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)),
			fmt.Sprintf("%d cents rounded to whole dollars", c)}
	}
	n := g.in(1100, 1300)
	fake := int(math.Round(float64(n)/100)) * 100
	return spec{fmt.Sprintf("How many OUT_OF_STOCK scans were logged between %s and %s?", m(a), m(b)),
		fmt.Sprintf("Between %s and %s, about %s OUT_OF_STOCK scan events were recorded.", m(a), m(b), bad(thousands(fake))),
		ledger(lCount(float64(n)), windowEntries(a, b)),
		fmt.Sprintf("%d rounded to the hundred", n)}
}

func fNearMiss(g *gen, v int) spec {
	at, st, pr := g.asOf(), g.store(), g.product()
	a, b, _, _ := g.window()
	switch v {
	case 0:
		c := g.in(400, 800)
		fake := c + []int{-5, 5}[g.r.IntN(2)]
		return spec{qPrice(pr, st, at),
			fmt.Sprintf("The price of %s at %s as of %s is %s.", m(pr), m(st), m(at), bad("$"+dollars(fake))),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)),
			fmt.Sprintf("subtle: $%s for %d cents is %.2f%% off, just beyond 0.5%%", dollars(fake), c, 100*relDiff(float64(c), float64(fake)))}
	case 1:
		n := 24
		k := g.in(5, 14)
		r := float64(k) / float64(n)
		fake := math.Round(r*1000)/10 + 0.4
		c := g.cond()
		return spec{fmt.Sprintf("What share of stores have condition %s as of %s?", c, m(at)),
			fmt.Sprintf("As of %s, %s of stores (%s of %s) had %s.", m(at), bad(strconv.FormatFloat(fake, 'f', 1, 64)+"%"), mi(k), mi(n), c),
			ledger(lCount(float64(k)), lCount(float64(n)), lRatio(r), asOfEntries(at)),
			fmt.Sprintf("subtle: %.1f%% for ratio %v is %.2f%% off", fake, r, 100*relDiff(r, fake/100))}
	case 2:
		n := g.in(1500, 3000)
		fake := n + []int{-20, 20}[g.r.IntN(2)]
		return spec{fmt.Sprintf("How many scans were logged across all stores between %s and %s?", m(a), m(b)),
			fmt.Sprintf("The stores recorded %s scans between %s and %s.", bad(thousands(fake)), m(a), m(b)),
			ledger(lCount(float64(n)), windowEntries(a, b)),
			fmt.Sprintf("subtle: %s for %d, a wrong third digit (%.2f%% off)", thousands(fake), n, 100*relDiff(float64(n), float64(fake)))}
	case 3:
		n := g.in(50, 108)
		avg := float64(n) / 24
		fake := math.Round(avg*100)/100 + 0.03
		return spec{fmt.Sprintf("On average, how many OUT_OF_STOCK scans did each store log between %s and %s?", m(a), m(b)),
			fmt.Sprintf("Each store logged %s OUT_OF_STOCK scans on average in [%s, %s).", bad(strconv.FormatFloat(fake, 'f', 2, 64)), m(a), m(b)),
			ledger(lCount(avg), lCount(float64(n)), windowEntries(a, b)),
			fmt.Sprintf("subtle: %.2f for average %v (%.2f%% off)", fake, avg, 100*relDiff(avg, fake))}
	case 4:
		c := g.in(1000, 1400)
		fake := c - 9
		return spec{qPrice(pr, st, at),
			fmt.Sprintf("As of %s, %s costs %s at %s.", m(at), m(pr), bad("$"+dollars(fake)), m(st)),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)),
			fmt.Sprintf("subtle: $%s for %d cents (%.2f%% off)", dollars(fake), c, 100*relDiff(float64(c), float64(fake)))}
	}
	n := []int{9, 12, 15}[g.r.IntN(3)]
	k := g.in(2, n-2)
	r := float64(k) / float64(n)
	fake := math.Round(r*1000)/10 + 0.3
	return spec{fmt.Sprintf("What fraction of stores stocking %s had it OUT_OF_STOCK as of %s?", m(pr), m(at)),
		fmt.Sprintf("%s of the %s stores stocking %s, or %s, had it OUT_OF_STOCK as of %s.", mi(k), mi(n), m(pr), bad(strconv.FormatFloat(fake, 'f', 1, 64)+"%"), m(at)),
		ledger(lCount(float64(k)), lCount(float64(n)), lRatio(r), lIDs(pr), asOfEntries(at)),
		fmt.Sprintf("subtle: %.1f%% for ratio %v (%.2f%% off)", fake, r, 100*relDiff(r, fake/100))}
}

func fUnitSwap(g *gen, v int) spec {
	at, st, pr := g.asOf(), g.store(), g.product()
	c := g.price()
	q := qPrice(pr, st, at)
	cents := ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at))
	switch v {
	case 0:
		return spec{q, fmt.Sprintf("The price of %s at %s as of %s is %s.", m(pr), m(st), m(at), bad(fmt.Sprintf("$%d", c))),
			cents, fmt.Sprintf("%d cents written as %d dollars", c, c)}
	case 1:
		return spec{q, fmt.Sprintf("%s costs %s at %s as of %s.", m(pr), bad(fmt.Sprintf("%d dollars", c)), m(st), m(at)),
			cents, "cents read as dollars, unit word"}
	case 2:
		return spec{q, fmt.Sprintf("As of %s, %s lists %s at %s.", m(at), m(st), m(pr), bad(fmt.Sprintf("%d USD", c))),
			cents, "cents read as dollars, currency code"}
	case 3:
		c = g.in(1000, 2999)
		return spec{q, fmt.Sprintf("The shelf price for %s in %s was %s as of %s.", m(pr), m(st), bad("USD "+thousands(c)), m(at)),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)), "cents with a separator read as dollars"}
	case 4:
		return spec{q, fmt.Sprintf("%s is priced at %s at %s as of %s.", m(pr), bad(dollars(c)+" cents"), m(st), m(at)),
			cents, fmt.Sprintf("%d cents written as %s cents", c, dollars(c))}
	case 5:
		k := g.in(12, 88)
		r := float64(k) / 100
		return spec{fmt.Sprintf("What share of stores have condition LOW_STOCK as of %s?", m(at)),
			fmt.Sprintf("As of %s, the LOW_STOCK rate across stores is %s.", m(at), bad(ratioText(r, 2)+"%")),
			ledger(lRatio(r), asOfEntries(at)), fmt.Sprintf("ratio %v written as %v percent", r, r)}
	case 6:
		n := []int{20, 25}[g.r.IntN(2)]
		k := g.in(2, n-2)
		r := float64(k) / float64(n)
		return spec{fmt.Sprintf("What share of stores have condition EXPIRED as of %s?", m(at)),
			fmt.Sprintf("%s of %s stores (%s) had EXPIRED as of %s.", mi(k), mi(n), bad(ratioText(r, 2)+"%"), m(at)),
			ledger(lCount(float64(k)), lCount(float64(n)), lRatio(r), asOfEntries(at)), "a ratio with a percent sign"}
	case 7:
		return spec{q, fmt.Sprintf("%s at %s: %s as of %s.", m(pr), m(st), bad(fmt.Sprintf("$%d", c)), m(at)),
			ledger(lUSD(float64(c)/100), lIDs(st, pr), asOfEntries(at)), fmt.Sprintf("ledger %s usd written as $%d", dollars(c), c)}
	case 8:
		c = g.in(1000, 2999)
		return spec{q, fmt.Sprintf("At %s, %s sells for %s as of %s.", m(st), m(pr), bad(thousands(c)+" dollars"), m(at)),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)), "cents with a separator read as dollars, unit word"}
	}
	n := []int{8, 16, 40}[g.r.IntN(3)]
	k := g.in(1, n/2)
	r := float64(k) / float64(n)
	return spec{fmt.Sprintf("What share of stores have condition PRICE_MISMATCH as of %s?", m(at)),
		fmt.Sprintf("That is %s of the stores as of %s.", bad(strconv.FormatFloat(r, 'f', -1, 64)+" percent"), m(at)),
		ledger(lRatio(r), lCount(float64(k)), lCount(float64(n)), asOfEntries(at)), fmt.Sprintf("ratio %v written as %v percent", r, r)}
}

func reverse(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

// swapAt swaps bytes i and j of s.
func swapAt(s string, i, j int) string {
	b := []byte(s)
	b[i], b[j] = b[j], b[i]
	return string(b)
}

func fTransposed(g *gen, v int) spec {
	at, st, pr := g.asOf(), g.store(), g.product()
	a, b, _, _ := g.window()
	switch v {
	case 0:
		n := []int{12, 13, 14, 15, 16, 17, 18, 19, 21, 23, 24}[g.r.IntN(11)]
		fake, _ := strconv.Atoi(reverse(strconv.Itoa(n)))
		c := g.cond()
		return spec{qCount(c, at), fmt.Sprintf("%s stores have condition %s as of %s.", bad(strconv.Itoa(fake)), c, m(at)),
			ledger(lCount(float64(n)), asOfEntries(at), lIDs(g.stores(n)...)), fmt.Sprintf("%d transposed to %d", n, fake)}
	case 1:
		n := g.in(1000, 9999)
		s := strconv.Itoa(n)
		fake, _ := strconv.Atoi(swapAt(s, 2, 3))
		return spec{fmt.Sprintf("How many scans were logged across all stores between %s and %s?", m(a), m(b)),
			fmt.Sprintf("%s scans were logged across all stores in [%s, %s).", bad(thousands(fake)), m(a), m(b)),
			ledger(lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("%s with its last two digits swapped", thousands(n))}
	case 2, 3:
		c := g.in(100, 999)
		s := strconv.Itoa(c)
		i, j := 1, 2
		if v == 3 {
			i, j = 0, 1
		}
		fake, _ := strconv.Atoi(swapAt(s, i, j))
		return spec{qPrice(pr, st, at), fmt.Sprintf("The price of %s at %s as of %s is %s.", m(pr), m(st), m(at), bad("$"+dollars(fake))),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)), fmt.Sprintf("%d cents with digits swapped: $%s", c, dollars(fake))}
	case 4:
		cond := g.cond()
		k := g.in(3, 5)
		sts := g.stores(k)
		x := []int{12, 13, 14, 15, 16, 17, 18, 19, 21, 23, 24}[g.r.IntN(11)]
		real := fmt.Sprintf("st-%03d", x)
		fake := fmt.Sprintf("st-0%s", reverse(strconv.Itoa(x)))
		if slices.Contains(sts, real) || slices.Contains(sts, fake) {
			return redraw
		}
		shown := slices.Clone(sts)
		sts = append(sts, real)
		slices.Sort(sts)
		shown = append(shown, "!"+fake)
		slices.SortFunc(shown, func(a, b string) int { return strings.Compare(strings.TrimPrefix(a, "!"), strings.TrimPrefix(b, "!")) })
		var parts []string
		for _, s := range shown {
			if strings.HasPrefix(s, "!") {
				parts = append(parts, bad(s[1:]))
			} else {
				parts = append(parts, m(s))
			}
		}
		return spec{fmt.Sprintf("Which stores have condition %s as of %s?", cond, m(at)),
			fmt.Sprintf("Stores with %s as of %s: %s.", cond, m(at), strings.Join(parts, ", ")),
			ledger(lCount(float64(k+1)), lIDs(sts...), asOfEntries(at)), fmt.Sprintf("store id %s transposed to %s", real, fake)}
	case 5:
		n := g.in(1000, 3999)
		s := fmt.Sprintf("%06d", n)
		if s[4] == s[5] {
			return redraw
		}
		real, fake := "evt-"+s, "evt-"+swapAt(s, 4, 5)
		c := g.price()
		return spec{qPrice(pr, st, at),
			fmt.Sprintf("%s costs %s at %s as of %s; see scan %s.", m(pr), m("$"+dollars(c)), m(st), m(at), bad(fake)),
			ledger(lCents(float64(c)), lIDs(st, pr, real), asOfEntries(at)), fmt.Sprintf("event id %s transposed to %s", real, fake)}
	case 6:
		n := 24
		k := g.in(3, 20)
		r := float64(k) / float64(n)
		p := pctText(r, 1)
		if len(p) != 4 || p[0] == p[1] {
			return redraw
		}
		c := g.cond()
		return spec{fmt.Sprintf("What share of stores have condition %s as of %s?", c, m(at)),
			fmt.Sprintf("%s of %s stores (%s) had %s as of %s.", mi(k), mi(n), bad(swapAt(p, 0, 1)+"%"), c, m(at)),
			ledger(lCount(float64(k)), lCount(float64(n)), lRatio(r), asOfEntries(at)), fmt.Sprintf("%s%% transposed to %s%%", p, swapAt(p, 0, 1))}
	case 7:
		k := g.in(12, 39)
		s := strconv.Itoa(k)
		fake := reverse(s)
		state := g.state()
		return spec{qWindow(st, state, a, b),
			fmt.Sprintf("%s scans with state %s were recorded for %s in [%s, %s).", bad(fake), state, m(st), m(a), m(b)),
			ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)), fmt.Sprintf("window count %d transposed to %s", k, fake)}
	case 8:
		d := []int{12, 13, 21, 31}[g.r.IntN(4)]
		td := []int{21, 31, 12, 13}[slices.Index([]int{12, 13, 21, 31}, d)]
		h := g.in(6, 20)
		real, fake := ts(d, h, 0), ts(td, h, 0)
		c := g.price()
		return spec{qPrice(pr, st, real),
			fmt.Sprintf("The price of %s at %s as of %s is %s.", m(pr), m(st), bad(fake), m("$"+dollars(c))),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(real)), fmt.Sprintf("as-of day %d transposed to %d", d, td)}
	}
	n := g.in(50, 120)
	avg := float64(n) / 24
	s := strconv.FormatFloat(avg, 'f', 2, 64)
	if s[2] == s[3] {
		return redraw
	}
	return spec{fmt.Sprintf("On average, how many OUT_OF_STOCK scans did each store log between %s and %s?", m(a), m(b)),
		fmt.Sprintf("That is %s OUT_OF_STOCK scans per store on average in [%s, %s).", bad(swapAt(s, 2, 3)), m(a), m(b)),
		ledger(lCount(avg), lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("average %s with its decimals swapped", s)}
}

func fOffByOne(g *gen, v int) spec {
	at, st := g.asOf(), g.store()
	a, b, d0, d1 := g.window()
	c := g.cond()
	d := []int{-1, 1}[g.r.IntN(2)]
	switch v {
	case 0:
		n := g.in(3, 20)
		return spec{qCount(c, at), fmt.Sprintf("%s stores have condition %s as of %s.", bad(strconv.Itoa(n+d)), c, m(at)),
			ledger(lCount(float64(n)), asOfEntries(at), lIDs(g.stores(n)...)), fmt.Sprintf("count %d off by one", n)}
	case 1:
		n := g.in(3, 19)
		return spec{qCount(c, at), fmt.Sprintf("%s stores have %s as of %s.", bad(capWord(n+d)), c, m(at)),
			ledger(lCount(float64(n)), asOfEntries(at)), fmt.Sprintf("spelled-out count off by one (ledger %d)", n)}
	case 2:
		k := g.in(2, 5)
		prs := g.products(k)
		return spec{fmt.Sprintf("Which products are in state LOW_STOCK at %s as of %s?", m(st), m(at)),
			fmt.Sprintf("%s products are in state LOW_STOCK at %s as of %s: %s.", bad(strconv.Itoa(k+1)), m(st), m(at), idList(prs, 1)),
			ledger(lCount(float64(k)), lIDs(prs...), lIDs(st), asOfEntries(at)), fmt.Sprintf("header says %d, list and ledger hold %d", k+1, k)}
	case 3:
		k := g.in(3, 30)
		return spec{qWindow(st, "OUT_OF_STOCK", a, b),
			fmt.Sprintf("%s scans with state OUT_OF_STOCK were recorded for %s in [%s, %s).", bad(strconv.Itoa(k-1)), m(st), m(a), m(b)),
			ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)), fmt.Sprintf("window count %d written as %d", k, k-1)}
	case 4:
		k := g.in(3, 20)
		return spec{qCount(c, at), fmt.Sprintf("%s of the %s stores had %s as of %s.", mi(k), bad("25"), c, m(at)),
			ledger(lCount(float64(k)), lCount(24), asOfEntries(at)), "the chain has 24 stores in the ledger, the text says 25"}
	case 5:
		n := g.in(4, 20)
		return spec{qCount("LOW_STOCK", at), fmt.Sprintf("As of %s, %s stores reported LOW_STOCK.", m(at), bad(word(n-1))),
			ledger(lCount(float64(n)), asOfEntries(at)), fmt.Sprintf("spelled-out %s for ledger %d", word(n-1), n)}
	case 6:
		k := g.in(3, 15)
		t := g.inside(d0, d1)
		return spec{qWindow(st, "OUT_OF_STOCK", a, b),
			fmt.Sprintf("%s logged %s OUT_OF_STOCK scans in [%s, %s), the latest at %s.", m(st), bad(strconv.Itoa(k+1)), m(a), m(b), m(t)),
			ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)), fmt.Sprintf("window count %d written as %d", k, k+1)}
	case 7:
		k := g.in(3, 5)
		prs := g.products(k)
		return spec{fmt.Sprintf("Which products are OUT_OF_STOCK at %s as of %s?", m(st), m(at)),
			fmt.Sprintf("%s has %s products out of stock as of %s (%s).", m(st), bad(strconv.Itoa(k-1)), m(at), idList(prs, 1)),
			ledger(lCount(float64(k)), lIDs(prs...), lIDs(st), asOfEntries(at)), fmt.Sprintf("lists %d ids but says %d", k, k-1)}
	case 8:
		k := g.in(4, 20)
		r := float64(k) / 24
		return spec{fmt.Sprintf("What share of stores have condition %s as of %s?", c, m(at)),
			fmt.Sprintf("%s of %s stores (%s) had %s as of %s.", bad(strconv.Itoa(k+1)), mi(24), m(pctText(r, 1)+"%"), c, m(at)),
			ledger(lCount(float64(k)), lCount(24), lRatio(r), asOfEntries(at)), fmt.Sprintf("numerator %d for ledger %d; the percent is right", k+1, k)}
	}
	k := g.in(2, 4)
	evs := g.events(k)
	return spec{fmt.Sprintf("Which scans show %s at %s as of %s?", c, m(st), m(at)),
		fmt.Sprintf("The %s scans behind this answer are %s.", bad(strconv.Itoa(k+1)), idList(evs, 0)),
		ledger(lCount(float64(k)), lIDs(evs...), lIDs(st), asOfEntries(at)), fmt.Sprintf("says %d scans, lists and records %d", k+1, k)}
}

func fInvented(g *gen, v int) spec {
	at, st, pr := g.asOf(), g.store(), g.product()
	a, b, _, _ := g.window()
	c := g.cond()
	switch v {
	case 0:
		n := g.in(3, 20)
		return spec{qCount(c, at), fmt.Sprintf("%s stores have condition %s as of %s, up %s from last week.", mi(n), c, m(at), bad(fmt.Sprintf("%d%%", g.in(5, 40)))),
			ledger(lCount(float64(n)), asOfEntries(at)), "an invented week-over-week change"}
	case 1:
		n := g.in(6, 20)
		return spec{qCount(c, at), fmt.Sprintf("As of %s, %s stores have %s, which is %s more than yesterday.", m(at), mi(n), c, bad(strconv.Itoa(g.in(2, n/2)))),
			ledger(lCount(float64(n)), asOfEntries(at)), "an invented comparison with yesterday"}
	case 2:
		k := g.in(5, 40)
		return spec{qWindow(st, "OUT_OF_STOCK", a, b),
			fmt.Sprintf("%s logged %s OUT_OF_STOCK scans in [%s, %s). That works out to an average of %s per product.", m(st), mi(k), m(a), m(b), bad(strconv.FormatFloat(float64(g.in(11, 39))/10, 'f', 1, 64))),
			ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)), "an invented per-product average"}
	case 3:
		k := g.in(20, 60)
		return spec{qWindow(st, "LOW_STOCK", a, b),
			fmt.Sprintf("%s logged %s LOW_STOCK scans in the window, about %s per day.", m(st), mi(k), bad(strconv.Itoa(g.in(2, 9)))),
			ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)), "an invented per-day rate"}
	case 4:
		sts := g.stores(2)
		p := g.price()
		return spec{fmt.Sprintf("Where is %s cheaper, at %s or %s, as of %s?", m(pr), m(sts[0]), m(sts[1]), m(at)),
			fmt.Sprintf("%s costs %s at %s, %s cheaper than at %s.", m(pr), m("$"+dollars(p)), m(sts[0]), bad("$0."+strconv.Itoa(g.in(11, 49))), m(sts[1])),
			ledger(lCents(float64(p)), lIDs(pr), lIDs(sts...), asOfEntries(at)), "the second store's price was never fetched; the difference is invented"}
	case 5:
		n := g.in(3, 10)
		return spec{qCount(c, at), fmt.Sprintf("%s stores have %s as of %s, down from %s stores on %s.", mi(n), c, m(at), bad(strconv.Itoa(n+g.in(3, 8))), bad("2025-12-"+strconv.Itoa(g.in(20, 28)))),
			ledger(lCount(float64(n)), asOfEntries(at)), "an invented earlier count and date: two unlogged numerals"}
	case 6:
		return spec{fmt.Sprintf("What is the stock state of %s at %s as of %s?", m(pr), m(st), m(at)),
			fmt.Sprintf("%s is OUT_OF_STOCK at %s as of %s. Restocking there typically takes %s hours.", m(pr), m(st), m(at), bad(strconv.Itoa(g.in(4, 48)))),
			ledger(lIDs(pr, st), lCount(1), asOfEntries(at)), "an invented restocking time"}
	case 7:
		n := g.in(3, 20)
		return spec{qCount(c, at), fmt.Sprintf("Across all %s stores, %s had %s as of %s.", bad("24"), mi(n), c, m(at)),
			ledger(lCount(float64(n)), asOfEntries(at)), "the store total is not in the ledger or the question"}
	case 8:
		return spec{fmt.Sprintf("What is the stock state of %s at %s as of %s?", m(pr), m(st), m(at)),
			fmt.Sprintf("%s has been OUT_OF_STOCK at %s since %s.", m(pr), m(st), bad("2025-12-"+strconv.Itoa(g.in(10, 20)))),
			ledger(lIDs(pr, st), asOfEntries(at)), "an invented start date"}
	}
	k := g.in(8, 30)
	return spec{qWindow(st, "LOW_STOCK", a, b),
		fmt.Sprintf("There were %s LOW_STOCK scans at %s in the window; %s of them were on weekends.", mi(k), m(st), bad(strconv.Itoa(g.in(2, k/2)))),
		ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)), "an invented breakdown"}
}

func fPercentCount(g *gen, v int) spec {
	at, st := g.asOf(), g.store()
	k := g.in(3, 20)
	a, b, _, _ := g.window()
	switch v {
	case 0:
		return spec{qCount("OUT_OF_STOCK", at), fmt.Sprintf("%s of stores were out of stock as of %s.", bad(fmt.Sprintf("%d%%", k)), m(at)),
			ledger(lCount(float64(k)), asOfEntries(at)), fmt.Sprintf("count %d written as a percent", k)}
	case 1:
		return spec{qCount("LOW_STOCK", at), fmt.Sprintf("As of %s, %s of the stores reported LOW_STOCK.", m(at), bad(fmt.Sprintf("%d percent", k))),
			ledger(lCount(float64(k)), asOfEntries(at)), fmt.Sprintf("count %d written as percent, unit word", k)}
	case 2:
		k = g.in(3, 9)
		return spec{fmt.Sprintf("How many products are LOW_STOCK at %s as of %s?", m(st), m(at)),
			fmt.Sprintf("%s of the products at %s are LOW_STOCK as of %s.", bad(fmt.Sprintf("%d%%", k)), m(st), m(at)),
			ledger(lCount(float64(k)), lIDs(st), lIDs(g.products(k)...), asOfEntries(at)), "a list length written as a percent"}
	case 3:
		return spec{qWindow(st, "OUT_OF_STOCK", a, b),
			fmt.Sprintf("OUT_OF_STOCK made up %s of the scans at %s in [%s, %s).", bad(fmt.Sprintf("%d%%", k)), m(st), m(a), m(b)),
			ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)), "a window count written as a percent"}
	}
	return spec{qCount("PRICE_MISMATCH", at), fmt.Sprintf("The PRICE_MISMATCH rate is %s across the chain as of %s.", bad(fmt.Sprintf("%d%%", k)), m(at)),
		ledger(lCount(float64(k)), asOfEntries(at)), "a store count presented as a rate"}
}

func fTimestampOutside(g *gen, v int) spec {
	st, pr, k := g.store(), g.product(), g.in(3, 20)
	a, b, _, d1 := g.window()
	base := ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st))
	q := qWindow(st, "OUT_OF_STOCK", a, b)
	switch v {
	case 0:
		t := ts(d1+g.in(1, 2), g.in(1, 22), 0)
		return spec{q, fmt.Sprintf("%s logged %s OUT_OF_STOCK scans in [%s, %s); the latest came at %s.", m(st), mi(k), m(a), m(b), bad(t)),
			base, fmt.Sprintf("%s is after the window", t)}
	case 1:
		t := ts(d1, 6, 0)
		return spec{q, fmt.Sprintf("%s logged %s OUT_OF_STOCK scans in the window, the most recent at %s.", m(st), mi(k), bad(t)),
			base, fmt.Sprintf("subtle: %s is six hours after the window closes", t)}
	case 2:
		dd := date(d1 + 2)
		return spec{q, fmt.Sprintf("%s logged %s OUT_OF_STOCK scans in the window; all of them were on %s.", m(st), mi(k), bad(dd)),
			base, fmt.Sprintf("date %s is outside the window", dd)}
	case 3:
		d := g.in(3, 6)
		h := g.in(6, 18)
		at := ts(d, h, 0)
		fake := ts(d+[]int{-1, 1}[g.r.IntN(2)], h, 0)
		c := g.price()
		return spec{qPrice(pr, st, at), fmt.Sprintf("The price of %s at %s as of %s is %s.", m(pr), m(st), bad(fake), m("$"+dollars(c))),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)), "the answer cites a different as-of instant than the one asked and computed"}
	case 4:
		a, b = ts(3, 0, 0), ts(6, 0, 0)
		t := ts(2, g.in(1, 20), 0)
		return spec{qWindow(st, "OUT_OF_STOCK", a, b),
			fmt.Sprintf("%s began showing OUT_OF_STOCK at %s and logged %s such scans before %s.", m(st), bad(t), mi(k), m(b)),
			ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)), fmt.Sprintf("%s is before the window opens", t)}
	case 5:
		a, b = ts(3, 0, 0), ts(7, 0, 0)
		return spec{qWindow(st, "LOW_STOCK", a, b),
			fmt.Sprintf("%s logged %s LOW_STOCK scans between %s and %s, the earliest on %s.", m(st), mi(k), m(a), m(b), bad(date(1))),
			ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)), "a date before the window"}
	case 6:
		at := g.asOf()
		c := g.price()
		fake := "2025" + at[4:]
		return spec{qPrice(pr, st, at), fmt.Sprintf("As of %s, %s costs %s at %s.", bad(fake), m(pr), m("$"+dollars(c)), m(st)),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)), "the year of the as-of instant is wrong"}
	}
	fakeEnd := ts(d1+1, 0, 0)
	return spec{q, fmt.Sprintf("%s scans with state OUT_OF_STOCK were recorded for %s in [%s, %s).", mi(k), m(st), m(a), bad(fakeEnd)),
		base, "the window's end is misquoted by a day"}
}

func fWrongID(g *gen, v int) spec {
	at := g.asOf()
	c := g.price()
	switch v {
	case 0:
		sts := g.stores(5)
		shown := []string{m(sts[0]), m(sts[1]), bad(sts[2]), m(sts[3]), m(sts[4])}
		real := []string{sts[0], sts[1], sts[3], sts[4]}
		cond := g.cond()
		return spec{fmt.Sprintf("Which stores have condition %s as of %s?", cond, m(at)),
			fmt.Sprintf("Stores with %s as of %s: %s.", cond, m(at), strings.Join(shown, ", ")),
			ledger(lCount(4), lIDs(real...), asOfEntries(at)), fmt.Sprintf("%s is not among the stores the call returned", sts[2])}
	case 1:
		prs, st := g.products(2), g.store()
		return spec{qPrice(prs[0], st, at), fmt.Sprintf("The price of %s at %s as of %s is %s.", bad(prs[1]), m(st), m(at), m("$"+dollars(c))),
			ledger(lCents(float64(c)), lIDs(prs[0], st), asOfEntries(at)), "the answer names a different product than the one priced"}
	case 2:
		pr, sts := g.product(), g.stores(2)
		return spec{qPrice(pr, sts[0], at), fmt.Sprintf("%s costs %s at %s as of %s.", m(pr), m("$"+dollars(c)), bad(sts[1]), m(at)),
			ledger(lCents(float64(c)), lIDs(pr, sts[0]), asOfEntries(at)), "the answer names a different store"}
	case 3:
		pr, st := g.product(), g.store()
		evs := g.events(2)
		return spec{qPrice(pr, st, at), fmt.Sprintf("%s at %s is %s; see scan %s for the source of this price.", m(pr), m(st), m("$"+dollars(c)), bad(evs[1])),
			ledger(lCents(float64(c)), lIDs(pr, st, evs[0]), asOfEntries(at)), "an event id that is not the provenance"}
	case 4:
		sts := g.stores(2)
		a, b, _, _ := g.window()
		k := g.in(2, 20)
		return spec{qWindow(sts[0], "LOW_STOCK", a, b),
			fmt.Sprintf("%s scans with state LOW_STOCK were recorded for %s in [%s, %s).", mi(k), bad(sts[1]), m(a), m(b)),
			ledger(lCount(float64(k)), windowEntries(a, b), lIDs(sts[0])), "the window count attributed to another store"}
	case 5:
		st := g.store()
		prs := g.products(4)
		return spec{fmt.Sprintf("Which products are OUT_OF_STOCK at %s as of %s?", m(st), m(at)),
			fmt.Sprintf("At %s, the products showing OUT_OF_STOCK as of %s are %s, %s and %s.", m(st), m(at), m(prs[0]), bad(prs[1]), m(prs[2])),
			ledger(lCount(3), lIDs(prs[0], prs[2], prs[3]), lIDs(st), asOfEntries(at)), fmt.Sprintf("%s replaced by %s", prs[3], prs[1])}
	case 6:
		pr := g.product()
		n := g.in(1, 23)
		real, fake := fmt.Sprintf("st-%03d", n), fmt.Sprintf("st-%03d", n+1)
		return spec{qPrice(pr, real, at), fmt.Sprintf("The price of %s at %s as of %s is %s.", m(pr), bad(fake), m(at), m("$"+dollars(c))),
			ledger(lCents(float64(c)), lIDs(pr, real), asOfEntries(at)), fmt.Sprintf("subtle: neighbouring store id %s for %s", fake, real)}
	}
	pr, st := g.product(), g.store()
	n := g.in(1, 3998)
	real, fake := fmt.Sprintf("evt-%06d", n), fmt.Sprintf("evt-%06d", n+1)
	return spec{qPrice(pr, st, at), fmt.Sprintf("%s is %s at %s (scan %s, as of %s).", m(pr), m("$"+dollars(c)), m(st), bad(fake), m(at)),
		ledger(lCents(float64(c)), lIDs(pr, st, real), asOfEntries(at)), fmt.Sprintf("subtle: neighbouring event id %s for %s", fake, real)}
}

func fDerived(g *gen, v int) spec {
	at := g.asOf()
	a, b, _, _ := g.window()
	sts := g.stores(2)
	switch v {
	case 0:
		x, y := g.in(3, 20), g.in(3, 20)
		return spec{fmt.Sprintf("How many OUT_OF_STOCK scans did %s and %s log between %s and %s?", m(sts[0]), m(sts[1]), m(a), m(b)),
			fmt.Sprintf("%s logged %s and %s logged %s OUT_OF_STOCK scans, a total of %s in the window.", m(sts[0]), mi(x), m(sts[1]), mi(y), bad(strconv.Itoa(x+y))),
			ledger(lCount(float64(x)), lCount(float64(y)), lIDs(sts...), windowEntries(a, b)), fmt.Sprintf("subtle: the sum %d is arithmetic the ledger never recorded", x+y)}
	case 1:
		x := g.in(10, 30)
		y := x - g.in(3, 8)
		return spec{fmt.Sprintf("Did %s or %s log more OUT_OF_STOCK scans between %s and %s?", m(sts[0]), m(sts[1]), m(a), m(b)),
			fmt.Sprintf("%s logged %s OUT_OF_STOCK scans, %s more than the %s at %s.", m(sts[0]), mi(x), bad(strconv.Itoa(x-y)), mi(y), m(sts[1])),
			ledger(lCount(float64(x)), lCount(float64(y)), lIDs(sts...), windowEntries(a, b)), fmt.Sprintf("subtle: the difference %d is not in the ledger", x-y)}
	case 2:
		prs, st := g.products(2), g.store()
		c1, c2 := g.price(), g.price()
		return spec{fmt.Sprintf("What do %s and %s cost at %s as of %s?", m(prs[0]), m(prs[1]), m(st), m(at)),
			fmt.Sprintf("%s is %s and %s is %s at %s, so buying both costs %s.", m(prs[0]), m("$"+dollars(c1)), m(prs[1]), m("$"+dollars(c2)), m(st), bad("$"+dollars(c1+c2))),
			ledger(lCents(float64(c1)), lCents(float64(c2)), lIDs(prs...), lIDs(st), asOfEntries(at)), "subtle: a computed total"}
	case 3:
		pr := g.product()
		c1 := g.in(150, 700)
		c2 := c1 + g.in(15, 90)
		return spec{fmt.Sprintf("Where is %s cheaper, at %s or %s, as of %s?", m(pr), m(sts[0]), m(sts[1]), m(at)),
			fmt.Sprintf("%s is cheaper at %s (%s versus %s), a saving of %s.", m(pr), m(sts[0]), m("$"+dollars(c1)), m("$"+dollars(c2)), bad("$"+dollars(c2-c1))),
			ledger(lCents(float64(c1)), lCents(float64(c2)), lIDs(pr), lIDs(sts...), asOfEntries(at)), "subtle: a computed price difference"}
	case 4:
		k := g.in(3, 20)
		r := float64(k) / 24
		return spec{qCount("OUT_OF_STOCK", at),
			fmt.Sprintf("%s of %s stores, or %s, were out of stock as of %s.", mi(k), mi(24), bad(pctText(r, 1)+"%"), m(at)),
			ledger(lCount(float64(k)), lCount(24), asOfEntries(at)), "subtle: a correctly computed percent the ledger does not hold"}
	}
	n, k := g.in(40, 200), g.in(6, 15)
	return spec{fmt.Sprintf("How many OUT_OF_STOCK scans did the affected stores log between %s and %s?", m(a), m(b)),
		fmt.Sprintf("The %s affected stores logged %s OUT_OF_STOCK scans, about %s per store.", mi(k), mi(n), bad(strconv.FormatFloat(float64(n)/float64(k), 'f', 1, 64))),
		ledger(lCount(float64(n)), lCount(float64(k)), windowEntries(a, b)), "subtle: a computed average the ledger does not hold"}
}

func fWrongCurrency(g *gen, v int) spec {
	at, st, pr, c := g.asOf(), g.store(), g.product(), g.price()
	q := qPrice(pr, st, at)
	switch v {
	case 0:
		return spec{q, fmt.Sprintf("The price of %s at %s as of %s is %s.", m(pr), m(st), m(at), bad("€"+dollars(c))),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)), "a price in cents (dollars) written in euros"}
	case 1:
		return spec{q, fmt.Sprintf("%s costs %s at %s as of %s.", m(pr), bad("£"+dollars(c)), m(st), m(at)),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)), "a price in cents (dollars) written in pounds"}
	}
	return spec{q, fmt.Sprintf("As of %s, %s lists %s at %s.", m(at), m(st), m(pr), bad(dollars(c)+" EUR")),
		ledger(lUSD(float64(c)/100), lIDs(st, pr), asOfEntries(at)), "a usd price with the code EUR"}
}

func fDecimalShift(g *gen, v int) spec {
	at, st, pr := g.asOf(), g.store(), g.product()
	a, b, _, _ := g.window()
	c := g.price()
	switch v {
	case 0:
		return spec{qPrice(pr, st, at), fmt.Sprintf("The price of %s at %s as of %s is %s.", m(pr), m(st), m(at), bad("$"+dollars(c*10))),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)), fmt.Sprintf("%d cents with the decimal point moved: $%s", c, dollars(c*10))}
	case 1:
		return spec{qPrice(pr, st, at), fmt.Sprintf("%s costs %s at %s as of %s.", m(pr), bad("$"+dollars(c/10)), m(st), m(at)),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)), fmt.Sprintf("%d cents shifted to $%s", c, dollars(c/10))}
	case 2:
		k := g.in(5, 20)
		r := float64(k) / 24
		cond := g.cond()
		return spec{fmt.Sprintf("What share of stores have condition %s as of %s?", cond, m(at)),
			fmt.Sprintf("%s of stores had %s as of %s.", bad(pctText(r/10, 2)+"%"), cond, m(at)),
			ledger(lCount(float64(k)), lCount(24), lRatio(r), asOfEntries(at)), fmt.Sprintf("ratio %v shifted by a decimal place", r)}
	}
	n := g.in(50, 120)
	avg := float64(n) / 24
	return spec{fmt.Sprintf("On average, how many OUT_OF_STOCK scans did each store log between %s and %s?", m(a), m(b)),
		fmt.Sprintf("Each store logged %s OUT_OF_STOCK scans on average in [%s, %s).", bad(strconv.FormatFloat(avg*10, 'f', 1, 64)), m(a), m(b)),
		ledger(lCount(avg), lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("average %v shifted by a decimal place", avg)}
}

func fRangeEdge(g *gen, v int) spec {
	a, b, _, _ := g.window()
	lo := g.in(3, 12)
	hi := lo + g.in(2, 9)
	k := g.in(4, 12)
	l := ledger(lCount(float64(lo)), lCount(float64(hi)), lCount(float64(k)), windowEntries(a, b))
	q := fmt.Sprintf("How many OUT_OF_STOCK scans did the affected stores log between %s and %s?", m(a), m(b))
	switch v {
	case 0:
		return spec{q, fmt.Sprintf("Per-store counts ranged %s-%s OUT_OF_STOCK scans over the %s affected stores.", mi(lo), bad(strconv.Itoa(hi+1)), mi(k)),
			l, fmt.Sprintf("the range's upper end is %d, the ledger maximum %d", hi+1, hi)}
	case 1:
		return spec{q, fmt.Sprintf("Each affected store logged between %s and %s OUT_OF_STOCK scans in [%s, %s).", bad(strconv.Itoa(lo-1)), mi(hi), m(a), m(b)),
			l, fmt.Sprintf("the range's lower end is %d, the ledger minimum %d", lo-1, lo)}
	}
	pr, at := g.product(), g.asOf()
	c1 := g.in(150, 600)
	c2 := c1 + g.in(60, 150)
	return spec{fmt.Sprintf("How does the price of %s vary across stores as of %s?", m(pr), m(at)),
		fmt.Sprintf("%s is priced from %s to %s across the %s stores that stock it as of %s.", m(pr), m("$"+dollars(c1)), bad("$"+dollars(c2-40)), mi(k), m(at)),
		ledger(lCents(float64(c1)), lCents(float64(c2)), lCount(float64(k)), lIDs(pr), asOfEntries(at)),
		fmt.Sprintf("the price range ends at $%s but the ledger maximum is %d cents", dollars(c2-40), c2)}
}

func fAlteredEcho(g *gen, v int) spec {
	a, b, _, _ := g.window()
	at := g.asOf()
	switch v {
	case 0:
		th, k := g.in(3, 8), g.in(2, 4)
		sts := g.stores(k)
		return spec{fmt.Sprintf("Which stores had more than %s OUT_OF_STOCK scans between %s and %s?", mi(th), m(a), m(b)),
			fmt.Sprintf("%s stores had more than %s OUT_OF_STOCK scans in that window: %s.", mi(k), bad(strconv.Itoa(th+2)), idList(sts, 0)),
			ledger(lCount(float64(k)), lIDs(sts...), windowEntries(a, b)), fmt.Sprintf("the question's threshold %d is restated as %d", th, th+2)}
	case 1:
		pr, st := g.product(), g.store()
		c := g.in(200, 420)
		return spec{fmt.Sprintf("Is the price of %s at %s below %s as of %s?", m(pr), m(st), m("$5.00"), m(at)),
			fmt.Sprintf("Yes. %s costs %s at %s as of %s, comfortably under %s.", m(pr), m("$"+dollars(c)), m(st), m(at), bad("$4.50")),
			ledger(lCents(float64(c)), lIDs(pr, st), asOfEntries(at)), "the question's $5.00 threshold restated as $4.50"}
	}
	days, n := g.in(3, 7), g.in(2, 15)
	start := time.Unix(unixOf(at)-int64(days)*86400, 0).UTC().Format(time.RFC3339)
	return spec{fmt.Sprintf("How many stores had LOW_STOCK scans in the %s days before %s?", mi(days), m(at)),
		fmt.Sprintf("In the %s days before %s, %s stores had LOW_STOCK scans.", bad(strconv.Itoa(days+3)), m(at), mi(n)),
		ledger(lCount(float64(n)), windowEntries(start, at)), fmt.Sprintf("the question's %d days restated as %d", days, days+3)}
}

func fBuried(g *gen, v int) spec {
	a, b, _, d1 := g.window()
	at := g.asOf()
	switch v {
	case 0:
		k := g.in(3, 12)
		r := float64(k) / 24
		st, pr, w := g.store(), g.product(), g.in(4, 15)
		c := g.in(100, 999)
		if c/10%10 == c%10 {
			return redraw
		}
		fake, _ := strconv.Atoi(swapAt(strconv.Itoa(c), 1, 2))
		return spec{fmt.Sprintf("Give me an out-of-stock summary as of %s.", m(at)),
			fmt.Sprintf("As of %s, %s of %s stores (%s) were out of stock. The worst hit was %s, with %s OUT_OF_STOCK scans in [%s, %s). There, %s is priced at %s.",
				m(at), mi(k), mi(24), m(pctText(r, 1)+"%"), m(st), mi(w), m(a), m(b), m(pr), bad("$"+dollars(fake))),
			ledger(lCount(float64(k)), lCount(24), lRatio(r), asOfEntries(at), lCount(float64(w)), windowEntries(a, b), lIDs(st, pr), lCents(float64(c))),
			fmt.Sprintf("subtle: a long summary whose last price has transposed cents (%d in the ledger)", c)}
	case 1:
		k := g.in(2, 4)
		sts := g.stores(k)
		pr, c, j := g.product(), g.price(), g.in(3, 9)
		return spec{fmt.Sprintf("Which stores have PRICE_MISMATCH as of %s, and what does %s cost at %s?", m(at), m(pr), m(sts[0])),
			fmt.Sprintf("%s stores had PRICE_MISMATCH as of %s: %s. At %s the price of %s is %s (%s), and %s products there are LOW_STOCK.",
				mi(k), m(at), idList(sts, 0), m(sts[0]), m(pr), m("$"+dollars(c)), m(fmt.Sprintf("%d cents", c)), bad(strconv.Itoa(j+2))),
			ledger(lCount(float64(k)), lIDs(sts...), asOfEntries(at), lIDs(pr), lCents(float64(c)), lCount(float64(j))),
			fmt.Sprintf("subtle: the last count is %d; the ledger holds %d", j+2, j)}
	case 2:
		st := g.store()
		n := g.in(40, 120)
		k := g.in(n/5, n/2)
		j := g.in(3, k-1)
		r := float64(k) / float64(n)
		ev := g.events(1)[0]
		t := ts(d1+1, g.in(1, 22), 0)
		return spec{fmt.Sprintf("Summarise the scans at %s between %s and %s.", m(st), m(a), m(b)),
			fmt.Sprintf("Summary for %s between %s and %s: %s scans in total, %s of them OUT_OF_STOCK (%s) and %s LOW_STOCK. The most recent scan, %s, was at %s.",
				m(st), m(a), m(b), mi(n), mi(k), m(pctText(r, 1)+"%"), mi(j), m(ev), bad(t)),
			ledger(lCount(float64(n)), lCount(float64(k)), lCount(float64(j)), lRatio(r), windowEntries(a, b), lIDs(st, ev)),
			fmt.Sprintf("subtle: the closing instant %s is after the window", t)}
	}
	st := g.store()
	n := g.in(40, 120)
	k := g.in(n/5, n/2)
	r := float64(k) / float64(n)
	fake := math.Round(r*1000)/10 + []float64{-0.5, 0.5}[g.r.IntN(2)]
	return spec{fmt.Sprintf("Summarise the scans at %s between %s and %s.", m(st), m(a), m(b)),
		fmt.Sprintf("Between %s and %s, %s logged %s scans. %s of them were OUT_OF_STOCK, which is %s of the total.",
			m(a), m(b), m(st), mi(n), mi(k), bad(strconv.FormatFloat(fake, 'f', 1, 64)+"%")),
		ledger(lCount(float64(n)), lCount(float64(k)), lRatio(r), windowEntries(a, b), lIDs(st)),
		fmt.Sprintf("subtle: %.1f%% for ratio %v (%.2f%% off) at the end of a correct summary", fake, r, 100*relDiff(r, fake/100))}
}

// ---- issue 7: scale words, digits outside ASCII, honest rounding, inline lists ----

// Zeros of the digit sets the templates write in.
const (
	zeroFullwidth    = 0xFF10
	zeroArabicIndic  = 0x0660
	zeroExtArabic    = 0x06F0
	zeroDevanagari   = 0x0966
	zeroBengali      = 0x09E6
	zeroThai         = 0x0E50
	zeroSuperscripts = -1
)

// script writes the ASCII digits of s in the digit set starting at zero
// (zeroSuperscripts: superscript digits).
func script(s string, zero rune) string { return grounding.InScript(s, zero) }

func qScans(a, b string) string {
	return fmt.Sprintf("How many scans were logged across all stores between %s and %s?", m(a), m(b))
}

func gScaleWord(g *gen, v int) spec {
	a, b, _, _ := g.window()
	at, st := g.asOf(), g.store()
	switch v {
	case 0:
		k := g.in(11, 19)
		n := k*100 + g.in(-3, 3)
		return spec{qScans(a, b), fmt.Sprintf("About %s scans were logged chain-wide in [%s, %s).", m(word(k)+" hundred"), m(a), m(b)),
			ledger(lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("%q is %d rounded to hundreds", word(k)+" hundred", n)}
	case 1:
		k := g.in(5, 9)
		n := k*1000 + g.in(-15, 15)
		return spec{qScans(a, b), fmt.Sprintf("Roughly %s scans were logged between %s and %s.", m(fmt.Sprintf("%dk", k)), m(a), m(b)),
			ledger(lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("%dk is %d rounded to thousands", k, n)}
	case 2:
		d := g.in(11, 99)
		c := d*10_000_000 + g.in(-1000, 1000)*100
		return spec{fmt.Sprintf("What is the total shelf value at %s as of %s?", m(st), m(at)),
			fmt.Sprintf("The shelf value at %s was %s as of %s.", m(st), m("$"+strconv.FormatFloat(float64(d)/10, 'f', 1, 64)+"M"), m(at)),
			ledger(lCents(float64(c)), lIDs(st), asOfEntries(at)), fmt.Sprintf("$%.1fM for %d cents: M multiplies", float64(d)/10, c)}
	case 3:
		k := g.in(2, 20)
		return spec{qWindow(st, "LOW_STOCK", a, b),
			fmt.Sprintf("%s logged %s LOW_STOCK scans between %s and %s.", m(st), m(word(k)+" dozen"), m(a), m(b)),
			ledger(lCount(float64(k*12)), windowEntries(a, b), lIDs(st)), fmt.Sprintf("%q is %d", word(k)+" dozen", k*12)}
	case 4:
		d := g.in(11, 99)
		n := d*100_000 + g.in(-300, 300)*10
		return spec{qScans(a, b), fmt.Sprintf("Some %s scans were logged in [%s, %s).", m(strconv.FormatFloat(float64(d)/10, 'f', 1, 64)+" million"), m(a), m(b)),
			ledger(lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("%.1f million for %d", float64(d)/10, n)}
	case 5:
		k := g.in(2, 9)
		n := k*100_000 + g.in(-100, 100)
		return spec{qScans(a, b), fmt.Sprintf("Chain-wide, %s scans were logged between %s and %s.", m(fmt.Sprintf("%d lakh", k)), m(a), m(b)),
			ledger(lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("%d lakh is %d rounded to lakhs", k, n)}
	case 6:
		d := g.in(101, 999)
		c := d*10_000_000 + g.in(-1000, 1000)*100
		return spec{fmt.Sprintf("What is the chain's total shelf value as of %s?", m(at)),
			fmt.Sprintf("As of %s the chain's shelf value was %s.", m(at), m("$"+strconv.FormatFloat(float64(d)/10, 'f', 1, 64)+"m")),
			ledger(lCents(float64(c)), asOfEntries(at)), "lower-case m multiplies money"}
	}
	k := g.in(2, 9)
	return spec{fmt.Sprintf("How many facings are missing at %s as of %s?", m(st), m(at)),
		fmt.Sprintf("At %s, %s of shelf had missing facings as of %s.", m(st), m(fmt.Sprintf("%d m", k)), m(at)),
		ledger(lCount(float64(k)), lIDs(st), asOfEntries(at)), "lower-case m outside money is metres: the number stays as written"}
}

func gUnicodeDigits(g *gen, v int) spec {
	at, st, pr := g.asOf(), g.store(), g.product()
	c := g.cond()
	switch v {
	case 0, 2, 3:
		n := g.in(2, 20)
		zero := map[int]rune{0: zeroFullwidth, 2: zeroArabicIndic, 3: zeroDevanagari}[v]
		return spec{qCount(c, at), fmt.Sprintf("%s stores have condition %s as of %s.", m(script(strconv.Itoa(n), zero)), c, m(at)),
			ledger(lCount(float64(n)), asOfEntries(at)), fmt.Sprintf("count %d written in another digit set", n)}
	case 1, 5:
		p := g.price()
		text := m("$" + script(dollars(p), zeroFullwidth))
		if v == 5 {
			text = m(script(strconv.Itoa(p), zeroExtArabic) + " cents")
		}
		return spec{qPrice(pr, st, at), fmt.Sprintf("The price of %s at %s as of %s is %s.", m(pr), m(st), m(at), text),
			ledger(lCents(float64(p)), lIDs(st, pr), asOfEntries(at)), fmt.Sprintf("%d cents written in another digit set", p)}
	}
	k := g.in(1, 7)
	r := float64(k) / 8
	return spec{fmt.Sprintf("What share of stores have condition %s as of %s?", c, m(at)),
		fmt.Sprintf("%s of stores had %s as of %s.", m(script(pctText(r, 1), zeroBengali)+"%"), c, m(at)),
		ledger(lRatio(r), asOfEntries(at)), fmt.Sprintf("ratio %v as a percent in Bengali digits", r)}
}

func gHonestRounding(g *gen, v int) spec {
	a, b, _, _ := g.window()
	at, st, pr := g.asOf(), g.store(), g.product()
	switch v {
	case 0:
		c := g.in(1000, 2999)
		if d := c % 10; d == 0 || d >= 4 && d <= 6 {
			return redraw
		}
		dimes := int(math.Round(float64(c) / 10))
		return spec{qPrice(pr, st, at), fmt.Sprintf("%s costs about %s at %s as of %s.", m(pr), m("$"+strconv.FormatFloat(float64(dimes)/10, 'f', 1, 64)), m(st), m(at)),
			ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)), fmt.Sprintf("%d cents honestly rounded to ten cents", c)}
	case 1:
		n := []int{7, 9, 13}[g.r.IntN(3)]
		k := g.in(n/4+1, n-1)
		r := float64(k) / float64(n)
		p := math.Round(r*1000) / 10
		cd := g.cond()
		return spec{fmt.Sprintf("What share of stores have condition %s as of %s?", cd, m(at)),
			fmt.Sprintf("%s of stores had %s as of %s.", m(strconv.FormatFloat(p, 'f', 1, 64)+"%"), cd, m(at)),
			ledger(lRatio(r), asOfEntries(at)), fmt.Sprintf("ratio %d/%d rounded in percent to one decimal", k, n)}
	case 2:
		p1, p2 := g.in(500, 1999), g.in(500, 1999)
		if (p1+p2)%2 == 0 {
			return redraw
		}
		avg := float64(p1+p2) / 2
		return spec{fmt.Sprintf("What is the average price of %s across stores as of %s?", m(pr), m(at)),
			fmt.Sprintf("Across %s stores, %s averages %s as of %s.", mi(2), m(pr), m("$"+dollars((p1+p2+1)/2)), m(at)),
			ledger(lCount(2), lCents(avg), lIDs(pr), asOfEntries(at)), fmt.Sprintf("%v cents: a half rounds away from zero", avg)}
	case 3:
		k := g.in(2, 9)
		off := g.in(1, 4) * []int{-1, 1}[g.r.IntN(2)]
		return spec{qScans(a, b), fmt.Sprintf("About %s scans were logged between %s and %s.", m(thousands(k*1000)), m(a), m(b)),
			ledger(lCount(float64(k*1000+off)), windowEntries(a, b)), fmt.Sprintf("trailing zeros: %d rounded to thousands", k*1000+off)}
	case 4:
		x := g.in(1500, 4999)
		if x%10 == 5 {
			return redraw
		}
		r := math.Round(float64(x)/10) / 1000
		cd := g.cond()
		return spec{fmt.Sprintf("What share of stores have condition %s as of %s?", cd, m(at)),
			fmt.Sprintf("The share of stores with %s as of %s is a ratio of %s.", cd, m(at), m(strconv.FormatFloat(r, 'f', 3, 64))),
			ledger(lPercent(float64(x)/100), asOfEntries(at)), fmt.Sprintf("%.2f percent rounded as a ratio to three decimals", float64(x)/100)}
	}
	n := g.in(8000, 9999)
	tenths := int(math.Round(float64(n) * 10 / 7))
	return spec{fmt.Sprintf("How many scans per day were logged chain-wide between %s and %s?", m(a), m(b)),
		fmt.Sprintf("Chain-wide, scans averaged %s per day over the window.", m(fmt.Sprintf("%s.%d", thousands(tenths/10), tenths%10))),
		ledger(lCount(float64(n)/7), lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("%d/7 to one decimal, with a thousands separator", n)}
}

func gInlineList(g *gen, v int) spec {
	at, st := g.asOf(), g.store()
	c := g.cond()
	switch v {
	case 0:
		prs := g.products(2)
		return spec{fmt.Sprintf("Which products are OUT_OF_STOCK at %s as of %s?", m(st), m(at)),
			fmt.Sprintf("%s products: %s %s %s %s (at %s as of %s).", m("Two"), ord("1."), m(prs[0]), ord("2."), m(prs[1]), m(st), m(at)),
			ledger(lCount(2), lIDs(prs...), lIDs(st), asOfEntries(at)), "the issue's inline list: indices after a colon"}
	case 1:
		k := g.in(3, 4)
		prs := g.products(k)
		var parts []string
		for i, p := range prs {
			parts = append(parts, ord(fmt.Sprintf("%d)", i+1))+" "+m(p))
		}
		return spec{fmt.Sprintf("Which products are LOW_STOCK at %s as of %s?", m(st), m(at)),
			fmt.Sprintf("At %s, %s products are LOW_STOCK as of %s: %s.", m(st), mi(k), m(at), strings.Join(parts, ", ")),
			ledger(lCount(float64(k)), lIDs(prs...), lIDs(st), asOfEntries(at)), "indices 1) 2) after a colon, separated by commas"}
	case 2:
		sts := g.stores(2)
		cs := g.desc(2, 5, 30)
		a, b, _, _ := g.window()
		return spec{fmt.Sprintf("Which stores had the most LOW_STOCK scans between %s and %s?", m(a), m(b)),
			fmt.Sprintf("The ranking by LOW_STOCK scans; %s %s with %s scans %s %s with %s scans.", ord("1."), m(sts[0]), mi(cs[0]), ord("2."), m(sts[1]), mi(cs[1])),
			ledger(lCount(float64(cs[0])), lCount(float64(cs[1])), lIDs(sts...), windowEntries(a, b)), "an inline list after a semicolon"}
	case 3:
		prs := g.products(3)
		return spec{fmt.Sprintf("Which products are OUT_OF_STOCK at %s as of %s?", m(st), m(at)),
			fmt.Sprintf("The products out of stock at %s as of %s are %s %s %s %s %s %s", m(st), m(at), ord("1)"), m(prs[0]), ord("2)"), m(prs[1]), ord("3)"), m(prs[2])),
			ledger(lIDs(prs...), lIDs(st), asOfEntries(at)), "a run 1) 2) 3) in running text"}
	case 4:
		sts := g.stores(3)
		return spec{fmt.Sprintf("List the stores with condition %s as of %s.", c, m(at)),
			fmt.Sprintf("In order, %s %s %s %s %s %s had %s as of %s.", ord("1."), m(sts[0]), ord("2."), m(sts[1]), ord("3."), m(sts[2]), c, m(at)),
			ledger(lIDs(sts...), asOfEntries(at)), "an inline list after a comma"}
	}
	sts := g.stores(3)
	return spec{fmt.Sprintf("List the stores with condition %s as of %s.", c, m(at)),
		fmt.Sprintf("Stores with %s as of %s: %s %s\n%s %s\n%s %s", c, m(at), ord("1."), m(sts[0]), ord("2."), m(sts[1]), ord("3."), m(sts[2])),
		ledger(lIDs(sts...), asOfEntries(at)), "an inline list continued on the next lines"}
}

func fScaleWord(g *gen, v int) spec {
	a, b, _, _ := g.window()
	at, st := g.asOf(), g.store()
	c := g.cond()
	switch v {
	case 0:
		k := g.in(2, 9)
		return spec{qCount(c, at), fmt.Sprintf("%s stores have condition %s as of %s.", bad(fmt.Sprintf("%d hundred", k)), c, m(at)),
			ledger(lCount(float64(k)), asOfEntries(at)), fmt.Sprintf("the ledger holds %d; the scale word makes it %d", k, k*100)}
	case 1:
		k := g.in(2, 9)
		return spec{qScans(a, b), fmt.Sprintf("%s scans were logged in [%s, %s).", bad(fmt.Sprintf("%dk", k)), m(a), m(b)),
			ledger(lCount(float64(k)), windowEntries(a, b)), fmt.Sprintf("the ledger holds %d; %dk is %d", k, k, k*1000)}
	case 2:
		k := g.in(2, 12)
		return spec{qWindow(st, "LOW_STOCK", a, b), fmt.Sprintf("%s logged %s LOW_STOCK scans in the window.", m(st), bad(word(k)+" dozen")),
			ledger(lCount(float64(k)), windowEntries(a, b), lIDs(st)), fmt.Sprintf("the ledger holds %d; %q is %d", k, word(k)+" dozen", k*12)}
	case 3:
		k := g.in(11, 19)
		return spec{qScans(a, b), fmt.Sprintf("About %s scans were logged chain-wide.", bad(word(k)+" hundred")),
			ledger(lCount(float64(k)), windowEntries(a, b)), fmt.Sprintf("the ledger holds %d; %q is %d", k, word(k)+" hundred", k*100)}
	case 4:
		d := g.in(11, 99)
		return spec{fmt.Sprintf("On average, how many scans did each store log between %s and %s?", m(a), m(b)),
			fmt.Sprintf("Each store logged %s scans on average.", bad(strconv.FormatFloat(float64(d)/10, 'f', 1, 64)+" million")),
			ledger(lCount(float64(d)/10), windowEntries(a, b)), fmt.Sprintf("the ledger holds %.1f; million multiplies it", float64(d)/10)}
	case 5:
		pr, p := g.product(), g.in(101, 999)
		return spec{qPrice(pr, st, at), fmt.Sprintf("%s sells for %s at %s as of %s.", m(pr), bad("$"+dollars(p)+"M"), m(st), m(at)),
			ledger(lCents(float64(p)), lIDs(pr, st), asOfEntries(at)), fmt.Sprintf("%d cents, but M makes it millions of dollars", p)}
	case 6:
		pr, k := g.product(), g.in(3, 20)
		return spec{qPrice(pr, st, at), fmt.Sprintf("%s costs %s at %s as of %s.", m(pr), bad(fmt.Sprintf("€%dk", k)), m(st), m(at)),
			ledger(lEUR(float64(k)), lIDs(pr, st), asOfEntries(at)), fmt.Sprintf("€%d in the ledger; k makes it €%d", k, k*1000)}
	}
	pr, k := g.product(), g.in(2, 9)
	return spec{qPrice(pr, st, at), fmt.Sprintf("%s is valued at %s at %s as of %s.", m(pr), bad(fmt.Sprintf("$%dB", k)), m(st), m(at)),
		ledger(lUSD(float64(k)), lIDs(pr, st), asOfEntries(at)), fmt.Sprintf("$%d in the ledger; B after a dollar amount is billions", k)}
}

func fUnicodeDigits(g *gen, v int) spec {
	at, st, pr := g.asOf(), g.store(), g.product()
	c := g.cond()
	switch v {
	case 0, 2, 3, 5:
		n := g.in(3, 20)
		fake := n + []int{1, 1, -1, 2}[map[int]int{0: 0, 2: 1, 3: 2, 5: 3}[v]]
		zero := map[int]rune{0: zeroFullwidth, 2: zeroDevanagari, 3: zeroArabicIndic, 5: zeroBengali}[v]
		return spec{qCount(c, at), fmt.Sprintf("%s stores have condition %s as of %s.", bad(script(strconv.Itoa(fake), zero)), c, m(at)),
			ledger(lCount(float64(n)), asOfEntries(at)), fmt.Sprintf("%d in another digit set; the ledger holds %d", fake, n)}
	case 1:
		p := g.price()
		fake := p + 200
		return spec{qPrice(pr, st, at), fmt.Sprintf("The price of %s at %s as of %s is %s.", m(pr), m(st), m(at), bad("$"+script(dollars(fake), zeroFullwidth))),
			ledger(lCents(float64(p)), lIDs(st, pr), asOfEntries(at)), fmt.Sprintf("fullwidth $%s; the ledger holds %d cents", dollars(fake), p)}
	case 4:
		n := g.in(3, 20)
		return spec{qCount(c, at), fmt.Sprintf("%s stores%s have condition %s as of %s.", mi(n), bad(script(strconv.Itoa(n+1), zeroSuperscripts)), c, m(at)),
			ledger(lCount(float64(n)), asOfEntries(at)), "a superscript number is a numeral too"}
	}
	k := g.in(1, 7)
	r := float64(k) / 8
	return spec{fmt.Sprintf("What share of stores have condition %s as of %s?", c, m(at)),
		fmt.Sprintf("%s of stores had %s as of %s.", bad(script(strconv.Itoa(k*125/10+3), zeroThai)+"%"), c, m(at)),
		ledger(lRatio(r), asOfEntries(at)), fmt.Sprintf("a percent in Thai digits; the ledger ratio is %v", r)}
}

func fDishonestRounding(g *gen, v int) spec {
	a, b, _, _ := g.window()
	at, st, pr := g.asOf(), g.store(), g.product()
	switch v {
	case 0:
		n := g.in(60, 200)
		avg := float64(n) / 7
		fake := math.Round(avg*100)/100 + 0.01
		return spec{fmt.Sprintf("How many LOW_STOCK scans per day were logged chain-wide between %s and %s?", m(a), m(b)),
			fmt.Sprintf("Chain-wide, LOW_STOCK scans averaged %s per day.", bad(strconv.FormatFloat(fake, 'f', 2, 64))),
			ledger(lCount(avg), lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("%v never rounds to %.2f: a fabricated last digit within tolerance", avg, fake)}
	case 1:
		sum := g.price() + g.price() + g.price()
		if sum%3 == 0 {
			return redraw
		}
		avg := float64(sum) / 3
		fake := int(math.Round(avg)) + 1
		return spec{fmt.Sprintf("What is the average price of %s across stores as of %s?", m(pr), m(at)),
			fmt.Sprintf("Across %s stores, %s averages %s as of %s.", mi(3), m(pr), bad("$"+dollars(fake)), m(at)),
			ledger(lCount(3), lCents(avg), lIDs(pr), asOfEntries(at)), fmt.Sprintf("%v cents never rounds to $%s", avg, dollars(fake))}
	case 2:
		n := []int{7, 9, 11, 13}[g.r.IntN(4)]
		k := g.in(n/4+1, n-1)
		r := float64(k) / float64(n)
		fake := math.Round(r*1000)/10 + 0.1
		cd := g.cond()
		return spec{fmt.Sprintf("What share of stores have condition %s as of %s?", cd, m(at)),
			fmt.Sprintf("%s of stores had %s as of %s.", bad(strconv.FormatFloat(fake, 'f', 1, 64)+"%"), cd, m(at)),
			ledger(lRatio(r), asOfEntries(at)), fmt.Sprintf("ratio %d/%d never rounds to %.1f%%", k, n, fake)}
	case 3:
		n := g.in(2500, 9999)
		fake := n - n%10
		if n%10 < 6 || fake%100 == 0 {
			return redraw
		}
		return spec{qScans(a, b), fmt.Sprintf("About %s scans were logged in the window.", bad(thousands(fake))),
			ledger(lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("%d truncated, not rounded, to tens", n)}
	case 4:
		n := g.in(1800, 6000)
		avg := float64(n) / 7
		fake := int(avg)
		if avg-float64(fake) < 0.5 || fake%10 == 0 {
			return redraw
		}
		return spec{fmt.Sprintf("How many scans per day were logged chain-wide between %s and %s?", m(a), m(b)),
			fmt.Sprintf("That is %s scans per day.", bad(strconv.Itoa(fake))),
			ledger(lCount(avg), lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("%v truncated to %d", avg, fake)}
	case 5:
		n := g.in(4_000_000, 9_900_000)
		fake := math.Floor(float64(n)/1e4+0.5) + 1
		return spec{qScans(a, b), fmt.Sprintf("Some %s scans were logged in [%s, %s).", bad(strconv.FormatFloat(fake/100, 'f', 2, 64)+" million"), m(a), m(b)),
			ledger(lCount(float64(n)), windowEntries(a, b)), fmt.Sprintf("%d never rounds to %.2f million", n, fake/100)}
	}
	c := g.in(5000, 9999)
	if c%10 < 6 {
		return redraw
	}
	return spec{qPrice(pr, st, at), fmt.Sprintf("%s costs about %s at %s as of %s.", m(pr), bad("$"+strconv.FormatFloat(float64(c/10)/10, 'f', 1, 64)), m(st), m(at)),
		ledger(lCents(float64(c)), lIDs(st, pr), asOfEntries(at)), fmt.Sprintf("%d cents truncated, not rounded, to ten cents", c)}
}

func fProseNumber(g *gen, v int) spec {
	at, st := g.asOf(), g.store()
	c := g.cond()
	switch v {
	case 0:
		prs := g.products(2)
		k := g.in(3, 9)
		return spec{fmt.Sprintf("Which products are OUT_OF_STOCK at %s as of %s?", m(st), m(at)),
			fmt.Sprintf("%s products are OUT_OF_STOCK at %s: %s %s %s %s; %s more are LOW_STOCK.", m("Two"), m(st), ord("1."), m(prs[0]), ord("2."), m(prs[1]), bad(strconv.Itoa(k))),
			ledger(lCount(2), lIDs(prs...), lIDs(st), asOfEntries(at)), "a count after an inline list is no index"}
	case 1:
		sts := g.stores(2)
		k := g.in(3, 9)
		return spec{qCount(c, at), fmt.Sprintf("Stores with %s as of %s: %s. Their ids are %s and %s.", c, m(at), bad(strconv.Itoa(k)), m(sts[0]), m(sts[1])),
			ledger(lCount(2), lIDs(sts...), asOfEntries(at)), "a count after a colon that is no list's first index"}
	case 2:
		sts := g.stores(2)
		k := g.in(3, 9)
		return spec{qCount(c, at), fmt.Sprintf("There are %s stores with %s: %s %s %s %s", bad(strconv.Itoa(k)), c, ord("1."), m(sts[0]), ord("2."), m(sts[1])),
			ledger(lCount(2), lIDs(sts...), asOfEntries(at)), "a bare count in prose before an inline list"}
	}
	pr := g.product()
	return spec{fmt.Sprintf("What sells best at %s as of %s?", m(st), m(at)),
		fmt.Sprintf("The best seller at %s was %s) %s as of %s.", m(st), bad("1"), m(pr), m(at)),
		ledger(lIDs(pr, st), asOfEntries(at)), "a lone 1) with no 2) after it is the number 1"}
}
