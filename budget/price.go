package budget

import (
	"math"
	"math/bits"
	"regexp"
)

// Price is what a model's tokens cost, in micro-dollars per million
// tokens, input (prompt) and output (completion) apart: a price of
// $0.15 per million input tokens is Input 150_000.
type Price struct {
	Input, Output Micros
}

// perMillion is the token count a Price is per.
const perMillion = 1_000_000

// Cost returns what in input and out output tokens cost at p, rounded up
// to the next micro-dollar, so a charge never under-counts; exact in
// integer arithmetic (128-bit products), math.MaxInt64 when the cost
// does not fit. A negative count or price counts 0.
func (p Price) Cost(in, out int64) Micros {
	hi1, lo1 := bits.Mul64(uint64(max(in, 0)), uint64(max(p.Input, 0)))
	hi2, lo2 := bits.Mul64(uint64(max(out, 0)), uint64(max(p.Output, 0)))
	lo, carry := bits.Add64(lo1, lo2, 0)
	hi, over := bits.Add64(hi1, hi2, carry)
	if over != 0 || hi >= perMillion {
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, perMillion)
	if r != 0 {
		q++
	}
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return Micros(q)
}

// modelPattern is how a model name in the prices section is spelt: what
// the providers' --model names use (llama3.2, gpt-4o-mini, qwen2.5:7b,
// org/model@rev), at most 128 bytes.
var modelPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$`)

// ValidModel reports whether name is spelt as a model name of the prices
// section: a letter or digit, then letters, digits and ._:/@+-, at most
// 128 bytes. Only such a name is ever repeated in an error.
func ValidModel(name string) bool { return modelPattern.MatchString(name) }

// Price returns the configured price of a model.
func (c Config) Price(model string) (Price, bool) {
	p, ok := c.Prices[model]
	return p, ok
}

// NeedPrice checks that a model's tokens can be charged in usd: with a
// budget, the model the provider runs needs a price (an error naming the
// key to add, prices.MODEL, or "the model" when the name is not spelt as
// one); model "" (a provider that uses none, such as rules) needs
// nothing.
func (c Config) NeedPrice(model string) error {
	if model == "" {
		return nil
	}
	if _, ok := c.Prices[model]; ok {
		return nil
	}
	if !ValidModel(model) {
		return &ConfigError{Path: "prices", Problem: "no price for the model (its name is not one the prices section can hold)"}
	}
	return &ConfigError{Path: "prices", Problem: "no price for model " + model + " (add prices." + model + ".input and .output, dollars per million tokens)"}
}
