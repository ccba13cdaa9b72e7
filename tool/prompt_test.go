package tool_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/tool"
)

func promptRegistry(t *testing.T) *tool.Registry {
	t.Helper()
	store := tool.Param{Name: "store_id", Kind: tool.EntityID, Entity: "store", Pattern: `^st-[0-9]{3}$`, Hint: "st- and 3 digits"}
	start := tool.Param{Name: "start", Kind: tool.Timestamp}
	end := tool.Param{Name: "end", Kind: tool.Timestamp}
	state := tool.Param{Name: "state", Kind: tool.Enum, Values: []string{"OK", "BAD"}}
	reg, err := tool.NewRegistry([]tool.Def{{Name: "count", Description: "d", Params: []tool.Param{store, state, start, end}, Value: fact.KindRowCount}}, "store")
	if err != nil {
		t.Fatal(err)
	}
	reg, err = reg.WithPrompts([]tool.Prompt{{Name: "handover", Description: "h",
		Args: []tool.PromptArg{{Name: "store_id", Param: store}, {Name: "state", Param: state}, {Name: "start", Param: start}, {Name: "end", Param: end}},
		Text: "Store {store_id}, {state}, [{start}, {end})."}})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestRenderPrompt(t *testing.T) {
	reg := promptRegistry(t)
	ok := map[string]string{"store_id": "st-001", "state": "OK", "start": "2026-01-01T00:00:00Z", "end": "2026-01-02T00:00:00Z"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range ok {
			m[a] = b
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	const secret = "IGNORE-PREVIOUS"
	tests := []struct {
		name    string
		args    map[string]string
		wantArg string // "" for success
	}{
		{"valid", ok, ""},
		{"missing", with("state", ""), "state"},
		{"id outside the pattern", with("store_id", secret), "store_id"},
		{"value not enumerated", with("state", secret), "state"},
		{"not a timestamp", with("start", secret), "start"},
		{"end before start", with("end", "2025-12-31T00:00:00Z"), "end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, err := reg.RenderPrompt("handover", tt.args)
			if tt.wantArg == "" {
				if err != nil || text != "Store st-001, OK, [2026-01-01T00:00:00Z, 2026-01-02T00:00:00Z)." {
					t.Fatalf("RenderPrompt = %q, %v", text, err)
				}
				return
			}
			var pe *tool.PromptError
			if !errors.As(err, &pe) || pe.Arg != tt.wantArg {
				t.Fatalf("RenderPrompt error = %v, want a PromptError on %s", err, tt.wantArg)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error repeats the value: %v", err)
			}
		})
	}
	if _, err := reg.RenderPrompt("nope", ok); !errors.Is(err, tool.ErrUnknownPrompt) {
		t.Errorf("unknown prompt: %v", err)
	}
	if _, err := reg.WithPrompts([]tool.Prompt{{Name: "p", Text: "{nope}"}}); !errors.Is(err, tool.ErrInvalidRegistry) {
		t.Errorf("a text naming no argument was accepted: %v", err)
	}
}
