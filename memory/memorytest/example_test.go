package memorytest_test

import (
	"context"
	"fmt"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/memorytest"
	"github.com/provenant/provenant/memory/memstore"
)

// A counting store shows what one read cost.
func ExampleCounting() {
	st, err := memstore.Load(memorytest.Journal(7, 2000))
	if err != nil {
		panic(err)
	}
	c := memorytest.NewCounting(st)
	q := memory.Query{Cues: memory.Cues{Subject: "pr-007"}, AsOf: 700, MaxItems: 10}
	sheet, err := memory.Read(context.Background(), c, &memory.Reader{Agent: "planner"}, q, memory.DefaultPolicy())
	if err != nil {
		panic(err)
	}
	calls := c.Calls()
	fmt.Printf("retrievals %d (back-fill pulls %d), visibility reads %d, chain reads %d, claims %d\n",
		calls.Retrievals, sheet.Counts.BackfillPulls, calls.Visibility, calls.Chains, len(sheet.Claims))
	// Output:
	// retrievals 1 (back-fill pulls 0), visibility reads 1, chain reads 10, claims 7
}
