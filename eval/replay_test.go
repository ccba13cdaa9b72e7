package eval_test

import (
	"net/http"
	"testing"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/eval"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/cassette"
	"github.com/provenant/provenant/provider/openai"
	"github.com/provenant/provenant/provider/openai/openaitest"
	"github.com/provenant/provenant/retail/demo"
)

// replayCassettes holds the model calls of one gold-set run through the
// openai provider, recorded from the fake server in package openaitest.
const replayCassettes = "testdata/cassettes"

// TestRun_OpenAIReplayMeetsEveryGate drives the whole gold set through the
// openai provider (the SDK's requests, the registry's tool schemas, its
// tool-call parsing and compose) with recorded model calls and no network:
// every gate must be 100%, as with the rules provider. With -update it
// re-records the cassettes from the fake server first.
func TestRun_OpenAIReplayMeetsEveryGate(t *testing.T) {
	replayGold(t, replayCassettes, "http://replay.invalid/v1", "openai:openaitest-rules",
		func(t *testing.T) string { return openaitest.NewServer(t).BaseURL() },
		func(baseURL string, transport http.RoundTripper) (provider.Provider, error) {
			return openai.New(openai.Options{BaseURL: baseURL, Model: "openaitest-rules", Transport: transport})
		})
}

// replayGold runs the default gold set over the demo store through the
// provider newProvider builds on a cassette transport: replaying dir (at
// replayURL: replay sends nothing, and the host is not part of a cassette
// key), or with -update recording into dir from the fake server
// newServer starts. Every gate must count items and be met, every item be
// correct, and the report name the provider as wantProvider.
func replayGold(t *testing.T, dir, replayURL, wantProvider string, newServer func(*testing.T) string,
	newProvider func(baseURL string, transport http.RoundTripper) (provider.Provider, error)) {
	t.Helper()
	var transport http.RoundTripper = &cassette.Replayer{Dir: dir}
	baseURL := replayURL
	if *update {
		transport, baseURL = &cassette.Recorder{Dir: dir}, newServer(t)
	}
	p, err := newProvider(baseURL, transport)
	if err != nil {
		t.Fatal(err)
	}
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(t.Context(), d, enginetest.OpenDuckDB, &engine.Options{Provider: p})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := eval.Run(t.Context(), e.Pipeline, defaultGold(t), e)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range r.Gates.All() {
		if g.Gate.Total == 0 {
			t.Errorf("gate %s counted no item", g.Name)
		}
		if !g.Gate.Met() {
			t.Errorf("gate %s: %d/%d", g.Name, g.Gate.Passed, g.Gate.Total)
		}
	}
	for _, row := range r.Items {
		if !row.Correct {
			t.Errorf("item %s: outcome %s: %s", row.ID, row.Outcome, row.Detail)
		}
	}
	if r.Provider != wantProvider {
		t.Errorf("provider = %q, want %q", r.Provider, wantProvider)
	}
}
