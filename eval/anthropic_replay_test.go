package eval_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/eval"
	"github.com/provenant/provenant/provider/anthropic"
	"github.com/provenant/provenant/provider/anthropic/anthropictest"
	"github.com/provenant/provenant/provider/cassette"
	"github.com/provenant/provenant/retail/demo"
)

// anthropicCassettes holds the model calls of one gold-set run through the
// anthropic provider, recorded from the fake Messages API server in
// package anthropictest.
const anthropicCassettes = "testdata/anthropic-cassettes"

// TestRun_AnthropicReplayMeetsEveryGate drives the whole gold set through
// the anthropic provider (the SDK's requests, the registry's tool schemas
// in strict mode, its tool_use parsing, the one retry of a proposal that
// fails its schema, and compose) with recorded model calls and no
// network: every gate must be 100%, as with the rules provider and the
// openai one. With -update it re-records the cassettes from the fake
// server first (delete the old ones before, or stale files stay).
func TestRun_AnthropicReplayMeetsEveryGate(t *testing.T) {
	var transport http.RoundTripper = &cassette.Replayer{Dir: anthropicCassettes}
	baseURL := "http://replay.invalid" // replay sends nothing; the host is not part of a cassette key
	if *update {
		srv := anthropictest.NewServer(t)
		transport, baseURL = &cassette.Recorder{Dir: anthropicCassettes}, srv.BaseURL()
	}
	p, err := anthropic.New(anthropic.Options{BaseURL: baseURL, Model: "anthropictest-rules", Transport: transport})
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
	if r.Provider != "anthropic:anthropictest-rules" {
		t.Errorf("provider = %q", r.Provider)
	}
	// The gold set's malformed calls take the retry path: the recording
	// holds retries (the refused call's tool_result), and the wall still
	// rejects what the retry proposes.
	files, _ := filepath.Glob(filepath.Join(anthropicCassettes, "*.json"))
	retries := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(`"tool_result"`)) {
			retries++
		}
	}
	if retries == 0 {
		t.Errorf("%s holds no retried selection", anthropicCassettes)
	}
}
