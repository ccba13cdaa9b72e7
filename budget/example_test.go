package budget_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/provenant/provenant/budget"
)

func Example() {
	session, _ := budget.New("session", budget.Amount{
		USD: 2 * budget.Dollar, Tokens: 10_000, ToolCalls: 20, SimSeconds: 600, RowsScanned: 1_000_000,
	}, nil)
	q, _ := session.Child("q1", budget.Amount{USD: budget.Dollar / 2, Tokens: 2_000, ToolCalls: 4, SimSeconds: 60, RowsScanned: 100_000})

	// Reserve for a model call, then settle with what it used.
	r, _ := q.Reserve(budget.Amount{USD: 30_000, Tokens: 1_500})
	unused, _ := q.Settle(r, budget.Amount{USD: 12_345, Tokens: 812})
	fmt.Println("unused:", unused)

	// A second call that does not fit is denied, naming the components.
	_, err := q.Reserve(budget.Amount{Tokens: 1_500, ToolCalls: 5})
	var d *budget.DeniedError
	if errors.As(err, &d) {
		fmt.Println("denied on", d.Components, errors.Is(err, budget.ErrExhausted))
	}

	back, _ := q.Close()
	fmt.Println("given back:", back)
	fmt.Println("session spent:", session.Snapshot().Spent)
	// Output:
	// unused: usd=0.017655 tokens=688 tool_calls=0 sim_seconds=0 rows_scanned=0
	// denied on [tokens tool_calls] true
	// given back: usd=0.487655 tokens=1188 tool_calls=4 sim_seconds=60 rows_scanned=100000
	// session spent: usd=0.012345 tokens=812 tool_calls=0 sim_seconds=0 rows_scanned=0
}

func ExampleBudget_Settle_overrun() {
	b, _ := budget.New("q", budget.Amount{Tokens: 1000}, nil)
	r, _ := b.Reserve(budget.Amount{Tokens: 100})
	_, err := b.Settle(r, budget.Amount{Tokens: 120})
	fmt.Println(err)
	fmt.Println(errors.Is(err, budget.ErrOverrun), b.Snapshot().Live)
	// Output:
	// settle q reservation 1: tokens: use beyond reservation
	// true 1
}

func ExampleReallocate() {
	s, _ := budget.New("session", budget.Amount{Tokens: 1000}, nil)
	q1, _ := s.Child("q1", budget.Amount{Tokens: 400})
	q2, _ := s.Child("q2", budget.Amount{Tokens: 400})
	_ = budget.Reallocate(q1, q2, budget.Amount{Tokens: 150})
	fmt.Println(q1.Remaining().Tokens, q2.Remaining().Tokens, s.Remaining().Tokens)
	// Output: 250 550 200
}

func ExampleOptions_events() {
	var log []string
	b, _ := budget.New("q", budget.Amount{ToolCalls: 1}, &budget.Options{OnEvent: func(e budget.Event) {
		log = append(log, fmt.Sprintf("%s %v", e.Type, e.Components))
	}})
	_, _ = b.Reserve(budget.Amount{ToolCalls: 1})
	_, _ = b.Reserve(budget.Amount{ToolCalls: 1})
	fmt.Println(strings.Join(log, "\n"))
	// Output:
	// budget.reserved []
	// budget.exceeded [tool_calls]
}

func ExampleFromMap() {
	// What a YAML or JSON decoder makes of a budget file; amounts may be
	// written as text, read exactly.
	doc := map[string]any{
		"session":  map[string]any{"usd": "5.00", "tokens": 200000, "tool_calls": 100, "sim_seconds": 3600, "rows_scanned": 10000000},
		"question": map[string]any{"usd": "0.50", "tokens": 20000, "tool_calls": 10, "sim_secs": 600, "rows_scanned": 1000000},
	}
	_, err := budget.FromMap(doc)
	fmt.Println(err)
	// Output: parse budget config: question: unknown key (did you mean sim_seconds?)
}
