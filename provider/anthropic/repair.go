package anthropic

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/tool"
)

var _ provider.Repairer = (*Provider)(nil)

// repairUseID is the id of the failed call in a repair conversation: the
// pipeline keeps the proposal, not the model's tool_use id.
const repairUseID = "toolu_repair"

// Repair asks the model for a corrected call after its proposal failed
// verification: the question, the failed call as the assistant's tool_use,
// and the repair message (package repair: the failure class, the failing
// selection or SQL, the catalog snippet and the metric's definition;
// never a secret) as its tool_result marked as an error, one follow-up
// turn. The reply's first tool_use is the proposal, checked by the wall
// like any other; none abstains. There is no schema retry within a
// repair (the loop bounds the turns).
func (p *Provider) Repair(ctx context.Context, in provider.RepairInput) (*tool.Proposal, error) {
	if len(in.Menu) == 0 {
		return nil, nil
	}
	input, err := json.Marshal(in.Previous.Params)
	if err != nil {
		return nil, fmt.Errorf("repair call: encode the failed call: %w", err)
	}
	if !isObject(input) {
		input = json.RawMessage("{}")
	}
	messages := []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock(in.Question)),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock(repairUseID, json.RawMessage(input), in.Previous.Tool)),
		sdk.NewUserMessage(sdk.NewToolResultBlock(repairUseID, in.Message, true)),
	}
	use, err := p.selectCall(ctx, "repair tool", messages, menuTools(in.Menu))
	if err != nil || use == nil {
		return nil, err
	}
	return proposal(use.Name, use.Input), nil
}
