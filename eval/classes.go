package eval

import (
	"slices"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/calibration"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/tool"
)

// Question classes: the in-coverage classes of package calibration (by
// the tool the gold expects), and out-of-coverage questions.
const (
	ClassScalar    = calibration.ClassScalar
	ClassAggregate = calibration.ClassAggregate
	ClassList      = calibration.ClassList
	ClassWindow    = calibration.ClassWindow
	ClassOut       = "out"
)

// Classes lists the classes in report order.
var Classes = append(slices.Clone(calibration.Classes), calibration.ClassMetric, ClassOut)

// ClassOf returns an item's class, by the value kind of the tool it
// expects (the set's registry, which Validate records).
func (g *GoldSet) ClassOf(it Item) string {
	if it.Coverage == Out {
		return ClassOut
	}
	return calibration.ClassOfKind(g.kindOf(it.Expect.Tool))
}

// ClassStats summarises one class of items.
type ClassStats struct {
	Items     int `json:"items"`
	Correct   int `json:"correct"`
	Abstained int `json:"abstained"`
	// GroundingRefusals counts answers whose composed sentence the
	// checker refused (the shipped sentence is then rendered by code).
	GroundingRefusals int `json:"grounding_refusals"`
	// Escapes counts answers that shipped a sentence citing a numeral its
	// own result does not back: the number that must stay 0.
	Escapes          int     `json:"fabricated_numeral_escapes"`
	Accuracy         float64 `json:"accuracy"`
	AbstentionRate   float64 `json:"abstention_rate"`
	GroundingRefusal float64 `json:"grounding_refusal_rate"`
}

func (c *ClassStats) add(correct bool, a answer.Answer, escaped bool) {
	c.Items++
	if correct {
		c.Correct++
	}
	if a.Outcome() == answer.Abstained {
		c.Abstained++
	}
	if rep, ok := a.Grounding(); ok && rep.Verdict == grounding.Refuse {
		c.GroundingRefusals++
	}
	if escaped {
		c.Escapes++
	}
	n := float64(c.Items)
	c.Accuracy, c.AbstentionRate, c.GroundingRefusal = float64(c.Correct)/n, float64(c.Abstained)/n, float64(c.GroundingRefusals)/n
}

// escaped re-checks the sentence an answer shipped against the numerals of
// its own result, independently of the pipeline's check: a numeral there
// that the result does not back is a fabrication that escaped.
func escaped(reg *tool.Registry, question string, a answer.Answer) bool {
	v, ok := a.Value()
	p, okp := a.Provenance()
	if !ok || !okp || a.Text() == "" {
		return false
	}
	r, err := fact.NewResult(a.Tool(), a.Args(), v, p)
	if err != nil {
		return true // a shipped answer whose value and provenance disagree is worse than an escape
	}
	d, _ := reg.Lookup(a.Tool())
	led := grounding.Ledger{Numerals: ledger.Numerals(r, d)}
	return grounding.Check(a.Text(), led, question, grounding.DefaultPolicy()).Verdict != grounding.Pass
}
