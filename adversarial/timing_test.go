package adversarial_test

import (
	"strings"
	"testing"
)

// TestScopedReads_TellNothing: a principal scoped to no store reads an
// event that exists and one that does not over /mcp, and gets the same
// reply; its dataset view holds no figure computed over other stores.
// That both paths also do the same work (one query, the scope in it) is
// checked structurally in mcpserver (TestReadEvent_OutOfScopeIsMissing):
// no test here measures time.
func TestScopedReads_TellNothing(t *testing.T) {
	s := start(t, config{withTokens: true})
	read := func(uri string) reply {
		return s.do(t, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"`+uri+`"}}`,
			map[string]string{"Authorization": "Bearer " + nobodyToken, "Accept": "application/json, text/event-stream"})
	}
	existing, missing := read("provenant://events/evt-000001"), read("provenant://events/evt-999999")
	if existing.status != missing.status || existing.body != missing.body {
		t.Errorf("an existing event and a missing one differ:\n%d %s\n%d %s", existing.status, existing.body, missing.status, missing.body)
	}
	if strings.Contains(existing.body, `"tainted"`) {
		t.Errorf("a principal with no store read an event: %s", existing.body)
	}
	ds := read("provenant://dataset")
	if !strings.Contains(ds.body, `\"rows\":0,`) || !strings.Contains(ds.body, `\"scope\":[]`) || strings.Contains(ds.body, "_time") {
		t.Errorf("the dataset view of a principal with no store = %s", ds.body)
	}
}
