package autonomy_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/provenant/provenant/autonomy"
)

func ExampleCheckTool() {
	for _, c := range []struct {
		tier   autonomy.Tier
		effect autonomy.Effect
	}{{autonomy.L1, autonomy.None}, {autonomy.L2, autonomy.Write}, {autonomy.L3, autonomy.None}} {
		err := autonomy.CheckTool(c.tier, c.effect)
		var ie *autonomy.InvariantError
		if errors.As(err, &ie) {
			fmt.Println(c.tier, c.effect, "refused:", ie.Rule)
			continue
		}
		fmt.Println(c.tier, c.effect, "ok")
	}
	// Output:
	// L1 none ok
	// L2 write refused: write implies L3
	// L3 none refused: none implies L1
}

func ExampleGate() {
	// main creates the Authority and gives it only to the approve
	// command and the authenticated HTTP approval endpoint.
	auth := autonomy.NewAuthority()
	ctx := context.Background() // a request's context, in a server
	g, _ := autonomy.NewGate("session-1", []autonomy.Tool{
		{Name: "count_stores_with_condition", Tier: autonomy.L1, Effect: autonomy.None},
		{Name: "open_restock_task", Tier: autonomy.L3, Effect: autonomy.Write},
	}, &autonomy.GateOptions{Authority: auth})

	// The model proposes a write; the gate refuses and asks a human.
	fmt.Println(g.Check(ctx, "open_restock_task"))
	req, _ := g.Request(ctx, "open_restock_task", "q-7")
	fmt.Println(req.EventType(), req.Tool, req.TierNeeded)

	// An operator, authenticated by the approve command, grants it for
	// one question or 60 units of logical time.
	alice, _ := auth.Approver("alice")
	dec, _ := g.Grant(ctx, alice, autonomy.GrantRequest{
		GrantID: "g-1", Tools: []string{"open_restock_task"}, Tier: autonomy.L3, MaxQuestions: 1, MaxAge: 60,
	}, 100)
	fmt.Println(dec.EventType(), dec.Decision, "by", dec.Approver)

	g.BeginQuestion(ctx, 101)
	fmt.Println(g.Check(ctx, "open_restock_task"), g.Effective(ctx))
	expired, _ := g.BeginQuestion(ctx, 102)
	fmt.Println(expired[0].EventType(), expired[0].Reason, "back to", g.Effective(ctx))
	// Output:
	// check call: tier too low: open_restock_task needs L3, the session holds L1
	// elevation.requested open_restock_task L3
	// elevation.decided granted by alice
	// <nil> L3
	// elevation.expired questions back to L1
}
