package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/provider/anthropic/anthropictest"
	"github.com/provenant/provenant/provider/cassette"
)

const priceQuestion = "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"

// TestRun_AnthropicFlags: the anthropic provider's flags are usage errors
// (exit 2) naming the flag, never echoing the value.
func TestRun_AnthropicFlags(t *testing.T) {
	const secret = "sk-ant-SECRET-VALUE"
	tests := []struct {
		name     string
		args     []string
		wantText string
	}{
		{"anthropic without --model", []string{"ask", "--provider", "anthropic", "q"}, "--model"},
		{"unknown --api", []string{"ask", "--provider", "replay", "--api", secret, "--model", "m", "q"}, "--api"},
		{"--api with a live provider", []string{"ask", "--provider", "openai", "--api", "anthropic", "--model", "m", "q"}, "--api goes with --provider record or replay"},
		{"--api anthropic with anthropic", []string{"ask", "--provider", "anthropic", "--api", "anthropic", "--model", "m", "q"}, "--api goes with"},
		{"bad --anthropic-base-url", []string{"ask", "--provider", "anthropic", "--model", "m", "--anthropic-base-url", "ftp://user:" + secret + "@host", "q"}, "base URL"},
		{"empty --anthropic-api-key-env", []string{"ask", "--provider", "anthropic", "--model", "m", "--anthropic-api-key-env", "", "q"}, "--anthropic-api-key-env"},
		{"noisy over anthropic without --model", []string{"ask", "--provider", "noisy", "--noisy-inner", "anthropic", "q"}, "--model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMainCLI(t, tt.args...)
			if code != 2 || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want exit 2 and no output", code, stdout)
			}
			if !strings.Contains(stderr, tt.wantText) {
				t.Errorf("stderr %q does not name %q", stderr, tt.wantText)
			}
			if strings.Contains(stderr, secret) {
				t.Errorf("stderr echoes the value: %q", stderr)
			}
		})
	}
}

// TestRun_AnthropicProvider asks through --provider anthropic against the
// fake Messages API server: the key is read from the variable
// --anthropic-api-key-env names, and the answer is the verified one.
func TestRun_AnthropicProvider(t *testing.T) {
	srv := anthropictest.NewServer(t)
	t.Setenv("PROVENANT_TEST_ANTHROPIC_KEY", "sk-ant-cli-key")
	out, _, err := runCLI(t, "ask", "--json", "--log-level", "error", "--provider", "anthropic", "--model", "anthropictest-rules",
		"--anthropic-base-url", srv.BaseURL(), "--anthropic-api-key-env", "PROVENANT_TEST_ANTHROPIC_KEY", priceQuestion)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if m["outcome"] != "answered" || m["tool"] != "get_price" {
		t.Errorf("answer = %v", m)
	}
	if req := srv.Last(t); !strings.Contains(req.Auth+req.APIKey, "sk-ant-cli-key") {
		t.Errorf("the last request carried no key from the environment")
	}
	if n := srv.Requests(); n != 2 {
		t.Errorf("server saw %d requests, want 2 (select and compose)", n)
	}
}

// TestRun_AnthropicRecordReplay records one ask through --provider record
// --api anthropic, then replays it with --provider replay --api anthropic
// and no server.
func TestRun_AnthropicRecordReplay(t *testing.T) {
	srv := anthropictest.NewServer(t)
	dir := t.TempDir()
	ask := func(args ...string) map[string]any {
		t.Helper()
		args = append([]string{"ask", "--json", "--log-level", "error", "--api", "anthropic", "--model", "anthropictest-rules",
			"--cassettes", dir}, append(args, priceQuestion)...)
		out, _, err := runCLI(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out)
		}
		return m
	}
	rec := ask("--provider", "record", "--anthropic-base-url", srv.BaseURL())
	srv.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 2 {
		t.Fatalf("recorded %d cassettes, want 2", len(files))
	}
	for _, f := range files {
		in, err := cassette.ReadFile(f)
		if err != nil || in.Request.Path != "/v1/messages" {
			t.Errorf("cassette %s: path %q, %v; want /v1/messages", filepath.Base(f), in.Request.Path, err)
		}
	}
	rep := ask("--provider", "replay")
	if rep["outcome"] != "answered" || rep["text"] != rec["text"] {
		t.Errorf("replayed %v, recorded %v", rep, rec)
	}
}

// TestRun_AnthropicReplayGoldCassettes replays one gold question from the
// committed anthropic cassettes of the eval package, with no network and
// no key.
func TestRun_AnthropicReplayGoldCassettes(t *testing.T) {
	out, _, err := runCLI(t, "ask", "--json", "--log-level", "error", "--provider", "replay", "--api", "anthropic",
		"--model", "anthropictest-rules", "--cassettes", filepath.Join("..", "..", "eval", "testdata", "anthropic-cassettes"), priceQuestion)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"outcome":"answered"`) {
		t.Errorf("replayed answer: %s", out)
	}
}
