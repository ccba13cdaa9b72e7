package rules_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/phrase"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/tool"
)

// generated is a question built from a tool's vocabulary with the slots
// it must parse to.
type generated struct {
	pieces []string // in the order they are joined
	tool   string
	params map[string]string
	asked  string
	// slot is the index in pieces of one entity slot's value, or -1.
	slot int
}

func (g generated) question() string { return strings.Join(g.pieces, " ") }

// anyCase writes s in lower, upper or title case, or as written.
func anyCase(t *rapid.T, s, label string) string {
	switch rapid.IntRange(0, 3).Draw(t, label) {
	case 0:
		return strings.ToLower(s)
	case 1:
		return strings.ToUpper(s)
	case 2:
		if s == "" {
			return s
		}
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// instantForms are ways to name an instant, with what each means at clock.
var instantForms = []struct{ text, want string }{
	{"", nowTS}, {"now", nowTS}, {"right now", nowTS}, {"currently", nowTS}, {"today", nowTS},
	{"at the moment", nowTS}, {"on 2026-01-05", "2026-01-05T23:59:59Z"}, {"yesterday", "2026-01-06T23:59:59Z"},
	{"on January 5", "2026-01-05T23:59:59Z"}, {"on 5 Jan 2026", "2026-01-05T23:59:59Z"},
	{"at 2026-01-06 08:00", "2026-01-06T08:00:00Z"}, {"as of 2026-01-06T08:00:00Z", "2026-01-06T08:00:00Z"},
}

// windowForms are ways to name a window, with its start and end at clock.
var windowForms = []struct{ text, start, end string }{
	{"today", "2026-01-07T00:00:00Z", nowTS},
	{"yesterday", "2026-01-06T00:00:00Z", "2026-01-07T00:00:00Z"},
	{"this week", "2026-01-05T00:00:00Z", nowTS},
	{"last week", "2025-12-29T00:00:00Z", "2026-01-05T00:00:00Z"},
	{"in the last 3 days", "2026-01-04T12:00:00Z", nowTS},
	{"over the past 6 hours", "2026-01-07T06:00:00Z", nowTS},
	{"between 2026-01-01 and 2026-01-03", "2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z"},
	{"from 2026-01-02 to 2026-01-02", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"},
	{"between 2026-01-02T06:00:00Z and 2026-01-02T07:00:00Z", "2026-01-02T06:00:00Z", "2026-01-02T07:00:00Z"},
	{"on 2026-01-03", "2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z"},
	{"since 2026-01-06", "2026-01-06T00:00:00Z", nowTS},
}

var fillers = []string{"", "please", "could you tell me", "hey,", "I'd like to know", "quickly:"}

// generate builds a question for one tool of the vocabulary: a keyword
// (or, for a yes/no tool, a value asked about), each slot's value by id
// in any case, display name, noun and number, value or synonym, and a
// time form, in any order, with filler.
func generate(t *rapid.T, v phrase.Vocabulary) generated {
	tv := rapid.SampledFrom(v.Tools).Draw(t, "tool")
	g := generated{tool: tv.Name, params: map[string]string{}, slot: -1}
	var pieces []string
	asks := len(tv.Asks) > 0 && (len(tv.Keywords) == 0 || rapid.Bool().Draw(t, "yes/no"))
	if asks {
		a := rapid.SampledFrom(tv.Asks).Draw(t, "asked")
		g.asked = a.Value
		pieces = append(pieces, "is "+rapid.SampledFrom(append([]string{strings.ToLower(a.Value)}, a.Synonyms...)).Draw(t, "ask phrase"))
	}
	if !asks || rapid.Bool().Draw(t, "keyword too") {
		pieces = append(pieces, anyCase(t, rapid.SampledFrom(tv.Keywords).Draw(t, "keyword"), "keyword case"))
	}
	var slotPiece string
	for _, s := range tv.Slots {
		switch s.Kind {
		case phrase.SlotEntity:
			var ids []phrase.Named
			if s.IDs != nil {
				ids = s.IDs
			} else {
				for i := 1; i <= 30; i++ {
					ids = append(ids, phrase.Named{ID: idFor(s.Pattern, i)})
				}
			}
			n := rapid.SampledFrom(ids).Draw(t, s.Name)
			g.params[s.Name] = n.ID
			forms := []string{anyCase(t, n.ID, s.Name+" case")}
			if unique(ids, n) {
				forms = append(forms, anyCase(t, n.Name, s.Name+" name case"))
			}
			if num, ok := number(n.ID); ok && len(s.Nouns) > 0 && uniqueNumber(ids, num) {
				forms = append(forms, rapid.SampledFrom(s.Nouns).Draw(t, "noun")+" "+strconv.Itoa(num))
			}
			piece := rapid.SampledFrom(forms).Draw(t, s.Name+" form")
			prep := rapid.SampledFrom([]string{"at", "for", "of", "in", ""}).Draw(t, s.Name+" prep")
			slotPiece = strings.TrimSpace(prep + " " + piece)
			pieces = append(pieces, slotPiece)
		case phrase.SlotEnum:
			val := rapid.SampledFrom(s.Values).Draw(t, s.Name)
			g.params[s.Name] = val.Value
			pieces = append(pieces, rapid.SampledFrom(append([]string{anyCase(t, val.Value, s.Name+" case")}, val.Synonyms...)).Draw(t, s.Name+" form"))
		case phrase.SlotInstant:
			f := rapid.SampledFrom(instantForms).Draw(t, "instant")
			g.params[s.Name] = f.want
			if f.text != "" {
				pieces = append(pieces, f.text)
			}
		case phrase.SlotStart:
			f := rapid.SampledFrom(windowForms).Draw(t, "window")
			g.params["start"], g.params["end"] = f.start, f.end
			pieces = append(pieces, f.text)
		}
	}
	order := rapid.Permutation(pieces).Draw(t, "order")
	if f := rapid.SampledFrom(fillers).Draw(t, "filler"); f != "" {
		order = append([]string{f}, order...)
	}
	g.pieces = order
	if slotPiece != "" {
		g.slot = slices.Index(order, slotPiece)
	}
	return g
}

// idFor writes the id with number i of a prefix-and-digits pattern.
func idFor(pattern string, i int) string {
	// ^dev-[0-9]{4}$ → dev-0001
	body := strings.TrimSuffix(strings.TrimPrefix(pattern, "^"), "$")
	open := strings.Index(body, "[0-9]{")
	k, _ := strconv.Atoi(body[open+6 : len(body)-1])
	return fmt.Sprintf("%s%0*d", body[:open], k, i)
}

func number(id string) (int, bool) {
	i := strings.LastIndexFunc(id, func(r rune) bool { return r < '0' || r > '9' })
	n, err := strconv.Atoi(id[i+1:])
	return n, err == nil
}

func unique(ids []phrase.Named, n phrase.Named) bool {
	if n.Name == "" {
		return false
	}
	c := 0
	for _, m := range ids {
		if strings.EqualFold(m.Name, n.Name) {
			c++
		}
	}
	return c == 1
}

func uniqueNumber(ids []phrase.Named, num int) bool {
	c := 0
	for _, m := range ids {
		if k, ok := number(m.ID); ok && k == num {
			c++
		}
	}
	return c == 1
}

// propertyMenus are the menus the properties run over: both catalogs,
// retail with the demo store's names.
func propertyMenus(t *testing.T) map[string][]tool.Def {
	return map[string][]tool.Def{"retail": retailMenu(t), "warehouse": catalogstest.Warehouse().Menu()}
}

// TestProperty_TemplatesParseToTheirSlots: a question built from any
// tool's vocabulary with any declared slot values (ids in any case,
// names, "noun N", values and synonyms, every time form), in any order,
// with filler, parses to exactly those slots.
func TestProperty_TemplatesParseToTheirSlots(t *testing.T) {
	for name, menu := range propertyMenus(t) {
		t.Run(name, func(t *testing.T) {
			v := tool.Vocabulary(menu)
			rapid.Check(t, func(rt *rapid.T) {
				g := generate(rt, v)
				got, err := rules.Parse(g.question(), menu, clock)
				if err != nil {
					rt.Fatalf("Parse(%q) = %v, want %s %v", g.question(), err, g.tool, g.params)
				}
				if got.Tool != g.tool || !maps.Equal(got.Params, g.params) || got.Asked != g.asked {
					rt.Fatalf("Parse(%q)\n got  %s\n want %s %v asked=%q", g.question(), got, g.tool, g.params, g.asked)
				}
			})
		})
	}
}

// TestProperty_UnknownWordNeverAnswersAnotherQuestion: an undeclared
// word put in a slot's place, or beside it, never yields a call with
// other slots: the question abstains, or (beside a slot) is the same call.
func TestProperty_UnknownWordNeverAnswersAnotherQuestion(t *testing.T) {
	for name, menu := range propertyMenus(t) {
		t.Run(name, func(t *testing.T) {
			v := tool.Vocabulary(menu)
			p, err := phrase.NewParser(v)
			if err != nil {
				t.Fatal(err)
			}
			rapid.Check(t, func(rt *rapid.T) {
				g := generate(rt, v)
				if g.slot < 0 {
					rt.Skip("no entity slot")
				}
				word := rapid.StringMatching(`zq[a-z]{2,8}`).Draw(rt, "word")
				pieces := slices.Clone(g.pieces)
				replaced := rapid.Bool().Draw(rt, "replace")
				if replaced {
					pieces[g.slot] = rapid.SampledFrom([]string{"at ", "for ", ""}).Draw(rt, "prep") + word
				} else {
					pieces = slices.Insert(pieces, g.slot+rapid.IntRange(0, 1).Draw(rt, "side"), word)
				}
				q := strings.Join(pieces, " ")
				got, err := p.Parse(q, clock)
				if err != nil {
					if _, ok := errors.AsType[*phrase.Abstention](err); !ok {
						rt.Fatalf("Parse(%q) = %v, not an abstention", q, err)
					}
					if strings.Contains(err.Error(), word) {
						rt.Fatalf("Parse(%q): the reason %q echoes the unknown word", q, err)
					}
					return
				}
				if replaced || got.Tool != g.tool || !maps.Equal(got.Params, g.params) {
					rt.Fatalf("Parse(%q) = %s, want an abstention (the question built was %s %v)", q, got, g.tool, g.params)
				}
			})
		})
	}
}

// TestSelect_AbstentionsAreTyped: Select returns no proposal and no error
// for no_tool, and a *provider.Abstention for every other reason.
func TestSelect_AbstentionsAreTyped(t *testing.T) {
	menu := retailMenu(t)
	ctx := provider.WithNow(t.Context(), clock)
	if p, err := (rules.Provider{}).Select(ctx, "who supplies pr-007?", menu); p != nil || err != nil {
		t.Errorf("no_tool: %v, %v; want nil, nil", p, err)
	}
	p, err := (rules.Provider{}).Select(ctx, "what's the price of pr-007?", menu)
	if a, ok := errors.AsType[*provider.Abstention](err); p != nil || !ok || a.Kind != provider.AbstainMissingSlot {
		t.Errorf("missing slot: %v, %v", p, err)
	}
	p, err = (rules.Provider{}).Select(ctx, "is pr-007 in stock at st-003", menu)
	if err != nil || p.Asked != "IN_STOCK" || p.Params["as_of"] != nowTS {
		t.Errorf("yes/no: %+v, %v", p, err)
	}
}

// FuzzSelect: over the retail menu with the demo store's names, any
// question gets a proposal, no proposal, or a *provider.Abstention whose
// reason does not echo the question; never a panic. A proposal the parser
// built (not a declared phrasing's tokens) holds only declared or
// well-formed values.
func FuzzSelect(f *testing.F) {
	for _, q := range []string{"is pr-007 in stock at st-003?", "how many times was riverside out of stock last week",
		"What is the price of pr-007' OR 1=1 at st-003 as of 2026-01-06T08:00:00Z?", "price of product 7 at store 3",
		"is sourdough in stock at st-001", "which stores have compliance issues since 2026-01-02"} {
		f.Add(q)
	}
	menu := retailMenu(f)
	ctx := provider.WithNow(context.Background(), clock)
	ids := regexp.MustCompile(`^(st|pr)-[0-9]{3}$`)
	f.Fuzz(func(t *testing.T, q string) {
		res, err := rules.Parse(q, menu, clock)
		if err != nil {
			if _, ok := errors.AsType[*provider.Abstention](err); !ok {
				t.Fatalf("Parse(%q) = %v, not an abstention", q, err)
			}
			if w := strings.TrimSpace(q); len(w) > 12 && strings.Contains(err.Error(), w) {
				t.Fatalf("the reason %q echoes the question", err)
			}
		} else if !res.Phrasing {
			for k, v := range res.Params {
				if strings.HasSuffix(k, "_id") && !ids.MatchString(v) {
					t.Fatalf("Parse(%q): %s=%q", q, k, v)
				}
			}
		}
		if _, err := (rules.Provider{}).Select(ctx, q, menu); err != nil {
			if _, ok := errors.AsType[*provider.Abstention](err); !ok {
				t.Fatalf("Select(%q) = %v", q, err)
			}
		}
	})
}

// TestSynonyms_Every: every synonym both catalogs declare, of a filter's
// value or of a value a yes/no question asks, is read as its value in a
// plain question.
func TestSynonyms_Every(t *testing.T) {
	for name, menu := range propertyMenus(t) {
		t.Run(name, func(t *testing.T) {
			v := tool.Vocabulary(menu)
			n := 0
			for _, tv := range v.Tools {
				// The slots but the one a synonym fills, written plainly.
				base := func(skip int) ([]string, map[string]string) {
					var pieces []string
					params := map[string]string{}
					for si, s := range tv.Slots {
						switch {
						case si == skip:
						case s.Kind == phrase.SlotEntity:
							id := idFor(s.Pattern, 1)
							if s.IDs != nil {
								id = s.IDs[0].ID
							}
							pieces, params[s.Name] = append(pieces, "at "+id), id
						case s.Kind == phrase.SlotInstant:
							params[s.Name] = nowTS
						case s.Kind == phrase.SlotStart:
							pieces = append(pieces, "today")
							params["start"], params["end"] = "2026-01-07T00:00:00Z", nowTS
						}
					}
					return pieces, params
				}
				for si, s := range tv.Slots {
					if s.Kind != phrase.SlotEnum {
						continue
					}
					for _, val := range s.Values {
						for _, syn := range val.Synonyms {
							pieces, params := base(si)
							params[s.Name] = val.Value
							q := strings.Join(append([]string{tv.Keywords[0], syn}, pieces...), " ")
							got, err := rules.Parse(q, menu, clock)
							if err != nil || got.Tool != tv.Name || !maps.Equal(got.Params, params) {
								t.Errorf("%s: Parse(%q) = %s, %v; want %v", tv.Name, q, got, err, params)
							}
							n++
						}
					}
				}
				for _, a := range tv.Asks {
					for _, syn := range a.Synonyms {
						pieces, params := base(-1)
						q := strings.Join(append([]string{"is"}, append(pieces, syn)...), " ") + "?"
						got, err := rules.Parse(q, menu, clock)
						if err != nil || got.Tool != tv.Name || !maps.Equal(got.Params, params) || got.Asked != a.Value {
							t.Errorf("%s: Parse(%q) = %s, %v; want %v asked %s", tv.Name, q, got, err, params, a.Value)
						}
						n++
					}
				}
			}
			if n < 50 {
				t.Errorf("checked %d synonyms, want every one (more than 50)", n)
			}
		})
	}
}
