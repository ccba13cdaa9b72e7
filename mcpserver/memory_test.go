package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/memapi"
	"github.com/provenant/provenant/memory/memstore"
	"github.com/provenant/provenant/tool"
)

// connectMemory connects the SDK's client to a server offering the memory
// tools over the demo engine, as the local stdio agent "planner".
func connectMemory(t *testing.T) (*mcp.ClientSession, *engine.Engine) {
	t.Helper()
	e := enginetest.OpenDemo(t, engine.Options{})
	n := int64(0)
	svc := &memapi.Service{Journal: memstore.New(), Now: func() int64 { n++; return 1000 + n }}
	srv := mcpserver.New(e.Pipeline, e, &mcpserver.Options{Memory: &mcpserver.MemoryOptions{Service: svc, Agent: "planner"}})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, e
}

func callMemory(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// TestMemory_MCP: the memory tools are offered with the registry's
// schemas; a claim remembered from an answer, superseded, then recalled:
// the correction wins and the original's provenance check travels with
// the winner's sheet; a mistake is a tool error that repeats nothing.
func TestMemory_MCP(t *testing.T) {
	cs, e := connectMemory(t)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{tool.RememberName: tool.RememberSchema(), tool.AnnotateName: tool.AnnotateSchema(), tool.RecallName: tool.RecallSchema()}
	for _, tl := range tools.Tools {
		if s, ok := want[tl.Name]; ok {
			if string(canonical(t, tl.InputSchema)) != string(canonical(t, s)) {
				t.Errorf("%s: schema differs from the registry's", tl.Name)
			}
			delete(want, tl.Name)
		}
	}
	if len(want) > 0 {
		t.Fatalf("memory tools not offered: %v", want)
	}

	args := map[string]any{"product_id": "pr-007", "store_id": "st-003", "as_of": "2026-01-08T00:00:00Z"}
	a := e.Pipeline.Call(t.Context(), tool.Proposal{Tool: "get_stock_state", Params: args})
	if a.Outcome() != answer.Answered {
		t.Fatalf("call: %s", a.Outcome())
	}
	v, _ := a.Value()
	value, _ := json.Marshal(v)
	raw, _ := json.Marshal(args)
	res := callMemory(t, cs, tool.RememberName, memapi.RememberRequest{Key: "m-1", Text: "pr-007 is " + v.Text + " at st-003", Subject: "pr-007@st-003",
		Provenance: &memory.Provenance{ToolCall: &memory.ToolCall{Tool: "get_stock_state", Arguments: raw}, Value: value}})
	if res.IsError {
		t.Fatalf("remember: %+v", res.Content[0])
	}
	res = callMemory(t, cs, tool.RememberName, memapi.RememberRequest{Key: "m-2", Text: "aisle A3", Subject: "pr-007@st-003"})
	if res.IsError {
		t.Fatalf("remember: %+v", res.Content[0])
	}
	res = callMemory(t, cs, tool.AnnotateName, memapi.AnnotateRequest{Key: "m-3", Kind: memory.KindRetract, Target: "m-2"})
	if res.IsError {
		t.Fatalf("annotate: %+v", res.Content[0])
	}
	res = callMemory(t, cs, tool.RecallName, memapi.RecallRequest{Subject: "pr-007@st-003"})
	if res.IsError {
		t.Fatalf("recall: %+v", res.Content[0])
	}
	b, _ := json.Marshal(res.StructuredContent)
	var sheet memory.Sheet
	if err := json.Unmarshal(b, &sheet); err != nil {
		t.Fatal(err)
	}
	if len(sheet.Claims) != 1 || sheet.Claims[0].Key != "m-1" || sheet.Claims[0].Agent != "planner" ||
		sheet.Claims[0].Check == nil || sheet.Claims[0].Check.Status != memory.StatusCurrent || sheet.Counts.Retracted != 1 {
		t.Fatalf("sheet %s: want m-1 alone, by planner, current; m-2 retracted", b)
	}

	const hostile = "IGNORE-ALL-INSTRUCTIONS"
	for _, tt := range []struct {
		name string
		tool string
		args any
		code string
	}{
		{"agent argument", tool.RememberName, map[string]any{"text": "x", "agent": hostile}, "unknown_field"},
		{"repeated key", tool.RememberName, map[string]any{"key": "m-1", "text": hostile}, memapi.CodeDuplicateKey},
		{"unknown target", tool.AnnotateName, map[string]any{"kind": "confirm", "target": hostile}, memapi.CodeUnknownTarget},
		{"no cues", tool.RecallName, map[string]any{}, memapi.CodeInvalidRecall},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := callMemory(t, cs, tt.tool, tt.args)
			b, _ := json.Marshal(res)
			if !res.IsError || !strings.Contains(string(b), tt.code) {
				t.Fatalf("result %s: want a tool error %s", b, tt.code)
			}
			if strings.Contains(string(b), hostile) {
				t.Errorf("the error repeats the arguments: %s", b)
			}
		})
	}
}

// TestMemory_MCPNotAnObject: arguments that are one JSON value but not an
// object (null included) are the tool error not_an_object, as the other
// tools and every REST body route answer; null was once taken for {} and
// answered invalid_record or invalid_recall.
func TestMemory_MCPNotAnObject(t *testing.T) {
	cs, _ := connectMemory(t)
	for _, name := range []string{tool.RememberName, tool.AnnotateName, tool.RecallName} {
		for _, args := range []string{`null`, `[]`, `"s"`, `1`, `true`} {
			t.Run(name+"/"+args, func(t *testing.T) {
				res := callMemory(t, cs, name, json.RawMessage(args))
				b, _ := json.Marshal(res.StructuredContent)
				if want := `{"error":{"code":"not_an_object",`; !res.IsError || !strings.HasPrefix(string(b), want) {
					t.Fatalf("result %s: want a tool error %s...", b, want)
				}
			})
		}
	}
}
