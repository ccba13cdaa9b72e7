package openai

import (
	"context"
	"encoding/json"
	"fmt"

	oai "github.com/openai/openai-go/v3"

	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/internal/toolcall"
	"github.com/provenant/provenant/tool"
)

var _ provider.Repairer = (*Provider)(nil)

// repairCallID is the id of the failed call in a repair conversation: the
// pipeline keeps the proposal, not the model's call id.
const repairCallID = "call_repair"

// Repair asks the model for a corrected call after its proposal failed
// verification: the selection conversation (the system prompt, the
// question), the failed call as the assistant's, and the repair message
// (package repair: the failure class, the failing selection or SQL, the
// catalog snippet and the metric's definition; never a secret) as that
// call's tool reply, one follow-up turn. The reply's first tool call is
// the proposal, checked by the wall like any other; no call abstains.
// There is no schema retry within a repair (the loop bounds the turns).
func (p *Provider) Repair(ctx context.Context, in provider.RepairInput) (*tool.Proposal, error) {
	if len(in.Menu) == 0 {
		return nil, nil
	}
	args, err := json.Marshal(in.Previous.Params)
	if err != nil {
		return nil, fmt.Errorf("repair call: encode the failed call: %w", err)
	}
	failed := oai.ChatCompletionAssistantMessageParam{ToolCalls: []oai.ChatCompletionMessageToolCallUnionParam{{
		OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
			ID: repairCallID,
			Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{
				Name: in.Previous.Tool, Arguments: string(args),
			},
		},
	}}}
	messages := []oai.ChatCompletionMessageParamUnion{
		oai.SystemMessage(toolcall.SelectPrompt),
		oai.UserMessage(in.Question),
		{OfAssistant: &failed},
		oai.ToolMessage(in.Message, repairCallID),
	}
	call, err := p.selectCall(ctx, "repair tool", messages, functionTools(in.Menu))
	if err != nil || call == nil {
		return nil, err
	}
	return proposal(call.Function.Name, call.Function.Arguments), nil
}
