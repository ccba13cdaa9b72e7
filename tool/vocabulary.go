package tool

import (
	"slices"
	"strings"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/phrase"
)

// Vocabulary returns what the model-free parser (package phrase) reads a
// question with, for the tools of menu: each tool's phrasings and
// keywords; its parameters as typed slots (an entity id with its nouns,
// pattern and declared names; an enumeration with its synonyms; a
// timestamp as the instant, or as the start or end of the window, by its
// name as_of, start or end); and the values a yes/no question may ask.
func Vocabulary(menu []Def) phrase.Vocabulary {
	var v phrase.Vocabulary
	for _, d := range menu {
		if d.Writes() {
			continue
		}
		tv := phrase.ToolVocab{Name: d.Name, Phrasings: slices.Clone(d.Phrasings), Keywords: slices.Clone(d.Keywords)}
		for _, a := range d.Asks {
			tv.Asks = append(tv.Asks, phrase.Value{Value: a.Value, Synonyms: slices.Clone(a.Phrases)})
		}
		for _, p := range d.Params {
			s := phrase.Slot{Name: p.Name}
			switch p.Kind {
			case EntityID:
				s.Kind, s.Entity, s.Nouns, s.Pattern = phrase.SlotEntity, p.Entity, slices.Clone(p.Nouns), p.Pattern
				if p.Names != nil {
					s.IDs = make([]phrase.Named, 0, len(p.Names))
					for id, name := range p.Names {
						s.IDs = append(s.IDs, phrase.Named{ID: id, Name: name})
					}
					slices.SortFunc(s.IDs, func(a, b phrase.Named) int { return strings.Compare(a.ID, b.ID) })
				}
			case Array:
				// A list of enumerated values ("by zone", "per device
				// type"): its items' values and synonyms.
				if p.Items != nil && p.Items.Kind == Object && len(d.Filters) > 0 {
					// A list of filters: the words naming each
					// dimension's values.
					s.Kind = phrase.SlotFilters
					for _, f := range d.Filters {
						dim := phrase.Dim{Name: f.Dimension, Entity: f.Entity}
						for _, v := range f.Values {
							dim.Values = append(dim.Values, phrase.Value{Value: v.Value, Synonyms: slices.Clone(v.Phrases)})
						}
						s.Dims = append(s.Dims, dim)
					}
					break
				}
				if p.Items == nil || p.Items.Kind != Enum {
					break
				}
				s.Kind = phrase.SlotEnumList
				for _, val := range p.Items.Values {
					pv := phrase.Value{Value: val}
					for _, syn := range p.Items.Synonyms {
						if syn.Value == val {
							pv.Synonyms = append(pv.Synonyms, syn.Phrases...)
						}
					}
					s.Values = append(s.Values, pv)
				}
			case Enum:
				s.Kind, s.Optional = phrase.SlotEnum, p.Optional
				for _, val := range p.Values {
					pv := phrase.Value{Value: val}
					for _, syn := range p.Synonyms {
						if syn.Value == val {
							pv.Synonyms = append(pv.Synonyms, syn.Phrases...)
						}
					}
					s.Values = append(s.Values, pv)
				}
			case Timestamp:
				switch p.Name {
				case "start":
					s.Kind = phrase.SlotStart
				case "end":
					s.Kind = phrase.SlotEnd
				default:
					s.Kind = phrase.SlotInstant
				}
			}
			tv.Slots = append(tv.Slots, s)
		}
		v.Tools = append(v.Tools, tv)
	}
	return v
}

// CheckSentence renders the answer to a yes/no question that asked about
// value asked ("is pr-007 in stock?"), by code alone, from the tool's
// Check template: {match?yes|no} says whether the observed value is the
// one asked about and {value} names it. Without an observation, or for a
// tool without a Check template, it is Sentence.
func CheckSentence(d Def, args map[string]string, v fact.Value, asked string) string {
	if d.Check == "" || asked == "" || v.Kind != fact.KindText || !v.Observed {
		return Sentence(d, args, v)
	}
	t, err := phrase.ParseTemplate(d.Check)
	if err != nil {
		// NewRegistry refuses a template that does not parse.
		return Sentence(d, args, v)
	}
	return t.Render(phrase.Fill{Args: args, Value: FormatValue(d, v), Asked: asked, Match: v.Text == asked})
}
