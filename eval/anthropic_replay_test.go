package eval_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/anthropic"
	"github.com/provenant/provenant/provider/anthropic/anthropictest"
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
	replayGold(t, anthropicCassettes, "http://replay.invalid", "anthropic:anthropictest-rules",
		func(t *testing.T) string { return anthropictest.NewServer(t).BaseURL() },
		func(baseURL string, transport http.RoundTripper) (provider.Provider, error) {
			return anthropic.New(anthropic.Options{BaseURL: baseURL, Model: "anthropictest-rules", Transport: transport})
		})
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
