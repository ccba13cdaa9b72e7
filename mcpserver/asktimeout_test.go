package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/tool"
)

// deadlineRecorder is a pipeline that records the deadline each request
// reaches it with, and answers nothing.
type deadlineRecorder struct{ deadlines chan time.Duration }

func (r deadlineRecorder) Registry() *tool.Registry { return catalogstest.Retail() }

func (r deadlineRecorder) record(ctx context.Context) answer.Answer {
	d, ok := ctx.Deadline()
	if !ok {
		d = time.Time{}
	}
	r.deadlines <- time.Until(d)
	return answer.Abstain(answer.ReasonNoTool, "recorded")
}

func (r deadlineRecorder) Ask(ctx context.Context, _ string) answer.Answer { return r.record(ctx) }

func (r deadlineRecorder) Call(ctx context.Context, _ tool.Proposal) answer.Answer {
	return r.record(ctx)
}

// TestAskTimeout: with AskTimeout set, every tool call and question reaches
// the pipeline with that deadline, as serve's --ask-timeout bounds REST.
func TestAskTimeout(t *testing.T) {
	const bound = time.Hour // far enough that no clock reading is close
	rec := deadlineRecorder{deadlines: make(chan time.Duration, 2)}
	srv := mcpserver.New(rec, nil, &mcpserver.Options{AskTimeout: bound})
	cs := connectServer(t, srv)
	for _, p := range []*mcp.CallToolParams{
		{Name: tool.AskName, Arguments: map[string]any{"question": "q"}},
		{Name: "get_price", Arguments: map[string]any{"store_id": "st-001", "product_id": "pr-001", "as_of": "2026-01-01T00:00:00Z"}},
	} {
		if _, err := cs.CallTool(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		if left := <-rec.deadlines; left <= 0 || left > bound {
			t.Errorf("%s reached the pipeline with %v left, want a deadline within %v", p.Name, left, bound)
		}
	}
}

// deadlinePager is a pipeline.RowPager that records the deadline each read
// reaches it with.
type deadlinePager struct{ deadlines chan time.Duration }

func (p deadlinePager) Rows(ctx context.Context, _ string, _ int) (json.RawMessage, error) {
	d, ok := ctx.Deadline()
	if !ok {
		d = time.Time{}
	}
	p.deadlines <- time.Until(d)
	return json.RawMessage(`{"page":1}`), nil
}

// TestAskTimeout_Rows: a page of the rows resource runs the result's call
// again, so it reaches the pager with the ask timeout's deadline, as GET
// /v1/results/{id}/rows does on REST.
func TestAskTimeout_Rows(t *testing.T) {
	const bound = time.Hour
	pager := deadlinePager{deadlines: make(chan time.Duration, 1)}
	srv := mcpserver.New(deadlineRecorder{}, nil, &mcpserver.Options{AskTimeout: bound, Rows: pager})
	cs := connectServer(t, srv)
	if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "provenant://results/res-a/rows?page=1"}); err != nil {
		t.Fatal(err)
	}
	if left := <-pager.deadlines; left <= 0 || left > bound {
		t.Errorf("a page reached the pager with %v left, want a deadline within %v", left, bound)
	}
}

// slowPager is a pipeline.RowPager whose reads take longer than any
// deadline: each fails with its context's error once the deadline passes.
type slowPager struct{}

func (slowPager) Rows(ctx context.Context, _ string, _ int) (json.RawMessage, error) {
	<-ctx.Done()
	return nil, fmt.Errorf("rederive: %w", ctx.Err())
}

// TestAskTimeout_RowsPastDeadline: a page past --ask-timeout is an error
// that says so, as REST's 504 timeout does; it was a bare "internal error".
func TestAskTimeout_RowsPastDeadline(t *testing.T) {
	srv := mcpserver.New(deadlineRecorder{}, nil, &mcpserver.Options{AskTimeout: 20 * time.Millisecond, Rows: slowPager{}})
	cs := connectServer(t, srv)
	for _, uri := range []string{"provenant://results/res-a/rows", "provenant://results/res-a/rows?page=2"} {
		t.Run(uri, func(t *testing.T) {
			_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
			if err == nil || !strings.Contains(err.Error(), "timeout") || strings.Contains(err.Error(), "internal error") {
				t.Errorf("ReadResource = %v, want a timeout error", err)
			}
		})
	}
}
