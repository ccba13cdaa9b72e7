package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/provenant/provenant/answer"
)

// TestToolResult_Timeout: a timed-out request is a typed tool error over
// MCP (IsError, the answer object with reason timeout), as it is a 504
// over REST; not a protocol error, not internal.
func TestToolResult_Timeout(t *testing.T) {
	res := toolResult(answer.Fail(answer.StageResolve, answer.ReasonTimeout, "get_price", nil))
	var body struct{ Outcome, Reason, Stage string }
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &body); err != nil {
		t.Fatal(err)
	}
	if !res.IsError || body.Outcome != "error" || body.Reason != "timeout" || body.Stage != "resolve" {
		t.Errorf("toolResult(timeout) = IsError %t, %+v", res.IsError, body)
	}
}
