package stats

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Errors returned for invalid arguments. Each is wrapped with the offending
// value; test with errors.Is.
var (
	// ErrSampleSize: the number of trials is not positive.
	ErrSampleSize = errors.New("sample size must be positive")
	// ErrSuccesses: the number of successes is outside [0, n].
	ErrSuccesses = errors.New("successes out of range")
	// ErrConfidence: the confidence level is outside the open interval (0, 1).
	ErrConfidence = errors.New("confidence must be in (0, 1)")
	// ErrLength: scores and correctness labels differ in length.
	ErrLength = errors.New("scores and labels differ in length")
	// ErrEmpty: there are no items to build a curve from.
	ErrEmpty = errors.New("no items")
	// ErrScore: a score is NaN or infinite.
	ErrScore = errors.New("score not finite")
)

// NormalQuantile returns z such that P(Z <= z) = p for a standard normal Z.
// It returns -Inf for p <= 0, +Inf for p >= 1 and NaN for NaN.
//
// It implements algorithm AS 241 (PPND16) of M. J. Wichura, "The
// Percentage Points of the Normal Distribution", Applied Statistics 37(3),
// 477–484, 1988: rational approximations on three ranges, accurate to about
// one part in 10^16.
func NormalQuantile(p float64) float64 {
	switch {
	case math.IsNaN(p):
		return math.NaN()
	case p <= 0:
		return math.Inf(-1)
	case p >= 1:
		return math.Inf(1)
	}
	q := p - 0.5
	if math.Abs(q) <= 0.425 {
		r := 0.180625 - q*q
		return q * poly(as241A[:], r) / poly(as241B[:], r)
	}
	r := p
	if q > 0 {
		r = 1 - p
	}
	r = math.Sqrt(-math.Log(r))
	var z float64
	if r <= 5 {
		r -= 1.6
		z = poly(as241C[:], r) / poly(as241D[:], r)
	} else {
		r -= 5
		z = poly(as241E[:], r) / poly(as241F[:], r)
	}
	if q < 0 {
		return -z
	}
	return z
}

// poly evaluates c[0] + c[1]x + ... + c[len-1]x^(len-1) by Horner's rule.
func poly(c []float64, x float64) float64 {
	var y float64
	for i := len(c) - 1; i >= 0; i-- {
		y = y*x + c[i]
	}
	return y
}

// Coefficients of AS 241, lowest degree first.
var (
	// |p - 0.5| <= 0.425.
	as241A = [8]float64{
		3.3871328727963666080e0, 1.3314166789178437745e2,
		1.9715909503065514427e3, 1.3731693765509461125e4,
		4.5921953931549871457e4, 6.7265770927008700853e4,
		3.3430575583588128105e4, 2.5090809287301226727e3,
	}
	as241B = [8]float64{
		1, 4.2313330701600911252e1,
		6.8718700749205790830e2, 5.3941960214247511077e3,
		2.1213794301586595867e4, 3.9307895800092710610e4,
		2.8729085735721942674e4, 5.2264952788528545610e3,
	}
	// Intermediate tails, r = sqrt(-log(min(p, 1-p))) <= 5.
	as241C = [8]float64{
		1.42343711074968357734e0, 4.63033784615654529590e0,
		5.76949722146069140550e0, 3.64784832476320460504e0,
		1.27045825245236838258e0, 2.41780725177450611770e-1,
		2.27238449892691845833e-2, 7.74545014278341407640e-4,
	}
	as241D = [8]float64{
		1, 2.05319162663775882187e0,
		1.67638483018380384940e0, 6.89767334985100004550e-1,
		1.48103976427480074590e-1, 1.51986665636164571966e-2,
		5.47593808499534494600e-4, 1.05075007164441684324e-9,
	}
	// Far tails, r > 5.
	as241E = [8]float64{
		6.65790464350110377720e0, 5.46378491116411436990e0,
		1.78482653991729133580e0, 2.96560571828504891230e-1,
		2.65321895265761230930e-2, 1.24266094738807843860e-3,
		2.71155556874348757815e-5, 2.01033439929228813265e-7,
	}
	as241F = [8]float64{
		1, 5.99832206555887937690e-1,
		1.36929880922735805310e-1, 1.48753612908506148525e-2,
		7.86869131145613259100e-4, 1.84631831751005468180e-5,
		1.42151175831644588870e-7, 2.04426310338993978564e-15,
	}
)

// Wilson returns the two-sided Wilson score interval for a binomial
// proportion with the given number of successes out of n trials, at the
// given confidence level (0.95 for a 95% interval). The bounds are exactly
// 0 when successes is 0 and exactly 1 when successes is n.
func Wilson(successes, n int, confidence float64) (lo, hi float64, err error) {
	if n <= 0 {
		return 0, 0, fmt.Errorf("check n %d: %w", n, ErrSampleSize)
	}
	if successes < 0 || successes > n {
		return 0, 0, fmt.Errorf("check successes %d of %d: %w", successes, n, ErrSuccesses)
	}
	if err := checkConfidence(confidence); err != nil {
		return 0, 0, err
	}
	z := NormalQuantile(1 - (1-confidence)/2)
	lo, hi = wilson(successes, n, z)
	return lo, hi, nil
}

func checkConfidence(c float64) error {
	if !(c > 0 && c < 1) { // also rejects NaN
		return fmt.Errorf("check confidence %v: %w", c, ErrConfidence)
	}
	return nil
}

// wilson computes the interval for validated arguments and a quantile z.
func wilson(s, n int, z float64) (lo, hi float64) {
	nf := float64(n)
	p := float64(s) / nf
	z2 := z * z
	denom := 1 + z2/nf
	centre := (p + z2/(2*nf)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	lo, hi = centre-half, centre+half
	// The closed form gives 0 and 1 at the extremes only up to rounding.
	if s == 0 || lo < 0 {
		lo = 0
	}
	if s == n || hi > 1 {
		hi = 1
	}
	return lo, hi
}

// Point is one threshold of a risk-coverage curve.
type Point struct {
	// Threshold: an item is answered iff its score >= Threshold.
	Threshold float64 `json:"threshold"`
	// Coverage is Answered / total items.
	Coverage float64 `json:"coverage"`
	// Risk is 1 - Accuracy.
	Risk float64 `json:"risk"`
	// Accuracy is Correct / Answered, and 0 when nothing is answered.
	Accuracy float64 `json:"accuracy"`
	// Answered is the number of items whose score >= Threshold.
	Answered int `json:"answered"`
	// Correct is the number of answered items labelled correct.
	Correct int `json:"correct"`
	// Support is the sample size behind Accuracy; it equals Answered.
	Support int `json:"support"`
	// WilsonLower is the lower Wilson bound of Accuracy at the curve's
	// confidence level, and 0 when nothing is answered.
	WilsonLower float64 `json:"wilson_lower"`
}

// RiskCoverage builds the risk-coverage curve of scores against their
// correctness labels. It has one point per distinct score, used as the
// threshold, plus a last point whose threshold is the smallest float64
// above the largest score, which answers nothing (coverage 0, accuracy 0,
// risk 1). Points are sorted by threshold, ascending, so coverage is
// non-increasing along the slice. The result depends only on the multiset
// of (score, label) pairs, not on their order.
//
// It returns an error when the slices differ in length or are empty, when
// a score is NaN or infinite, or when confidence is outside (0, 1).
func RiskCoverage(scores []float64, correct []bool, confidence float64) ([]Point, error) {
	if len(scores) != len(correct) {
		return nil, fmt.Errorf("check items: %d scores, %d labels: %w", len(scores), len(correct), ErrLength)
	}
	if len(scores) == 0 {
		return nil, fmt.Errorf("check items: %w", ErrEmpty)
	}
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("check score %d (%v): %w", i, s, ErrScore)
		}
	}
	if err := checkConfidence(confidence); err != nil {
		return nil, err
	}
	z := NormalQuantile(1 - (1-confidence)/2)

	// Indices by score, descending: walking them accumulates the items
	// answered at each successively lower threshold.
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})

	total := float64(len(scores))
	top := math.Nextafter(scores[idx[0]], math.Inf(1))
	points := []Point{{Threshold: top, Risk: 1}}
	answered, right := 0, 0
	for i := 0; i < len(idx); {
		t := scores[idx[i]]
		for ; i < len(idx) && scores[idx[i]] == t; i++ {
			answered++
			if correct[idx[i]] {
				right++
			}
		}
		acc := float64(right) / float64(answered)
		lo, _ := wilson(right, answered, z)
		points = append(points, Point{
			Threshold:   t,
			Coverage:    float64(answered) / total,
			Risk:        1 - acc,
			Accuracy:    acc,
			Answered:    answered,
			Correct:     right,
			Support:     answered,
			WilsonLower: lo,
		})
	}
	slices.Reverse(points)
	return points, nil
}

// SelectThreshold returns the point with the lowest threshold whose
// WilsonLower is at least target and whose Support is at least minSupport.
// It reports false when no point qualifies; it never relaxes either bar.
// The points need not be sorted.
func SelectThreshold(points []Point, target float64, minSupport int) (Point, bool) {
	var best Point
	found := false
	for _, p := range points {
		if p.WilsonLower >= target && p.Support >= minSupport && (!found || p.Threshold < best.Threshold) {
			best, found = p, true
		}
	}
	return best, found
}

// Plot geometry, in SVG user units.
const (
	svgWidth  = 480
	svgHeight = 360
	svgLeft   = 60 // margin for the y tick labels and axis title
	svgRight  = 20
	svgTop    = 40 // room for the title
	svgBottom = 50 // margin for the x tick labels and axis title
)

// SVG renders the risk-coverage curve as a standalone SVG image: coverage
// on the x axis and risk on the y axis, both from 0 to 1 with ticks every
// 0.2, the curve as a line through the points in the given order (skipping
// points with no support), a circle per point (hollow when it has no
// support, with a tooltip giving its threshold, support and Wilson lower
// bound), and the title, escaped for XML. Values outside [0, 1] are
// clamped to the frame. The output is deterministic.
func SVG(points []Point, title string) []byte {
	const (
		pw = svgWidth - svgLeft - svgRight
		ph = svgHeight - svgTop - svgBottom
	)
	x := func(v float64) float64 { return svgLeft + clamp01(v)*pw }
	y := func(v float64) float64 { return svgTop + (1-clamp01(v))*ph }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		svgWidth, svgHeight, svgWidth, svgHeight)
	b.WriteString(`<title>`)
	escape(&b, title)
	b.WriteString("</title>\n")
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="white"/>`+"\n", svgWidth, svgHeight)
	// A long title shrinks to fit the width (about 0.55 em per character
	// in a sans-serif face) rather than running off both edges.
	size := min(15.0, max(8.0, float64(svgWidth-20)/(0.55*float64(max(1, utf8.RuneCountInString(title))))))
	fmt.Fprintf(&b, `<text x="%d" y="24" text-anchor="middle" font-size="%.1f">`, svgWidth/2, size)
	escape(&b, title)
	b.WriteString("</text>\n")

	// Grid, ticks and tick labels.
	b.WriteString(`<g stroke="#ddd">` + "\n")
	for i := 0; i <= 5; i++ {
		v := float64(i) / 5
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f(x(v)), f(y(0)), f(x(v)), f(y(1)))
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f(x(0)), f(y(v)), f(x(1)), f(y(v)))
	}
	b.WriteString("</g>\n")
	b.WriteString(`<g stroke="black">` + "\n")
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f(x(0)), f(y(0)), f(x(1)), f(y(0)))
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f(x(0)), f(y(0)), f(x(0)), f(y(1)))
	for i := 0; i <= 5; i++ {
		v := float64(i) / 5
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f(x(v)), f(y(0)), f(x(v)), f(y(0)+5))
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f(x(0)-5), f(y(v)), f(x(0)), f(y(v)))
	}
	b.WriteString("</g>\n")
	for i := 0; i <= 5; i++ {
		v := float64(i) / 5
		label := strconv.FormatFloat(v, 'f', 1, 64)
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f(x(v)), f(y(0)+19), label)
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end">%s</text>`+"\n", f(x(0)-8), f(y(v)+4), label)
	}
	fmt.Fprintf(&b, `<text x="%s" y="%d" text-anchor="middle">coverage</text>`+"\n", f(x(0.5)), svgHeight-10)
	fmt.Fprintf(&b, `<text x="16" y="%s" text-anchor="middle" transform="rotate(-90 16 %s)">risk</text>`+"\n", f(y(0.5)), f(y(0.5)))

	// The curve through the points that answer something, then every
	// point over it. A point with no support has no measured risk (the
	// curve reports 1 by convention), so it is drawn hollow and left off
	// the line.
	first := true
	for _, p := range points {
		if p.Support == 0 {
			continue
		}
		if first {
			b.WriteString(`<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="`)
			first = false
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(f(x(p.Coverage)) + "," + f(y(p.Risk)))
	}
	if !first {
		b.WriteString(`"/>` + "\n")
	}
	for _, p := range points {
		fill := "#1f77b4"
		if p.Support == 0 {
			fill = "white"
		}
		fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s" stroke="#1f77b4"><title>threshold %s, coverage %s, risk %s, support %d, wilson lower %s</title></circle>`+"\n",
			f(x(p.Coverage)), f(y(p.Risk)), fill,
			strconv.FormatFloat(p.Threshold, 'g', -1, 64), f(p.Coverage), f(p.Risk), p.Support, f(p.WilsonLower))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

func clamp01(v float64) float64 {
	switch {
	case math.IsNaN(v) || v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

// escape writes s with XML's special characters escaped. Bytes that are
// not valid in XML (control characters, invalid UTF-8) become U+FFFD.
func escape(b *bytes.Buffer, s string) {
	_ = xml.EscapeText(b, []byte(s)) // a bytes.Buffer never fails to write
}
