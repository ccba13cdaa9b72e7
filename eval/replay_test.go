package eval_test

import (
	"net/http"
	"testing"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/eval"
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
	var transport http.RoundTripper = &cassette.Replayer{Dir: replayCassettes}
	baseURL := "http://replay.invalid/v1" // replay sends nothing; the host is not part of a cassette key
	if *update {
		srv := openaitest.NewServer(t)
		transport, baseURL = &cassette.Recorder{Dir: replayCassettes}, srv.BaseURL()
	}
	p, err := openai.New(openai.Options{BaseURL: baseURL, Model: "openaitest-rules", Transport: transport})
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
		if !g.Gate.Met() {
			t.Errorf("gate %s: %d/%d", g.Name, g.Gate.Passed, g.Gate.Total)
		}
	}
	for _, row := range r.Items {
		if !row.Correct {
			t.Errorf("item %s: outcome %s: %s", row.ID, row.Outcome, row.Detail)
		}
	}
	if r.Provider != "openai:openaitest-rules" {
		t.Errorf("provider = %q", r.Provider)
	}
}
