package provider

import (
	"context"

	"github.com/provenant/provenant/tool"
)

// RepairInput is what a provider is shown when its proposal failed
// verification after execution (package repair's failure classes).
type RepairInput struct {
	Question string
	Menu     []tool.Def
	// Previous is the proposal that failed.
	Previous tool.Proposal
	// Class is the failure class (answer.FailureClasses).
	Class string
	// Message is the repair message (package repair's Message): the class,
	// the failing selection or SQL, the catalog snippet and the metric's
	// definition. It never holds a secret.
	Message string
	// Attempt counts the repairs asked for this question, from 1.
	Attempt int
}

// Repairer is an optional capability of a Provider: proposing a corrected
// call after one failed. The pipeline type-asserts it; a provider without
// it (the rules provider, which would only repeat itself) is never asked.
// Like Select, Repair returns nil to abstain, and its proposal is
// untrusted: the wall validates it.
type Repairer interface {
	Repair(ctx context.Context, in RepairInput) (*tool.Proposal, error)
}
