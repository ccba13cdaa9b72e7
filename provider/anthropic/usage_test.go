package anthropic

import (
	"testing"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/provider"
)

// TestUsage_Reported: each reply's token usage (the scripted server
// reports 2 per reply) reaches the meter the request's context carries,
// for selection and composition; a context without one is fine.
func TestUsage_Reported(t *testing.T) {
	srv := newScriptedServer(t)
	p := newProvider(t, Options{BaseURL: srv.baseURL()})
	var m provider.Meter
	ctx := provider.WithMeter(t.Context(), &m)
	c := templateCases[1]
	if _, err := p.Select(ctx, c.question, catalogstest.Retail().Menu()); err != nil {
		t.Fatal(err)
	}
	if m.Tokens() != 2 {
		t.Errorf("after Select: %d tokens, want 2", m.Tokens())
	}
	if _, err := p.Compose(ctx, c.composeInput()); err != nil {
		t.Fatal(err)
	}
	if m.Tokens() != 4 {
		t.Errorf("after Compose: %d tokens, want 4", m.Tokens())
	}
	if _, err := p.Select(t.Context(), c.question, catalogstest.Retail().Menu()); err != nil {
		t.Fatal(err)
	}
}
