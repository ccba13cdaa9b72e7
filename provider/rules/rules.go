// Package rules is the embedded default provider: a deterministic,
// model-free reader of questions (package phrase) driven by the
// vocabulary the catalog declares for each tool (its phrasings and
// keywords; its slots' nouns, names and synonyms; tool.Vocabulary). It
// understands questions as people ask them, resolves relative time
// against the request's clock (provider.NowFrom), and abstains with a
// precise reason (a *provider.Abstention) when it cannot: a slot
// missing, a name that matches several ids or none, words outside the
// vocabulary. It composes the sentence each tool's templates render from
// the value (tool.Sentence, tool.CheckSentence for a yes/no question).
//
// Tokens a declared phrasing captures are passed to the wall as written
// (an enumerated token in the declared case when it matches a value
// regardless of case), so a malformed id or an injected query in such a
// question is judged by the wall, not silently dropped here.
package rules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/provenant/provenant/phrase"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/tool"
)

// Provider is the rules provider. The zero value is ready to use.
type Provider struct{}

var _ provider.Provider = Provider{}

// Name returns "rules".
func (Provider) Name() string { return "rules" }

// Select reads the question against the menu's vocabulary and proposes
// the call it names. A question no tool's vocabulary matches gets no
// proposal (no_tool); one a tool matches but that cannot be answered
// exactly gets a *provider.Abstention.
func (Provider) Select(ctx context.Context, question string, menu []tool.Def) (*tool.Proposal, error) {
	now, _ := provider.NowFrom(ctx)
	res, err := Parse(question, menu, now)
	if err != nil {
		if a, ok := errors.AsType[*provider.Abstention](err); ok && a.Kind == provider.AbstainNoTool {
			return nil, nil
		}
		return nil, err
	}
	params := make(map[string]any, len(res.Params))
	for k, v := range res.Params {
		params[k] = v
	}
	// A list slot ("by zone") is a JSON array: the call carries it as one.
	for _, d := range menu {
		if d.Name != res.Tool {
			continue
		}
		for _, p := range d.Params {
			if v, ok := res.Params[p.Name]; ok && p.Kind == tool.Array {
				var list []any
				if err := json.Unmarshal([]byte(v), &list); err != nil {
					return nil, fmt.Errorf("read list slot %s: %w", p.Name, err)
				}
				params[p.Name] = list
			}
		}
	}
	return &tool.Proposal{Tool: res.Tool, Params: params, Asked: res.Asked}, nil
}

// Parse is the pre-parser: it reads a question against the menu's
// vocabulary with now as the clock (zero: none) and returns the resolved
// call (tool, parameters with ids canonical, enumerations in their
// declared case, times resolved to UTC instants, the value a yes/no
// question asks), or a *provider.Abstention saying why not. A model
// provider may be given its slots as already resolved.
func Parse(question string, menu []tool.Def, now time.Time) (phrase.Parse, error) {
	p, err := parser(menu)
	if err != nil {
		// tool.NewRegistry refuses what would not compile.
		return phrase.Parse{}, &provider.Abstention{Kind: provider.AbstainNoTool, Detail: "no tool on the menu covers the question"}
	}
	res, err := p.Parse(question, now)
	if err != nil {
		a, ok := errors.AsType[*phrase.Abstention](err)
		if !ok {
			return phrase.Parse{}, err
		}
		return phrase.Parse{}, &provider.Abstention{Kind: provider.AbstentionKind(a.Kind), Detail: a.Detail()}
	}
	return res, nil
}

// Compose writes the tool's sentence for the value: the yes/no sentence
// when the question asked about a value.
func (Provider) Compose(ctx context.Context, in provider.ComposeInput) (string, error) {
	if in.Asked != "" {
		return tool.CheckSentence(in.Def, in.Args, in.Value, in.Asked), nil
	}
	return tool.Sentence(in.Def, in.Args, in.Value), nil
}

// parsers caches compiled parsers by the menu's vocabulary: a registry's
// menu compiles once per process. It is bounded: past maxParsers entries
// it starts again.
var (
	parsersMu sync.Mutex
	parsers   = map[uint64]*phrase.Parser{}
)

const maxParsers = 64

// seed is the process's fingerprint seed.
var seed = maphash.MakeSeed()

// byMenu remembers the parser of a menu slice itself (a pipeline passes
// the same one with every question), so the fingerprint is computed once
// per slice: a menu is read, never copied, and a changed menu is a new
// slice (tool.Registry.Menu returns one each time).
var byMenu = map[menuKey]*phrase.Parser{}

type menuKey struct {
	first *tool.Def
	n     int
}

func parser(menu []tool.Def) (*phrase.Parser, error) {
	var mk menuKey
	if len(menu) > 0 {
		mk = menuKey{&menu[0], len(menu)}
		parsersMu.Lock()
		p, ok := byMenu[mk]
		parsersMu.Unlock()
		if ok {
			return p, nil
		}
	}
	key := fingerprint(menu)
	parsersMu.Lock()
	p, ok := parsers[key]
	if ok && mk.first != nil {
		if len(byMenu) >= maxParsers {
			clear(byMenu)
		}
		byMenu[mk] = p
	}
	parsersMu.Unlock()
	if ok {
		return p, nil
	}
	p, err := phrase.NewParser(tool.Vocabulary(menu))
	if err != nil {
		return nil, err
	}
	parsersMu.Lock()
	if len(parsers) >= maxParsers {
		clear(parsers)
	}
	parsers[key] = p
	parsersMu.Unlock()
	return p, nil
}

// fingerprint hashes every word of the menu's vocabulary; the declared
// names, which may be many, count by identity (a registry's maps are
// shared and never written).
func fingerprint(menu []tool.Def) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	w := func(s string) {
		h.WriteString(s)
		h.WriteByte(0)
	}
	syn := func(ss []tool.Synonyms) {
		for _, s := range ss {
			w(s.Value)
			for _, p := range s.Phrases {
				w(p)
			}
		}
		w("")
	}
	for _, d := range menu {
		w(d.Name)
		for _, s := range d.Phrasings {
			w(s)
		}
		w("")
		for _, s := range d.Keywords {
			w(s)
		}
		w("")
		syn(d.Asks)
		for _, f := range d.Filters {
			w(f.Dimension)
			w(f.Entity)
			syn(f.Values)
		}
		w("")
		for _, p := range d.Params {
			w(p.Name)
			w(strconv.Itoa(int(p.Kind)))
			w(p.Entity)
			w(p.Pattern)
			for _, n := range p.Nouns {
				w(n)
			}
			w("")
			for _, v := range p.Values {
				w(v)
			}
			w("")
			syn(p.Synonyms)
			if p.Optional {
				w("optional")
			}
			if p.Items != nil {
				for _, v := range p.Items.Values {
					w(v)
				}
				w("")
				syn(p.Items.Synonyms)
			}
			if p.Names != nil {
				w(strconv.FormatUint(uint64(reflect.ValueOf(p.Names).Pointer()), 16))
				w(strconv.Itoa(len(p.Names)))
			}
		}
	}
	return h.Sum64()
}
