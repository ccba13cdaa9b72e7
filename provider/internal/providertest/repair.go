package providertest

import (
	"context"
	"errors"
	"testing"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/tool"
)

// RepairReply is how a fake server answers the repair turn.
type RepairReply int

const (
	// Corrected: a query_metric call of metric "availability" over
	// RepairWindow.
	Corrected RepairReply = iota
	// Abstains: text, no tool call.
	Abstains
	// Unavailable: a server error.
	Unavailable
)

// The repair RunRepair asks for: the question, the failed call (metric
// "utilisation"), and the message.
const (
	RepairQuestion = "repair: availability"
	RepairMessage  = "Your previous proposal failed verification with failure class empty_result: check the window."
	RepairStart    = "2026-01-06T00:00:00Z"
	RepairEnd      = "2026-01-07T00:00:00Z"
)

// Repairer is the part of a provider RunRepair drives.
type Repairer interface {
	Repair(ctx context.Context, in provider.RepairInput) (*tool.Proposal, error)
}

// RepairServer is a provider on a fake server scripted for one repair.
type RepairServer struct {
	Provider Repairer
	// Retried reports whether the server saw exactly one request, and it
	// was the follow-up turn (the fake server's Retry job).
	Retried func() bool
	// Body is the last request's body.
	Body func(t *testing.T) []byte
}

// RunRepair checks a provider's Repair: one follow-up turn on the fake
// server, whose first tool call is the proposal; no call abstains (nil,
// nil); a failing server is provider.ErrUnavailable. start starts a fake
// server that answers RepairQuestion's retry turn with reply;
// conversation checks that a request body carries the question, the failed
// call as the model's own and the message as its tool result.
func RunRepair(t *testing.T, start func(t *testing.T, reply RepairReply) RepairServer, conversation func(t *testing.T, body []byte)) {
	t.Helper()
	prev := tool.Proposal{Tool: "query_metric", Params: map[string]any{"metric": "utilisation", "start": RepairStart, "end": RepairEnd}}
	for _, tt := range []struct {
		name   string
		reply  RepairReply
		metric string // the proposed metric; "" for no proposal
	}{
		{"corrected", Corrected, "availability"},
		{"abstains", Abstains, ""},
		{"unavailable", Unavailable, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(t, tt.reply)
			got, err := srv.Provider.Repair(t.Context(), provider.RepairInput{Question: RepairQuestion, Menu: catalogstest.Warehouse().Menu(),
				Previous: prev, Class: "empty_result", Message: RepairMessage, Attempt: 1})
			wantErr := tt.reply == Unavailable
			if (err != nil) != wantErr || err != nil && !errors.Is(err, provider.ErrUnavailable) {
				t.Fatalf("Repair error = %v, want error %t (unavailable)", err, wantErr)
			}
			if tt.metric == "" && got != nil || tt.metric != "" && (got == nil || got.Tool != "query_metric" || got.Params["metric"] != tt.metric) {
				t.Fatalf("Repair = %+v, want metric %q", got, tt.metric)
			}
			if !srv.Retried() {
				t.Fatal("the server did not see exactly one follow-up turn")
			}
			conversation(t, srv.Body(t))
		})
	}
}
