package tool

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/phrase"
)

// Sentence renders a value as one plain sentence, by code alone, from the
// tool's templates (Def.Answer, Def.None for a grounded zero), or from a
// plain default when the tool declares none. It is the sentence a client's
// direct call gets, and the one that replaces a model's sentence the
// grounding check refused.
func Sentence(d Def, args map[string]string, v fact.Value) string {
	src := d.Answer
	if v.IsZero() && d.None != "" {
		src = d.None
	}
	if src == "" {
		src = defaultTemplate(d, v)
	}
	t, err := phrase.ParseTemplate(src)
	if err != nil {
		// NewRegistry refuses a template that does not parse.
		return "The answer is not available as a sentence."
	}
	count := v.Count
	if v.Kind == fact.KindEntityList {
		count = len(v.IDs)
	}
	return t.Render(phrase.Fill{Args: args, Value: FormatValue(d, v), IDs: v.IDs, Count: count})
}

// defaultTemplate is the sentence of a tool that declares none.
func defaultTemplate(d Def, v fact.Value) string {
	switch {
	case v.Kind.Scalar() && !v.Observed:
		return d.Name + ": nothing was recorded at or before the time asked."
	case v.Kind.Scalar():
		return d.Name + ": {value}."
	case v.Kind == fact.KindRowCount:
		return d.Name + ": {count:row|rows}."
	case len(v.IDs) == 0:
		return d.Name + ": none."
	}
	return d.Name + ": {count:id|ids}: {ids}."
}

// currencySymbols are the signs money is written with; other currencies
// are written with their code.
var currencySymbols = map[string]string{"usd": "$", "eur": "€", "gbp": "£", "jpy": "¥"}

// FormatValue writes a scalar value as a sentence shows it: text as it
// is; an integer or a number in its shortest form; cents as money in the
// tool's currency with the cents beside it ("$2.99 (299 cents)").
func FormatValue(d Def, v fact.Value) string {
	switch v.Kind {
	case fact.KindText:
		return v.Text
	case fact.KindInteger:
		if v.Unit == "cents" {
			money := fmt.Sprintf("%d.%02d", v.Int/100, v.Int%100)
			switch sym, ok := currencySymbols[d.Currency]; {
			case ok:
				money = sym + money
			case d.Currency != "":
				money = strings.ToUpper(d.Currency) + " " + money
			}
			return fmt.Sprintf("%s (%d cents)", money, v.Int)
		}
		return strconv.FormatInt(v.Int, 10)
	case fact.KindNumber:
		return strconv.FormatFloat(v.Num, 'f', -1, 64)
	}
	return ""
}
