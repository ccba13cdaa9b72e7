package mcpserver

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/tool"
)

// citeRule closes every prompt: the grounding contract a client agrees to.
const citeRule = "Use only figures the tools return. After every figure, cite the result id it came from, like [res-000012]. " +
	"To quote an event, read its resource " + EventURITemplate + " first. " +
	"If a tool abstains or rejects the call, report that instead of guessing."

// addPrompts offers the registry's prompts (declared in the catalog).
func (h *handlers) addPrompts(s *mcp.Server, reg *tool.Registry) {
	for _, p := range reg.Prompts() {
		args := make([]*mcp.PromptArgument, len(p.Args))
		for i, a := range p.Args {
			args[i] = &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: true}
			promptArgMessages.Store(errInvalidArgument(a.Name).(*jsonrpc.Error).Message, true)
		}
		h.prompts[p.Name] = true
		s.AddPrompt(&mcp.Prompt{Name: p.Name, Description: p.Description, Arguments: args}, h.getPrompt(reg, p))
	}
}

// getPrompt renders p with the client's arguments, each checked against
// the domain of the tool parameter it takes.
func (h *handlers) getPrompt(reg *tool.Registry, p tool.Prompt) mcp.PromptHandler {
	declared := map[string]bool{}
	for _, a := range p.Args {
		declared[a.Name] = true
	}
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		// An argument the prompt does not declare is refused, as a
		// tool's unknown argument is, rather than ignored: a misspelt
		// name would otherwise read as a missing one.
		for name := range req.Params.Arguments {
			if !declared[name] {
				return nil, errUnknownArgument
			}
		}
		text, err := reg.RenderPrompt(p.Name, req.Params.Arguments)
		if err != nil {
			var pe *tool.PromptError
			if errors.As(err, &pe) {
				return nil, errInvalidArgument(pe.Arg)
			}
			return nil, err
		}
		return &mcp.GetPromptResult{
			Description: p.Description,
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text + citeRule}}},
		}, nil
	}
}

// errUnknownArgument names no argument: the name is the client's.
var errUnknownArgument = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown prompt argument"}

// errInvalidArgument does not repeat the argument: it is client input.
func errInvalidArgument(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid prompt argument " + name}
}
