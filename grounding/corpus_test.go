package grounding_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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

// corpusItem is one line of testdata/corpus.jsonl.
type corpusItem struct {
	ID       string           `json:"id"`
	Label    string           `json:"label"` // grounded | fabricated
	Question string           `json:"question"`
	Text     string           `json:"text"`
	Ledger   grounding.Ledger `json:"ledger"`
	Unlogged []string         `json:"unlogged"` // numerals in Text nothing backs; [] when grounded
	Kind     string           `json:"kind"`
	Note     string           `json:"note"`
}

const (
	corpusSize           = 252
	corpusPerLabel       = 126
	maxFalseRefusals     = 0
	labelGrounded        = "grounded"
	labelFabricated      = "fabricated"
	corpusFile           = "testdata/corpus.jsonl"
	corpusMaxLineBytes   = 1 << 20
	corpusNumeralPattern = `[\p{Nd}⁰¹²³⁴⁵⁶⁷⁸⁹]` // a digit of any script, or a superscript
)

var corpusIDRe = regexp.MustCompile(`^[gf]-\d{3}$`)

// loadCorpus reads the corpus with strict decoding: an unknown field, a
// second value on a line or a blank line fails.
func loadCorpus(t *testing.T) []corpusItem {
	t.Helper()
	f, err := os.Open(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var items []corpusItem
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), corpusMaxLineBytes)
	for n := 1; sc.Scan(); n++ {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var it corpusItem
		if err := dec.Decode(&it); err != nil {
			t.Fatalf("%s:%d: %v", corpusFile, n, err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			t.Fatalf("%s:%d: trailing data after the object", corpusFile, n)
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return items
}

var corpusUnits = []grounding.Unit{grounding.UnitNone, grounding.UnitCount, grounding.UnitCents, grounding.UnitUSD,
	grounding.UnitEUR, grounding.UnitGBP, grounding.UnitRatio, grounding.UnitPercent, grounding.UnitTimestamp,
	grounding.UnitDate, grounding.UnitID}

// validateCorpus checks the corpus's own shape, independently of the checker.
func validateCorpus(t *testing.T, items []corpusItem) {
	t.Helper()
	if len(items) != corpusSize {
		t.Errorf("corpus has %d items, want %d", len(items), corpusSize)
	}
	labels := map[string]int{}
	seen := map[string]bool{}
	digit := regexp.MustCompile(corpusNumeralPattern)
	for _, it := range items {
		labels[it.Label]++
		if seen[it.ID] {
			t.Errorf("duplicate id %s", it.ID)
		}
		seen[it.ID] = true
		if !corpusIDRe.MatchString(it.ID) {
			t.Errorf("%s: id must look like g-001 or f-001", it.ID)
		}
		if it.Text == "" || it.Question == "" || it.Kind == "" || it.Note == "" {
			t.Errorf("%s: text, question, kind and note must all be set", it.ID)
		}
		if it.Unlogged == nil {
			t.Errorf("%s: unlogged must be present (an empty list when grounded)", it.ID)
		}
		switch it.Label {
		case labelGrounded:
			if !strings.HasPrefix(it.ID, "g-") {
				t.Errorf("%s: a grounded item's id starts with g-", it.ID)
			}
			if len(it.Unlogged) != 0 {
				t.Errorf("%s: a grounded item lists unlogged numerals %q", it.ID, it.Unlogged)
			}
		case labelFabricated:
			if !strings.HasPrefix(it.ID, "f-") {
				t.Errorf("%s: a fabricated item's id starts with f-", it.ID)
			}
			if len(it.Unlogged) == 0 {
				t.Errorf("%s: a fabricated item lists no unlogged numeral", it.ID)
			}
			for _, u := range it.Unlogged {
				if !strings.Contains(it.Text, u) {
					t.Errorf("%s: unlogged %q does not occur in the text", it.ID, u)
				}
				if !digit.MatchString(u) && !slices.Contains(corpusNumberWords, strings.ToLower(strings.Fields(u)[0])) {
					t.Errorf("%s: unlogged %q is not a numeral", it.ID, u)
				}
			}
		default:
			t.Errorf("%s: label %q, want grounded or fabricated", it.ID, it.Label)
		}
		for _, n := range it.Ledger.Numerals {
			if !slices.Contains(corpusUnits, n.Unit) {
				t.Errorf("%s: ledger unit %q is not in the vocabulary", it.ID, n.Unit)
			}
			if n.Unit == grounding.UnitID && n.ID == "" {
				t.Errorf("%s: an id entry without an id", it.ID)
			}
			if n.Window != [2]string{} {
				a, errA := time.Parse(time.RFC3339, n.Window[0])
				b, errB := time.Parse(time.RFC3339, n.Window[1])
				if errA != nil || errB != nil || b.Before(a) {
					t.Errorf("%s: bad window %q", it.ID, n.Window)
				}
			}
		}
	}
	if labels[labelGrounded] != corpusPerLabel || labels[labelFabricated] != corpusPerLabel {
		t.Errorf("labels %v, want %d of each", labels, corpusPerLabel)
	}
}

var corpusNumberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}

// numeralCore is the numeral's digits, or its number word's digits: what a
// numeral is once its unit, sign and separators are set aside.
func numeralCore(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	if b.Len() > 0 {
		return b.String()
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r < 'a' || r > 'z' }) {
		if i := slices.Index(corpusNumberWords, w); i >= 0 {
			return strconv.Itoa(i)
		}
	}
	for _, r := range s {
		if unicode.IsDigit(r) || strings.ContainsRune("⁰¹²³⁴⁵⁶⁷⁸⁹", r) {
			b.WriteRune(r) // digits of another script, compared as written
		}
	}
	return b.String()
}

var corpusNumberRe = regexp.MustCompile(`-?\d[\d,]*(\.\d+)?`)

// numeralValue parses the first number in s (separators dropped).
func numeralValue(s string) (float64, bool) {
	if c := numeralCore(s); c != "" && !strings.ContainsAny(s, "0123456789") {
		v, err := strconv.ParseFloat(c, 64)
		return v, err == nil
	}
	m := corpusNumberRe.FindString(s)
	if m == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
	return v, err == nil
}

// reported says whether the checker reported the unlogged numeral u among
// its unmatched numerals. The checker's Text is "as written" but may or
// may not include the unit word or symbol, or may report a range whole, so
// a report counts when its text equals u, or one contains the other and
// they are the same numeral: the same digits, or (a range end) the same
// value in any of the scalings 1, 100 and 1/100 the normalisation applies.
func reported(u string, unmatched []grounding.Unmatched) bool {
	nu := strings.ToLower(strings.TrimSpace(u))
	for _, x := range unmatched {
		nt := strings.ToLower(strings.TrimSpace(x.Text))
		if nt == "" {
			continue
		}
		if nt == nu {
			return true
		}
		if !strings.Contains(nu, nt) && !strings.Contains(nt, nu) {
			continue
		}
		if numeralCore(nt) == numeralCore(nu) {
			return true
		}
		if v, ok := numeralValue(nu); ok {
			for _, s := range []float64{1, 100, 0.01} {
				if math.Abs(x.Value-v*s) <= 1e-9*math.Max(1, math.Abs(v*s)) {
					return true
				}
			}
		}
	}
	return false
}

func describe(it corpusItem, rep grounding.Report) string {
	var un []string
	for _, u := range rep.Unmatched {
		un = append(un, fmt.Sprintf("%q=%v %s", u.Text, u.Value, u.Unit))
	}
	return fmt.Sprintf("%s [%s] verdict %s, unmatched [%s], allowances %v\n  question: %s\n  text:     %s\n  note:     %s",
		it.ID, it.Kind, rep.Verdict, strings.Join(un, ", "), rep.AllowanceHits, it.Question, it.Text, it.Note)
}

// TestCorpus holds the checker to the labelled corpus under the default
// policy: every fabricated answer is refused and each of its unlogged
// numerals is reported (recall 1.00), and no grounded answer is refused.
func TestCorpus(t *testing.T) {
	items := loadCorpus(t)
	validateCorpus(t, items)
	if t.Failed() {
		t.FailNow()
	}
	var tp, fn, fp, tn, unloggedTotal, unloggedFound int
	kinds := map[string]int{}
	for _, it := range items {
		kinds[it.Label+"/"+it.Kind]++
		rep := grounding.Check(it.Text, it.Ledger, it.Question, grounding.DefaultPolicy())
		switch it.Label {
		case labelFabricated:
			missed := []string{}
			for _, u := range it.Unlogged {
				unloggedTotal++
				if reported(u, rep.Unmatched) {
					unloggedFound++
				} else {
					missed = append(missed, u)
				}
			}
			if rep.Verdict == grounding.Refuse {
				tp++
			} else {
				fn++
			}
			if rep.Verdict != grounding.Refuse || len(missed) > 0 {
				t.Errorf("fabricated item passed or an unlogged numeral was not reported (missed %q): %s", missed, describe(it, rep))
			}
		case labelGrounded:
			if rep.Verdict == grounding.Refuse {
				fp++
				t.Logf("false refusal: %s", describe(it, rep))
			} else {
				tn++
			}
		}
	}
	recall := 0.0
	if unloggedTotal > 0 {
		recall = float64(unloggedFound) / float64(unloggedTotal)
	}
	t.Logf("confusion (positive = fabricated, refused = predicted positive): TP %d  FN %d  FP %d  TN %d", tp, fn, fp, tn)
	t.Logf("unlogged numerals reported: %d of %d (recall %.2f); false refusals %d of %d grounded (%.1f%%)",
		unloggedFound, unloggedTotal, recall, fp, fp+tn, 100*float64(fp)/float64(max(1, fp+tn)))
	if fn != 0 || unloggedFound != unloggedTotal {
		t.Errorf("recall on unlogged numerals is %.2f (%d fabricated items passed), want 1.00", recall, fn)
	}
	if fp > maxFalseRefusals {
		t.Errorf("%d false refusals on grounded items, want at most %d", fp, maxFalseRefusals)
	}
	if testing.Verbose() {
		names := make([]string, 0, len(kinds))
		for k := range kinds {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			t.Logf("  %-32s %d", k, kinds[k])
		}
	}
}
