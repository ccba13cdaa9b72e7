// Package scripted is an instrument, never a model to answer with: a
// provider that replays scripted free SQL per question, so that tests and
// eval can drive the free SQL path (query_sql, the sandbox, the
// ungoverned tag) without a live model. For a question its script names
// it proposes the menu's free SQL tool with the scripted statement; for
// any other question it asks the inner provider (the rules provider by
// default), so the governed tools answer what they cover. It may also
// replay a scripted sentence for a question, so that a test can hand the
// grounding check a sentence that cites a number no result backs.
//
// Its Name says what it is, "scripted-sql(rules)", so every report, health
// check and log line that prints the provider labels the run as
// instrumented.
package scripted

import (
	"context"
	"strings"

	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/tool"
)

// Script is what the instrument replays, keyed by question (matched after
// trimming and folding case and runs of white space).
type Script struct {
	// SQL holds the statement proposed for a question.
	SQL map[string]string
	// Sentences holds the sentence composed for a question's answer, in
	// place of the inner provider's; optional.
	Sentences map[string]string
}

// Provider replays a Script. Safe for concurrent use.
type Provider struct {
	inner     provider.Provider
	sql       map[string]string
	sentences map[string]string
}

var _ provider.Provider = (*Provider)(nil)

// New returns the instrument over s; a nil inner is the rules provider.
func New(s Script, inner provider.Provider) *Provider {
	if inner == nil {
		inner = rules.Provider{}
	}
	p := &Provider{inner: inner, sql: map[string]string{}, sentences: map[string]string{}}
	for q, stmt := range s.SQL {
		p.sql[key(q)] = stmt
	}
	for q, sent := range s.Sentences {
		p.sentences[key(q)] = sent
	}
	return p
}

// key is how questions are matched: trimmed, lowered, white space folded.
func key(q string) string { return strings.Join(strings.Fields(strings.ToLower(q)), " ") }

// Name labels the instrument and what it wraps.
func (p *Provider) Name() string { return "scripted-sql(" + p.inner.Name() + ")" }

// Select proposes the free SQL tool with the scripted statement when the
// question has one. A scripted question whose menu has no free SQL tool
// (free SQL is off) is not covered: nil, as a model finding no tool. Any
// other question goes to the inner provider.
func (p *Provider) Select(ctx context.Context, question string, menu []tool.Def) (*tool.Proposal, error) {
	stmt, ok := p.sql[key(question)]
	if !ok {
		return p.inner.Select(ctx, question, menu)
	}
	for _, d := range menu {
		for _, q := range d.Params {
			if q.Kind == tool.Statement && len(d.Params) == 1 {
				return &tool.Proposal{Tool: d.Name, Params: map[string]any{q.Name: stmt}}, nil
			}
		}
	}
	return nil, nil
}

// Compose replays the scripted sentence for the question, or asks the
// inner provider.
func (p *Provider) Compose(ctx context.Context, in provider.ComposeInput) (string, error) {
	if s, ok := p.sentences[key(in.Question)]; ok {
		return s, nil
	}
	return p.inner.Compose(ctx, in)
}
