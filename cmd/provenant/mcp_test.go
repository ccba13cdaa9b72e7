package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain lets a test run this binary as the provenant command: with
// PROVENANT_RUN_MAIN=1 the test binary is main.
func TestMain(m *testing.M) {
	if os.Getenv("PROVENANT_RUN_MAIN") == "1" {
		// A served engine's sandbox workers are this binary too.
		workerEnv = []string{"PROVENANT_RUN_MAIN=1"}
		main()
		os.Exit(0)
	}
	code := m.Run()
	if dir, err := warehouseCacheDir(); err == nil {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// TestMCP_Stdio drives `provenant mcp` over real standard input and output
// with the SDK's own client, as Claude Desktop would.
func TestMCP_Stdio(t *testing.T) {
	cmd := exec.Command(os.Args[0], "mcp", "--log-level", "error")
	cmd.Env = append(os.Environ(), "PROVENANT_RUN_MAIN=1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 9 {
		t.Fatalf("ListTools() = %d tools, %v; want the 6 menu tools, query_metric, ask and check_grounding", len(tools.Tools), err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_price",
		Arguments: map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var a struct {
		Outcome string `json:"outcome"`
		Value   int    `json:"value"`
	}
	if err := json.Unmarshal(b, &a); err != nil || a.Outcome != "answered" || a.Value != 781 {
		t.Errorf("get_price over stdio = %s (%v)", b, err)
	}
}
