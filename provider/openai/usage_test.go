package openai

import (
	"slices"
	"testing"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/provider"
)

// TestUsage_Reported: each reply's token usage (the scripted server
// reports 3 input and 1 output tokens per reply) reaches the meter the
// request's context carries, input and output apart, under the model the
// request named, for selection and composition; a context without one
// is fine.
func TestUsage_Reported(t *testing.T) {
	srv := newScriptedServer(t)
	p := newProvider(t, Options{BaseURL: srv.baseURL()})
	var m provider.Meter
	ctx := provider.WithMeter(t.Context(), &m)
	c := templateCases[1]
	if _, err := p.Select(ctx, c.question, catalogstest.Retail().Menu()); err != nil {
		t.Fatal(err)
	}
	if want := []provider.Usage{{Model: scriptedModel, Input: 3, Output: 1}}; !slices.Equal(m.Usage(), want) || m.Tokens() != 4 {
		t.Errorf("after Select: %+v (%d tokens), want %+v (4)", m.Usage(), m.Tokens(), want)
	}
	if _, err := p.Compose(ctx, c.composeInput()); err != nil {
		t.Fatal(err)
	}
	if want := []provider.Usage{{Model: scriptedModel, Input: 6, Output: 2}}; !slices.Equal(m.Usage(), want) || m.Tokens() != 8 {
		t.Errorf("after Compose: %+v (%d tokens), want %+v (8)", m.Usage(), m.Tokens(), want)
	}
	if _, err := p.Select(t.Context(), c.question, catalogstest.Retail().Menu()); err != nil {
		t.Fatal(err)
	}
}
