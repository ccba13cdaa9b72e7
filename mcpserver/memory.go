package mcpserver

// The memory tools remember, annotate and recall (package memory), with
// the registry's schemas (tool.RememberSchema, ...) and the request types
// of package memory/memapi. The writing agent and the reader are the
// authenticated principal (the SDK's TokenInfo.UserID, set by
// httpapi.RequireToken), never an argument; over stdio, or on a server
// that authenticates no one, they are MemoryOptions.Agent. A mistake is a
// tool error with a code and a message naming declared fields only.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/enginecheck"
	"github.com/provenant/provenant/memory/memapi"
	"github.com/provenant/provenant/tool"
)

// MemoryOptions configures the memory tools.
type MemoryOptions struct {
	// Service appends and reads; recall re-checks claims through the
	// server's pipeline (its Rerunner is replaced). Required.
	Service *memapi.Service
	// Agent is the writer and reader when no principal is authenticated;
	// "" means "local".
	Agent string
}

func (h *handlers) addMemoryTools(s *Server, o *MemoryOptions) {
	h.memory = o
	no := false
	writes := &mcp.ToolAnnotations{ReadOnlyHint: false, IdempotentHint: false, OpenWorldHint: &no, DestructiveHint: &no}
	reads := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: false, OpenWorldHint: &no, DestructiveHint: &no}
	for _, t := range []struct {
		tool *mcp.Tool
		h    mcp.ToolHandler
	}{
		{&mcp.Tool{Name: tool.RememberName, Description: tool.RememberDescription, InputSchema: tool.RememberSchema(), Annotations: writes}, h.remember},
		{&mcp.Tool{Name: tool.AnnotateName, Description: tool.AnnotateDescription, InputSchema: tool.AnnotateSchema(), Annotations: writes}, h.annotate},
		{&mcp.Tool{Name: tool.RecallName, Description: tool.RecallDescription, InputSchema: tool.RecallSchema(), Annotations: reads}, h.recall},
	} {
		h.tools[t.tool.Name] = true
		addTool(s, t.tool, t.h)
	}
}

// memoryAgent is who writes and reads.
func (h *handlers) memoryAgent(req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
		return req.Extra.TokenInfo.UserID
	}
	if h.memory.Agent != "" {
		return h.memory.Agent
	}
	return "local"
}

// memoryResult is a memory tool's answer: structured content and a short
// text; a caller's mistake is a tool error with its code.
func memoryResult(v any, text string, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		var e *memapi.Error
		if !errors.As(err, &e) {
			// Our own failure: a protocol error, with fixed text.
			return nil, errors.New("internal error")
		}
		return memoryError(e.Code, e.Message), nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: v}, nil
}

func memoryError(code, msg string) *mcp.CallToolResult {
	body := map[string]any{"error": map[string]string{"code": code, "message": msg}}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: code + ": " + msg}}, StructuredContent: body, IsError: true}
}

// decodeMemory reads a memory tool's arguments strictly; a nil result
// means they decoded.
func decodeMemory(raw json.RawMessage, v any) *mcp.CallToolResult {
	if code, msg, ok := decodeArgs(raw, v, nil); !ok {
		return memoryError(code, msg)
	}
	return nil
}

func (h *handlers) remember(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in memapi.RememberRequest
	if bad := decodeMemory(req.Params.Arguments, &in); bad != nil {
		return bad, nil
	}
	out, err := h.memory.Service.Remember(ctx, h.memoryAgent(req), in)
	return memoryResult(out, "remembered "+out.Key, err)
}

func (h *handlers) annotate(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in memapi.AnnotateRequest
	if bad := decodeMemory(req.Params.Arguments, &in); bad != nil {
		return bad, nil
	}
	out, err := h.memory.Service.Annotate(ctx, h.memoryAgent(req), in)
	return memoryResult(out, "annotated as "+out.Key, err)
}

func (h *handlers) recall(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in memapi.RecallRequest
	if bad := decodeMemory(req.Params.Arguments, &in); bad != nil {
		return bad, nil
	}
	ctx, cancel := h.bound(withScope(ctx, req.Extra))
	defer cancel()
	svc := *h.memory.Service
	svc.Rerunner = enginecheck.New(h.p)
	sheet, err := svc.Recall(ctx, memory.Reader{Agent: h.memoryAgent(req)}, in)
	if err != nil {
		return memoryResult(nil, "", err)
	}
	return memoryResult(sheet, fmt.Sprintf("%d claim(s), %d warning(s)", len(sheet.Claims), len(sheet.Warnings)), nil)
}
