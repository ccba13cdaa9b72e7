package stats

import (
	"bytes"
	"encoding/xml"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestNormalQuantile(t *testing.T) {
	tests := []struct {
		p    float64
		want float64
	}{
		{0.5, 0},
		{0.9, 1.2815515655446004},
		{0.975, 1.959963984540054},
		{0.995, 2.5758293035489},
		{0.025, -1.959963984540054},
		{0.1, -1.2815515655446004},
		{0.999, 3.090232306167813}, // intermediate tail
		{1e-10, -6.361340902404056},
		{1e-20, -9.262340089798408}, // far tail, r > 5
	}
	for _, tt := range tests {
		t.Run(strconv.FormatFloat(tt.p, 'g', -1, 64), func(t *testing.T) {
			if got := NormalQuantile(tt.p); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("NormalQuantile(%v) = %.16g, want %.16g", tt.p, got, tt.want)
			}
		})
	}
	for _, p := range []float64{0, -1, math.Inf(-1)} {
		if got := NormalQuantile(p); !math.IsInf(got, -1) {
			t.Errorf("NormalQuantile(%v) = %v, want -Inf", p, got)
		}
	}
	for _, p := range []float64{1, 2, math.Inf(1)} {
		if got := NormalQuantile(p); !math.IsInf(got, 1) {
			t.Errorf("NormalQuantile(%v) = %v, want +Inf", p, got)
		}
	}
	if got := NormalQuantile(math.NaN()); !math.IsNaN(got) {
		t.Errorf("NormalQuantile(NaN) = %v, want NaN", got)
	}
}

// TestNormalQuantile_Erfinv checks AS 241 against an independent route to
// the same quantity, z = √2 · erfinv(2p − 1), away from the far tails where
// 2p − 1 loses the precision of p.
func TestNormalQuantile_Erfinv(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.Float64Range(1e-4, 1-1e-4).Draw(t, "p")
		got := NormalQuantile(p)
		want := math.Sqrt2 * math.Erfinv(2*p-1)
		if math.Abs(got-want) > 1e-9 {
			t.Fatalf("NormalQuantile(%v) = %.16g, erfinv gives %.16g", p, got, want)
		}
	})
}

func TestNormalQuantile_Monotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.Float64Range(1e-300, 1).Draw(t, "a")
		b := rapid.Float64Range(1e-300, 1).Draw(t, "b")
		if a > b {
			a, b = b, a
		}
		if za, zb := NormalQuantile(a), NormalQuantile(b); za > zb {
			t.Fatalf("NormalQuantile(%v) = %v > NormalQuantile(%v) = %v", a, za, b, zb)
		}
	})
}

// wilsonClosedForm is the Wilson interval written the other common way,
// (2s + z² ± z√(z² + 4s(n−s)/n)) / (2(n + z²)), with z from math.Erfinv:
// an independent computation to check Wilson against.
func wilsonClosedForm(s, n int, confidence float64) (lo, hi float64) {
	z := math.Sqrt2 * math.Erfinv(confidence)
	sf, nf := float64(s), float64(n)
	root := z * math.Sqrt(z*z+4*sf*(nf-sf)/nf)
	den := 2 * (nf + z*z)
	return (2*sf + z*z - root) / den, (2*sf + z*z + root) / den
}

func TestWilson(t *testing.T) {
	// Published values, rounded to 4 decimals: Wikipedia ("Binomial
	// proportion confidence interval") and Newcombe, Statistics in Medicine
	// 17 (1998) 857–872, Table I, method 3 (score, no continuity correction).
	tests := []struct {
		s, n   int
		conf   float64
		lo, hi float64
	}{
		{81, 263, 0.95, 0.2553, 0.3662},
		{15, 148, 0.95, 0.0624, 0.1605},
		{0, 20, 0.95, 0, 0.1611},
		{1, 29, 0.95, 0.0061, 0.1718},
		{29, 29, 0.95, 0.8830, 1},
		{0, 10, 0.95, 0, 0.2775},
		{1, 10, 0.95, 0.0179, 0.4042},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.s)+"of"+strconv.Itoa(tt.n), func(t *testing.T) {
			lo, hi, err := Wilson(tt.s, tt.n, tt.conf)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(lo-tt.lo) > 0.5e-4 || math.Abs(hi-tt.hi) > 0.5e-4 {
				t.Errorf("Wilson(%d, %d, %v) = [%.6f, %.6f], published [%.4f, %.4f]", tt.s, tt.n, tt.conf, lo, hi, tt.lo, tt.hi)
			}
			clo, chi := wilsonClosedForm(tt.s, tt.n, tt.conf)
			if math.Abs(lo-clo) > 1e-12 || math.Abs(hi-chi) > 1e-12 {
				t.Errorf("Wilson(%d, %d, %v) = [%.12f, %.12f], closed form [%.12f, %.12f]", tt.s, tt.n, tt.conf, lo, hi, clo, chi)
			}
		})
	}
}

func TestWilson_Errors(t *testing.T) {
	tests := []struct {
		name    string
		s, n    int
		conf    float64
		wantErr error
	}{
		{"zero n", 0, 0, 0.95, ErrSampleSize},
		{"negative n", 0, -3, 0.95, ErrSampleSize},
		{"negative successes", -1, 10, 0.95, ErrSuccesses},
		{"successes above n", 11, 10, 0.95, ErrSuccesses},
		{"confidence 0", 1, 10, 0, ErrConfidence},
		{"confidence 1", 1, 10, 1, ErrConfidence},
		{"confidence negative", 1, 10, -0.5, ErrConfidence},
		{"confidence NaN", 1, 10, math.NaN(), ErrConfidence},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Wilson(tt.s, tt.n, tt.conf)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Wilson(%d, %d, %v) error = %v, want %v", tt.s, tt.n, tt.conf, err, tt.wantErr)
			}
		})
	}
}

func TestWilson_Properties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 100000).Draw(t, "n")
		s := rapid.IntRange(0, n).Draw(t, "s")
		conf := rapid.Float64Range(0.5, 0.9999).Draw(t, "conf")
		lo, hi, err := Wilson(s, n, conf)
		if err != nil {
			t.Fatal(err)
		}
		p := float64(s) / float64(n)
		if !(0 <= lo && lo <= p+1e-12 && p-1e-12 <= hi && hi <= 1) {
			t.Fatalf("Wilson(%d, %d, %v) = [%v, %v] does not hold 0 <= lo <= %v <= hi <= 1", s, n, conf, lo, hi, p)
		}
		clo, chi := wilsonClosedForm(s, n, conf)
		if math.Abs(lo-max(clo, 0)) > 1e-9 || math.Abs(hi-min(chi, 1)) > 1e-9 {
			t.Fatalf("Wilson(%d, %d, %v) = [%v, %v], closed form [%v, %v]", s, n, conf, lo, hi, clo, chi)
		}
		// A higher confidence never narrows the interval.
		lo2, hi2, _ := Wilson(s, n, min(conf+0.0001, 0.99995))
		if lo2 > lo+1e-12 || hi2 < hi-1e-12 {
			t.Fatalf("raising confidence narrowed [%v, %v] to [%v, %v]", lo, hi, lo2, hi2)
		}
	})
}

func TestRiskCoverage(t *testing.T) {
	scores := []float64{0.9, 0.2, 0.5, 0.9, 0.5, 0.7}
	correct := []bool{true, false, true, true, false, true}
	got, err := RiskCoverage(scores, correct, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		threshold         float64
		answered, correct int
	}
	want := []row{
		{0.2, 6, 4},
		{0.5, 5, 4},
		{0.7, 3, 3},
		{0.9, 2, 2},
		{math.Nextafter(0.9, 2), 0, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d points, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		p := got[i]
		if p.Threshold != w.threshold || p.Answered != w.answered || p.Correct != w.correct || p.Support != w.answered {
			t.Errorf("point %d = %+v, want threshold %v answered %d correct %d", i, p, w.threshold, w.answered, w.correct)
		}
		wantCov := float64(w.answered) / 6
		wantAcc := 0.0
		wantLo := 0.0
		if w.answered > 0 {
			wantAcc = float64(w.correct) / float64(w.answered)
			wantLo, _, _ = Wilson(w.correct, w.answered, 0.95)
		}
		if p.Coverage != wantCov || p.Accuracy != wantAcc || p.Risk != 1-wantAcc || p.WilsonLower != wantLo {
			t.Errorf("point %d = %+v, want coverage %v accuracy %v risk %v wilson lower %v", i, p, wantCov, wantAcc, 1-wantAcc, wantLo)
		}
	}
}

func TestRiskCoverage_Errors(t *testing.T) {
	tests := []struct {
		name    string
		scores  []float64
		correct []bool
		conf    float64
		wantErr error
	}{
		{"length mismatch", []float64{1, 2}, []bool{true}, 0.95, ErrLength},
		{"empty", nil, nil, 0.95, ErrEmpty},
		{"NaN score", []float64{1, math.NaN()}, []bool{true, true}, 0.95, ErrScore},
		{"infinite score", []float64{math.Inf(1)}, []bool{true}, 0.95, ErrScore},
		{"bad confidence", []float64{1}, []bool{true}, 1.5, ErrConfidence},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := RiskCoverage(tt.scores, tt.correct, tt.conf); !errors.Is(err, tt.wantErr) {
				t.Errorf("error = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// drawItems draws scores from a small grid, so that ties are common, and
// a correctness label per score.
func drawItems(t *rapid.T) ([]float64, []bool) {
	n := rapid.IntRange(1, 200).Draw(t, "n")
	scores := make([]float64, n)
	correct := make([]bool, n)
	for i := range scores {
		scores[i] = float64(rapid.IntRange(0, 20).Draw(t, "score")) / 20
		correct[i] = rapid.Bool().Draw(t, "correct")
	}
	return scores, correct
}

// checkCurve checks that a curve is well formed for its items.
func checkCurve(t *rapid.T, points []Point, scores []float64, correct []bool) {
	distinct := slices.Clone(scores)
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	if len(points) != len(distinct)+1 {
		t.Fatalf("%d points for %d distinct scores, want one more", len(points), len(distinct))
	}
	for i, p := range points {
		if i > 0 {
			prev := points[i-1]
			if !(p.Threshold > prev.Threshold) {
				t.Fatalf("thresholds not strictly ascending: %v then %v", prev.Threshold, p.Threshold)
			}
			if p.Coverage > prev.Coverage || p.Answered > prev.Answered {
				t.Fatalf("raising the threshold from %v to %v raised coverage from %v to %v", prev.Threshold, p.Threshold, prev.Coverage, p.Coverage)
			}
		}
		answered, right := 0, 0
		for j, s := range scores {
			if s >= p.Threshold {
				answered++
				if correct[j] {
					right++
				}
			}
		}
		if p.Answered != answered || p.Correct != right || p.Support != answered {
			t.Fatalf("point %+v: recount gives answered %d correct %d", p, answered, right)
		}
		if p.Coverage != float64(answered)/float64(len(scores)) {
			t.Fatalf("point %+v: coverage should be %d/%d", p, answered, len(scores))
		}
		if p.Correct > p.Answered || p.WilsonLower < 0 || p.WilsonLower > p.Accuracy || math.Abs(p.Risk+p.Accuracy-1) > 1e-15 {
			t.Fatalf("point %+v is inconsistent", p)
		}
	}
	if last := points[len(points)-1]; last.Answered != 0 || last.Threshold <= distinct[len(distinct)-1] {
		t.Fatalf("last point %+v should answer nothing", last)
	}
	if first := points[0]; first.Answered != len(scores) || first.Coverage != 1 {
		t.Fatalf("first point %+v should answer everything", first)
	}
}

func TestRiskCoverage_Properties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		scores, correct := drawItems(t)
		points, err := RiskCoverage(scores, correct, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		checkCurve(t, points, scores, correct)

		// Deterministic and independent of item order.
		perm := rapid.Permutation(indices(len(scores))).Draw(t, "perm")
		ps, pc := make([]float64, len(perm)), make([]bool, len(perm))
		for i, j := range perm {
			ps[i], pc[i] = scores[j], correct[j]
		}
		again, err := RiskCoverage(ps, pc, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(points, again) {
			t.Fatalf("curve depends on item order:\n%+v\n%+v", points, again)
		}
	})
}

func indices(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestSelectThreshold(t *testing.T) {
	// A crafted curve, deliberately not monotone in WilsonLower: the
	// lower bound dips at 0.6 and recovers at 0.7.
	curve := []Point{
		{Threshold: 0.1, Support: 100, WilsonLower: 0.80},
		{Threshold: 0.3, Support: 80, WilsonLower: 0.90},
		{Threshold: 0.5, Support: 60, WilsonLower: 0.96},
		{Threshold: 0.6, Support: 50, WilsonLower: 0.93},
		{Threshold: 0.7, Support: 40, WilsonLower: 0.97},
		{Threshold: 0.8, Support: 20, WilsonLower: 0.99},
		{Threshold: 0.9, Support: 0, WilsonLower: 0},
	}
	tests := []struct {
		name       string
		target     float64
		minSupport int
		want       float64
		wantOK     bool
	}{
		{"lowest of several", 0.95, 30, 0.5, true},
		{"exactly at target", 0.90, 30, 0.3, true},
		{"skips the dip", 0.97, 30, 0.7, true},
		{"support excludes the only bound high enough", 0.98, 30, 0, false},
		{"same target with less support", 0.98, 20, 0.8, true},
		{"support exactly at minimum", 0.97, 40, 0.7, true},
		{"support one short", 0.97, 41, 0, false},
		{"unreachable target", 0.995, 0, 0, false},
		{"trivial target", 0, 0, 0.1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := SelectThreshold(curve, tt.target, tt.minSupport)
			if ok != tt.wantOK || (ok && got.Threshold != tt.want) {
				t.Errorf("SelectThreshold(target %v, minSupport %d) = %v, %v; want %v, %v", tt.target, tt.minSupport, got.Threshold, ok, tt.want, tt.wantOK)
			}
			// Order of the points does not matter.
			rev := slices.Clone(curve)
			slices.Reverse(rev)
			if got2, ok2 := SelectThreshold(rev, tt.target, tt.minSupport); got2 != got || ok2 != ok {
				t.Errorf("reversed curve gives %+v, %v; sorted gives %+v, %v", got2, ok2, got, ok)
			}
		})
	}
	if _, ok := SelectThreshold(nil, 0, 0); ok {
		t.Error("SelectThreshold(nil) reported a threshold")
	}
}

func TestSelectThreshold_Properties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		scores, correct := drawItems(t)
		points, err := RiskCoverage(scores, correct, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		target := rapid.Float64Range(0, 1).Draw(t, "target")
		minSupport := rapid.IntRange(0, 60).Draw(t, "minSupport")
		got, ok := SelectThreshold(points, target, minSupport)
		qualifies := func(p Point) bool { return p.WilsonLower >= target && p.Support >= minSupport }
		if ok && !qualifies(got) {
			t.Fatalf("selected %+v does not qualify for target %v, min support %d", got, target, minSupport)
		}
		for _, p := range points {
			if !qualifies(p) {
				continue
			}
			if !ok {
				t.Fatalf("reported none, but %+v qualifies", p)
			}
			if p.Threshold < got.Threshold {
				t.Fatalf("selected %v, but lower %+v qualifies", got.Threshold, p)
			}
		}
	})
}

// fataler is what svgCircles needs of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// svgCircles decodes doc as XML, failing on any error, and counts its
// circle elements.
func svgCircles(tb fataler, doc []byte) int {
	tb.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	circles, depth := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatalf("SVG is not well-formed XML: %v\n%s", err, doc)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if depth == 0 && e.Name.Local != "svg" {
				tb.Fatalf("root element is %q, want svg", e.Name.Local)
			}
			depth++
			if e.Name.Local == "circle" {
				circles++
			}
		case xml.EndElement:
			depth--
		}
	}
	return circles
}

func TestSVG(t *testing.T) {
	points, err := RiskCoverage([]float64{0.9, 0.2, 0.5, 0.9, 0.5, 0.7}, []bool{true, false, true, true, false, true}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		points []Point
		title  string
	}{
		{"curve", points, "Risk vs coverage"},
		{"no points", nil, ""},
		{"out of range values", []Point{{Coverage: -1, Risk: 2}, {Coverage: math.NaN(), Risk: math.Inf(1), Threshold: math.Inf(1)}}, "odd"},
		{"hostile title", points, `a <b> & "c" ]]> </svg>` + "\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := SVG(tt.points, tt.title)
			if got := svgCircles(t, doc); got != len(tt.points) {
				t.Errorf("%d circles, want %d", got, len(tt.points))
			}
			if !bytes.Equal(doc, SVG(tt.points, tt.title)) {
				t.Error("SVG is not deterministic")
			}
		})
	}
}

func TestSVG_EscapesTitle(t *testing.T) {
	const title = "risk <&> coverage"
	doc := SVG(nil, title)
	if bytes.Contains(doc, []byte(title)) {
		t.Fatalf("title appears unescaped:\n%s", doc)
	}
	if !bytes.Contains(doc, []byte("risk &lt;&amp;&gt; coverage")) {
		t.Fatalf("escaped title missing:\n%s", doc)
	}
	// The decoded title text is the original.
	var v struct {
		Title string `xml:"title"`
	}
	if err := xml.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	if v.Title != title {
		t.Errorf("decoded title %q, want %q", v.Title, title)
	}
}

func TestSVG_Properties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		scores, correct := drawItems(t)
		points, err := RiskCoverage(scores, correct, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		title := rapid.String().Draw(t, "title")
		if got := svgCircles(t, SVG(points, title)); got != len(points) {
			t.Fatalf("%d circles, want %d", got, len(points))
		}
	})
}

// TestImportsOnlyStandardLibrary parses the package's non-test files and
// checks that no import path's first element has a dot: the package stays
// copyable on its own.
func TestImportsOnlyStandardLibrary(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") || path == "C" {
				t.Errorf("%s imports %q, outside the standard library", name, path)
			}
		}
	}
}
