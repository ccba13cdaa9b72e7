package mcpserver_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/mcpserver"
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

// TestPrompts_BadArgumentNamed: an argument outside its domain is
// "invalid prompt argument NAME" for every catalog's prompts, never the
// value. The names come from the catalog; only the retail demo's were
// known to the sanitizer, so the warehouse's zone_id (and any catalog's
// own argument) came back as a bare "invalid params".
func TestPrompts_BadArgumentNamed(t *testing.T) {
	const probe = "ZQX7probe"
	wh, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	warehouse, _ := enginetest.OpenFixture(t, wh, wh.Metric("availability"))
	_, overHTTP := serveEngine(t, warehouse)
	sessions := map[string]*mcp.ClientSession{
		"retail":              connect(t),
		"warehouse":           connectServer(t, mcpserver.New(warehouse.Pipeline, warehouse, nil)),
		"warehouse over HTTP": overHTTP,
	}
	shift := map[string]string{"start": "2026-01-05T06:00:00Z", "end": "2026-01-05T14:00:00Z"}
	tests := []struct {
		name, session, prompt, arg string
		args                       map[string]string
	}{
		{"retail store", "retail", "shift_handover", "store_id", map[string]string{"store_id": probe}},
		{"retail start", "retail", "shift_handover", "start", map[string]string{"store_id": "st-003", "start": probe}},
		{"warehouse zone", "warehouse", "zone_fault_review", "zone_id", map[string]string{"zone_id": probe}},
		{"warehouse zone missing", "warehouse", "zone_fault_review", "zone_id", map[string]string{}},
		{"warehouse end", "warehouse", "zone_fault_review", "end", map[string]string{"zone_id": "zone-01", "end": probe}},
		{"warehouse zone over HTTP", "warehouse over HTTP", "zone_fault_review", "zone_id", map[string]string{"zone_id": probe}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]string{}
			for k, v := range shift {
				args[k] = v
			}
			for k, v := range tt.args {
				args[k] = v
			}
			_, err := sessions[tt.session].GetPrompt(t.Context(), &mcp.GetPromptParams{Name: tt.prompt, Arguments: args})
			if err == nil {
				t.Fatal("GetPrompt accepted the argument")
			}
			if want := "invalid prompt argument " + tt.arg; !strings.Contains(err.Error(), want) {
				t.Errorf("GetPrompt error = %v, want %q", err, want)
			}
			if strings.Contains(err.Error(), probe) {
				t.Errorf("GetPrompt error = %v repeats the value", err)
			}
		})
	}
}

// TestPrompts_UnknownArgument: an argument the prompt does not declare is
// refused with a fixed message that does not name it; before, it was
// ignored, so a misspelt argument read as a missing one or went
// unnoticed.
func TestPrompts_UnknownArgument(t *testing.T) {
	const probe = "ZQX7probe"
	args := map[string]string{"store_id": "st-003", "start": "2026-01-05T06:00:00Z", "end": "2026-01-05T14:00:00Z"}
	if _, err := connect(t).GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "shift_handover", Arguments: args}); err != nil {
		t.Fatalf("GetPrompt with its declared arguments: %v", err)
	}
	args[probe] = "x"
	_, err := connect(t).GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "shift_handover", Arguments: args})
	if err == nil || !strings.Contains(err.Error(), "unknown prompt argument") {
		t.Fatalf("GetPrompt error = %v, want unknown prompt argument", err)
	}
	if strings.Contains(err.Error(), probe) {
		t.Errorf("GetPrompt error = %v names the argument", err)
	}
}
