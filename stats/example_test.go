package stats_test

import (
	"fmt"

	"github.com/provenant/provenant/stats"
)

func ExampleWilson() {
	// 81 successes in 263 trials, 95% confidence.
	lo, hi, err := stats.Wilson(81, 263, 0.95)
	if err != nil {
		panic(err)
	}
	fmt.Printf("[%.4f, %.4f]\n", lo, hi)

	// No successes: the lower bound is 0, the upper bound is not.
	lo, hi, _ = stats.Wilson(0, 10, 0.95)
	fmt.Printf("[%.4f, %.4f]\n", lo, hi)
	// Output:
	// [0.2553, 0.3662]
	// [0.0000, 0.2775]
}

func ExampleSelectThreshold() {
	// Confidence scores of 200 answered questions: the 50 scored 0.3 are
	// right 40 times, the 150 scored 0.9 are all right.
	var scores []float64
	var correct []bool
	for i := range 200 {
		if i < 50 {
			scores = append(scores, 0.3)
			correct = append(correct, i < 40)
		} else {
			scores = append(scores, 0.9)
			correct = append(correct, true)
		}
	}
	points, err := stats.RiskCoverage(scores, correct, 0.95)
	if err != nil {
		panic(err)
	}
	// The last point, just above the top score, answers nothing.
	for _, p := range points {
		fmt.Printf("t=%v coverage=%.2f accuracy=%.3f support=%d wilson_lower=%.3f\n",
			p.Threshold, p.Coverage, p.Accuracy, p.Support, p.WilsonLower)
	}

	if p, ok := stats.SelectThreshold(points, 0.95, 30); ok {
		fmt.Printf("target 0.95: abstain below %.2f, answering %.0f%%\n", p.Threshold, 100*p.Coverage)
	}
	if _, ok := stats.SelectThreshold(points, 0.98, 30); !ok {
		fmt.Println("target 0.98: no threshold qualifies; write no policy")
	}
	// Output:
	// t=0.3 coverage=1.00 accuracy=0.950 support=200 wilson_lower=0.910
	// t=0.9 coverage=0.75 accuracy=1.000 support=150 wilson_lower=0.975
	// t=0.9000000000000001 coverage=0.00 accuracy=0.000 support=0 wilson_lower=0.000
	// target 0.95: abstain below 0.90, answering 75%
	// target 0.98: no threshold qualifies; write no policy
}
