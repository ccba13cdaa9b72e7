package tool

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/provenant/provenant/phrase"
)

// Prompt is a prompt template over a registry's tools (an MCP prompt): a
// text with {name} for each argument, whose value must be in the domain of
// the tool parameter the argument takes.
type Prompt struct {
	Name        string
	Description string
	Args        []PromptArg
	Text        string // a phrase template naming only its arguments
}

// PromptArg is one argument of a prompt.
type PromptArg struct {
	Name        string
	Description string
	Param       Param // the domain (a tool parameter's)
}

// PromptError is a prompt argument that is missing or outside its
// domain. It names the argument, never the value.
type PromptError struct {
	Arg    string
	Reason string
}

func (e *PromptError) Error() string { return "prompt argument " + e.Arg + " " + e.Reason }

// ErrUnknownPrompt is RenderPrompt's error for a name the registry has no
// prompt by.
var ErrUnknownPrompt = errors.New("unknown prompt")

// WithPrompts returns a copy of r offering ps: names unique, each
// argument's parameter of a known kind, each text a template naming only
// its arguments.
func (r *Registry) WithPrompts(ps []Prompt) (*Registry, error) {
	c := *r
	c.patterns = maps.Clone(r.patterns) // compile adds to it: not r's
	c.prompts = nil
	c.templates = map[string]*phrase.Template{}
	for _, p := range ps {
		if p.Name == "" || c.templates[p.Name] != nil {
			return nil, fmt.Errorf("%w: prompt name empty or repeated", ErrInvalidRegistry)
		}
		tpl, err := phrase.ParseTemplate(p.Text)
		if err != nil {
			return nil, fmt.Errorf("%w: prompt %s: %w", ErrInvalidRegistry, p.Name, err)
		}
		names := make([]string, len(p.Args))
		for i, a := range p.Args {
			names[i] = a.Name
			if a.Param.Kind == EntityID {
				if err := c.compile(a.Param.Pattern); err != nil {
					return nil, fmt.Errorf("%w: prompt %s: %w", ErrInvalidRegistry, p.Name, err)
				}
			}
		}
		for _, n := range tpl.Args() {
			if !slices.Contains(names, n) {
				return nil, fmt.Errorf("%w: prompt %s: text names no argument %s", ErrInvalidRegistry, p.Name, n)
			}
		}
		c.templates[p.Name] = tpl
		p.Args = slices.Clone(p.Args)
		c.prompts = append(c.prompts, p)
	}
	return &c, nil
}

// Prompts returns the registry's prompts in declared order.
func (r *Registry) Prompts() []Prompt {
	out := make([]Prompt, len(r.prompts))
	for i, p := range r.prompts {
		p.Args = slices.Clone(p.Args)
		out[i] = p
	}
	return out
}

// RenderPrompt returns the text of the named prompt with args filled in.
// Every argument is required and checked against its domain; with both a
// start and an end timestamp, start must not be after end (the wall's
// window rule). A problem is a *PromptError.
func (r *Registry) RenderPrompt(name string, args map[string]string) (string, error) {
	i := slices.IndexFunc(r.prompts, func(p Prompt) bool { return p.Name == name })
	if i < 0 {
		return "", ErrUnknownPrompt
	}
	p := r.prompts[i]
	fill := map[string]string{}
	for _, a := range p.Args {
		v, ok := args[a.Name]
		if !ok || v == "" {
			return "", &PromptError{Arg: a.Name, Reason: "is missing"}
		}
		if why := r.OutOfDomain(a.Param, v); why != "" {
			return "", &PromptError{Arg: a.Name, Reason: why}
		}
		fill[a.Name] = v
	}
	if start, end := fill["start"], fill["end"]; start != "" && end != "" && start > end {
		return "", &PromptError{Arg: "end", Reason: "is before start"}
	}
	return r.templates[name].Render(phrase.Fill{Args: fill}), nil
}
