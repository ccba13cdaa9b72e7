package mcpserver

import (
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/retail"
)

// Prompt names.
const (
	PromptInvestigateCondition = "investigate_condition"
	PromptShiftHandover        = "shift_handover"
)

// citeRule closes every prompt: the grounding contract a client agrees to.
const citeRule = "Use only figures the tools return. After every figure, cite the result id it came from, like [res-000012]. " +
	"To quote a scan, read its resource " + EventURITemplate + " first. " +
	"If a tool abstains or rejects the call, report that instead of guessing."

func addPrompts(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{
		Name:        PromptInvestigateCondition,
		Description: "Investigate a store condition: which stores have it, and which products cause it.",
		Arguments: []*mcp.PromptArgument{
			{Name: "condition", Description: "One of " + fmt.Sprint(conditions()), Required: true},
			{Name: "as_of", Description: "UTC instant, like 2026-01-06T08:00:00Z", Required: true},
		},
	}, investigateCondition)
	s.AddPrompt(&mcp.Prompt{
		Name:        PromptShiftHandover,
		Description: "Summarise one store's shelf problems over a shift, for the next shift.",
		Arguments: []*mcp.PromptArgument{
			{Name: "store_id", Description: "Store id, like st-003", Required: true},
			{Name: "start", Description: "Shift start, UTC, inclusive", Required: true},
			{Name: "end", Description: "Shift end, UTC, exclusive", Required: true},
		},
	}, shiftHandover)
}

// conditions are the retail store conditions the investigate prompt
// takes. The prompts are the retail demo's (issue 8 derives them from the
// catalog).
func conditions() []string {
	out := make([]string, len(retail.Conditions))
	for i, c := range retail.Conditions {
		out[i] = string(c)
	}
	return out
}

// errInvalidArgument does not repeat the argument: it is client input.
func errInvalidArgument(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid prompt argument " + name}
}

func investigateCondition(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := req.Params.Arguments
	cond, asOf := args["condition"], args["as_of"]
	if !slices.Contains(conditions(), cond) {
		return nil, errInvalidArgument("condition")
	}
	if !retail.IsTimestamp(asOf) {
		return nil, errInvalidArgument("as_of")
	}
	text := fmt.Sprintf("Investigate the store condition %s as of %s.\n"+
		"1. Call count_stores_with_condition with condition %s and as_of %s.\n"+
		"2. For up to five of the stores it returns, call list_products_in_state at that store and as_of for the state behind the condition "+
		"(OUT_OF_STOCK or LOW_STOCK), or get_compliance_flag for the products whose events it returned.\n"+
		"3. Summarise: how many stores, which ones, and the products involved.\n%s",
		cond, asOf, cond, asOf, citeRule)
	return &mcp.GetPromptResult{
		Description: "Investigate " + cond + " as of " + asOf,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}

func shiftHandover(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := req.Params.Arguments
	store, start, end := args["store_id"], args["start"], args["end"]
	switch {
	case !retail.IsStoreID(store):
		return nil, errInvalidArgument("store_id")
	case !retail.IsTimestamp(start):
		return nil, errInvalidArgument("start")
	case !retail.IsTimestamp(end) || end < start:
		return nil, errInvalidArgument("end")
	}
	text := fmt.Sprintf("Write a shift handover for store %s for the shift [%s, %s).\n"+
		"1. Call count_events_in_window for states OUT_OF_STOCK and LOW_STOCK over that window.\n"+
		"2. Call list_products_in_state for OUT_OF_STOCK and for LOW_STOCK at %s as of %s: what the next shift inherits.\n"+
		"3. Write at most six lines: what happened during the shift, and what is still open at its end.\n%s",
		store, start, end, store, end, citeRule)
	return &mcp.GetPromptResult{
		Description: "Shift handover for " + store,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}
