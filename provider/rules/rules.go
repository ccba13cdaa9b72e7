// Package rules is the embedded default provider: a deterministic parser
// of the question forms each tool declares (tool.Def.Phrasings, from the
// catalog, in the pattern language of package phrase) that needs no
// model. It proposes no tool for any other question, and composes the
// sentence each tool's templates render from the value (tool.Sentence).
//
// Captured tokens are passed to the wall as written (an enumerated token
// in the declared case when it matches a value regardless of case), so a
// malformed id or an injected query in a question is judged by the wall,
// not silently dropped here.
package rules

import (
	"context"
	"strings"
	"sync"

	"github.com/provenant/provenant/phrase"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/tool"
)

// Provider is the rules provider. The zero value is ready to use.
type Provider struct{}

var _ provider.Provider = Provider{}

// Name returns "rules".
func (Provider) Name() string { return "rules" }

// patterns caches compiled phrasings by their text: a registry's
// phrasings compile once per process.
var patterns sync.Map // string → *phrase.Pattern

func compiled(ph string) *phrase.Pattern {
	if p, ok := patterns.Load(ph); ok {
		return p.(*phrase.Pattern)
	}
	p, err := phrase.Compile(ph)
	if err != nil {
		// tool.NewRegistry refuses a phrasing that does not compile.
		return nil
	}
	patterns.Store(ph, p)
	return p
}

// Select matches the question against each tool's phrasings, in menu
// order, and proposes the first that matches.
func (Provider) Select(ctx context.Context, question string, menu []tool.Def) (*tool.Proposal, error) {
	for _, d := range menu {
		for _, ph := range d.Phrasings {
			p := compiled(ph)
			if p == nil {
				continue
			}
			m, ok := p.Match(question)
			if !ok {
				continue
			}
			params := make(map[string]any, len(m))
			for name, tok := range m {
				params[name] = canonical(d, name, tok)
			}
			return &tool.Proposal{Tool: d.Name, Params: params}, nil
		}
	}
	return nil, nil
}

// canonical writes an enumerated token in its declared case when it
// matches a value regardless of case; anything else as written.
func canonical(d tool.Def, name, tok string) string {
	for _, p := range d.Params {
		if p.Name != name || p.Kind != tool.Enum {
			continue
		}
		for _, v := range p.Values {
			if strings.EqualFold(v, tok) {
				return v
			}
		}
	}
	return tok
}

// Compose writes the tool's sentence for the value.
func (Provider) Compose(ctx context.Context, in provider.ComposeInput) (string, error) {
	return tool.Sentence(in.Def, in.Args, in.Value), nil
}
