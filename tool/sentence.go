package tool

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
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
	return sentence(d, args, v, phrase.ParseTemplate)
}

// sentence is Sentence with the templates parsed by parse.
func sentence(d Def, args map[string]string, v fact.Value, parse func(string) (*phrase.Template, error)) string {
	if v.Kind == fact.KindTable && slices.ContainsFunc(d.Params, func(p Param) bool { return p.Kind == Statement }) {
		return StatementSentence(v.Table)
	}
	if v.Kind == fact.KindTable {
		return TableSentence(args, v.Table)
	}
	src := d.Answer
	if v.IsZero() && d.None != "" {
		src = d.None
	}
	if src == "" {
		src = defaultTemplate(d, v)
	}
	t, err := parse(src)
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

// opWords are the filter operators as a sentence reads them.
var opWords = map[string]string{"eq": "is", "ne": "is not", "in": "in", "not_in": "not in"}

// SentenceRows is how many rows of a table a sentence lists; the rest
// are in the answer's table.
const SentenceRows = 20

// TableSentence renders a metric table as one sentence: the metric, the
// dimensions it is grouped by, the grain, the filters, the window, then
// each row's labels and
// value ("availability by zone from 2026-01-05T00:00:00Z to
// 2026-01-10T00:00:00Z: zone-01 57.14%; zone-02 61.5%."). A share is
// written as a percent; a number keeps four significant digits (well
// within grounding's tolerance); every numeral is one the ledger records.
func TableSentence(args map[string]string, t *fact.Table) string {
	var b strings.Builder
	b.WriteString(args["metric"])
	var dims []string
	_ = json.Unmarshal([]byte(args["dimensions"]), &dims) // absent: none
	if len(dims) > 0 {
		b.WriteString(" by " + strings.Join(dims, ", "))
	}
	if g := args["grain"]; g != "" && g != "none" {
		b.WriteString(" per " + g)
	}
	var filters []struct {
		Dimension string   `json:"dimension"`
		Op        string   `json:"op"`
		Values    []string `json:"values"`
	}
	_ = json.Unmarshal([]byte(args["filters"]), &filters) // absent: none
	for i, f := range filters {
		if i == 0 {
			b.WriteString(" where ")
		} else {
			b.WriteString(" and ")
		}
		b.WriteString(f.Dimension + " " + opWords[f.Op] + " " + strings.Join(f.Values, ", "))
	}
	fmt.Fprintf(&b, " from %s to %s", args["start"], args["end"])
	if t == nil || len(t.Rows) == 0 {
		b.WriteString(": no row contributed.")
		return b.String()
	}
	b.WriteString(": ")
	writeRows(&b, t)
	return b.String()
}

// StatementSentence renders the table a free SQL statement gave as one
// sentence: said to be ungoverned, then its columns and each row's cells
// ("Ungoverned result (the statement's own SQL, re-executed, not
// independently re-derived) of store_id, n: st-001 12; st-002 7.").
func StatementSentence(t *fact.Table) string {
	var b strings.Builder
	b.WriteString("Ungoverned result (the statement's own SQL, re-executed, not independently re-derived)")
	if t == nil || len(t.Rows) == 0 {
		b.WriteString(": no row.")
		return b.String()
	}
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	b.WriteString(" of " + strings.Join(names, ", ") + ": ")
	writeRows(&b, t)
	return b.String()
}

// writeRows writes a table's rows, each its cells separated by spaces,
// the rows by semicolons, then a full stop; past SentenceRows rows, a
// pointer to the table.
func writeRows(b *strings.Builder, t *fact.Table) {
	for i, r := range t.Rows {
		if i == SentenceRows {
			b.WriteString("; the other rows are in the table")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		var parts []string
		for j, c := range r {
			col := t.Columns[j]
			switch {
			case !c.Valid && col.Type == fact.CellNumber:
				parts = append(parts, "no value")
			case !c.Valid:
				parts = append(parts, "(none)")
			case col.Type == fact.CellText:
				parts = append(parts, c.Text)
			case col.Type == fact.CellInstant:
				parts = append(parts, c.Instant.UTC().Format(TimestampLayout))
			default:
				parts = append(parts, FormatMeasure(c.Num, col.Unit))
			}
		}
		b.WriteString(strings.Join(parts, " "))
	}
	b.WriteString(".")
}

// FormatMeasure writes a metric value in its unit: a share as a percent
// ("57.14%"), a count or any other unit as a number with the unit's name
// ("12 count" is written "12"; "3600 seconds"), to four significant
// digits.
func FormatMeasure(x float64, unit string) string {
	switch unit {
	case "share":
		return significant(x*100) + "%"
	case "", "count":
		return significant(x)
	}
	return significant(x) + " " + unit
}

// significant writes x to four significant digits, without an exponent
// (a number of five or more integer digits is written whole).
func significant(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return "0"
	}
	digits := 3 - int(math.Floor(math.Log10(math.Abs(x))))
	if digits < 0 {
		digits = 0
	}
	// Half away from zero, as grounding judges a rounded numeral honest.
	scale := math.Pow(10, float64(digits))
	s := strconv.FormatFloat(math.Round(x*scale)/scale, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
