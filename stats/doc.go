// Package stats holds the statistics behind calibrated abstention: the
// Wilson score interval for a binomial proportion, the risk-coverage curve
// of a confidence score, the rule that picks an abstention threshold from
// that curve, and a small SVG plot of the curve. It imports only the
// standard library, so it can be copied into another project alone.
//
// # Wilson interval
//
// For s successes in n trials, p̂ = s/n and z the standard normal quantile
// at 1 − (1 − confidence)/2, the Wilson score interval is
//
//	centre = (p̂ + z²/(2n)) / (1 + z²/n)
//	half   = z/(1 + z²/n) · √(p̂(1 − p̂)/n + z²/(4n²))
//	[lo, hi] = [centre − half, centre + half]
//
// (Wilson 1927; Newcombe 1998, method 3). Unlike the normal-approximation
// ("Wald") interval it never leaves [0, 1] and does not collapse to a point
// at s = 0 or s = n, which is what makes its lower bound usable as a
// conservative estimate of accuracy on small samples. The quantile z comes
// from NormalQuantile, Wichura's algorithm AS 241.
//
// # Risk-coverage curve
//
// Given a score and a correctness label per item, a threshold t answers the
// items whose score is at least t and abstains on the rest. RiskCoverage
// evaluates every distinct score as a threshold, plus one threshold just
// above the largest score that answers nothing, and reports for each the
// coverage (fraction answered), the accuracy and risk on the answered
// items, the support (number answered) and the Wilson lower bound of the
// accuracy. Raising the threshold never increases coverage.
//
// # Threshold selection
//
// SelectThreshold returns the lowest threshold whose Wilson lower bound
// reaches a target accuracy with at least a minimum support. When no
// threshold qualifies it reports false: the caller should then write no
// policy rather than lower the bar.
package stats
