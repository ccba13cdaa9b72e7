package mcpserver_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite testdata/prompts.golden")

// TestPrompts_Golden keeps the prompts a client lists and gets (the retail
// catalog's, rendered) in testdata/prompts.golden; regenerate with
// go test ./mcpserver -run TestPrompts_Golden -update.
func TestPrompts_Golden(t *testing.T) {
	cs := connect(t)
	list, err := cs.ListPrompts(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{"list": list.Prompts}
	for name, args := range map[string]map[string]string{
		"investigate_condition": {"condition": "NON_COMPLIANT", "as_of": "2026-01-06T08:00:00Z"},
		"shift_handover":        {"store_id": "st-003", "start": "2026-01-05T06:00:00Z", "end": "2026-01-05T14:00:00Z"},
	} {
		res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		out[name] = res
	}
	got, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "prompts.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(got)+"\n" {
		t.Errorf("prompts differ from %s (regenerate with -update):\n%s", path, got)
	}
}
