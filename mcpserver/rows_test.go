package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/pipeline/pipelinetest"
)

func TestRowsResource(t *testing.T) {
	e := enginetest.OpenDemo(t, engine.Options{})
	srv := mcpserver.New(e.Pipeline, e, &mcpserver.Options{Rows: pipelinetest.Pager{}})
	cs := connectServer(t, srv)
	tests := []struct {
		uri     string
		want    string // in the contents; "" for an error
		errText string
	}{
		{"provenant://results/res-a/rows", `"page":1`, ""},
		{"provenant://results/res-a/rows?page=2", `"page":2`, ""},
		{"provenant://results/res-a/rows?page=3", "", "not found"},
		{"provenant://results/res-a/rows?page=0", "", "not found"},
		{"provenant://results/res-a/rows?page=ECHO", "", "not found"},
		{"provenant://results/res-a/rows?page=1&x=ECHO", "", "not found"},
		{"provenant://results/ECHO/rows", "", "not found"},
		{"provenant://results/res-old/rows", "", "gone"},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: tt.uri})
			if tt.want == "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) || strings.Contains(err.Error(), "ECHO") {
					t.Fatalf("ReadResource = %v, want an error with %q and no echo", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if text := res.Contents[0].Text; !strings.Contains(text, tt.want) || !strings.Contains(text, `"tainted":true`) {
				t.Errorf("contents = %s, want %s in a tainted envelope", text, tt.want)
			}
		})
	}
}
