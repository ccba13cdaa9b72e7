package register_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/provenant/provenant/register"
)

func restock() register.Record {
	return register.Record{
		ID: "dec-1", Kind: register.KindDecision, Time: 7, Question: "q-12", Actor: "pipeline", Tier: register.L2,
		Decision: &register.Decision{
			Alternatives: []register.Alternative{
				{ID: "restock", Description: "restock 40 units", Change: "restock task: store 3, product 17, 40 units",
					Effect: register.Effect{Estimate: 0.92, Low: 0.85, High: 0.97, Unit: "fill rate"}, Cost: 312.5, Score: 0.8},
				{ID: "wait", Description: "wait for the next delivery", Change: "none",
					Effect: register.Effect{Estimate: 0.6, Low: 0.4, High: 0.75, Unit: "fill rate"}, Score: 0.3},
			},
			Chosen:   "restock",
			Inputs:   []string{"res-000004"},
			Expected: "fill rate at least 0.85 by day 9",
		},
		Approver: "human:alice", ModelVersion: "rules-1", PolicyVersion: "p-3", Seed: 1,
	}
}

func Example() {
	ctx := context.Background()
	store := register.NewMemStore()
	reg, _ := register.Open(ctx, store)

	d, _ := reg.Append(ctx, restock())
	fmt.Println("first record links to the genesis hash:", d.Prev == register.GenesisHash, len(d.Hash))

	// The outcome is a new record naming the decision, never an edit.
	o, _ := reg.Append(ctx, register.Record{
		ID: "out-1", Kind: register.KindOutcome, Time: 9, Task: "task-5", Actor: "pipeline", Tier: register.L1,
		Outcome:      &register.Outcome{Decision: "dec-1", Observed: "fill rate 0.90"},
		ModelVersion: "rules-1", PolicyVersion: "p-3", Seed: 1,
	})
	fmt.Println("outcome prev is the decision's hash:", o.Prev == d.Hash)

	// An outcome of a decision the register does not hold is refused.
	_, err := reg.Append(ctx, register.Record{
		ID: "out-2", Kind: register.KindOutcome, Time: 9, Task: "task-5", Actor: "pipeline", Tier: register.L1,
		Outcome:      &register.Outcome{Decision: "dec-9", Observed: "?"},
		ModelVersion: "rules-1", PolicyVersion: "p-3",
	})
	fmt.Println(errors.Is(err, register.ErrUnknownDecision))

	head, err := register.Verify(ctx, store)
	fmt.Println(head.Len, head.Hash == o.Hash, err)
	// Output:
	// first record links to the genesis hash: true 64
	// outcome prev is the decision's hash: true
	// true
	// 2 true <nil>
}

func ExampleVerify() {
	ctx := context.Background()
	store := register.NewMemStore()
	reg, _ := register.Open(ctx, store)
	for i := range 3 {
		r := restock()
		r.ID = fmt.Sprint("dec-", i)
		_, _ = reg.Append(ctx, r)
	}

	// Export the register, change one byte of the second record, load it.
	var file bytes.Buffer
	_ = register.Export(ctx, &file, store)
	b := file.Bytes()
	line2 := bytes.IndexByte(b, '\n') + 1
	i := line2 + bytes.Index(b[line2:], []byte(`312.5`))
	b[i] = '9'

	loaded, err := register.Load(ctx, bytes.NewReader(b))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = register.Verify(ctx, loaded)
	var ve *register.VerifyError
	if errors.As(err, &ve) {
		fmt.Println(ve.Index, ve.ID, ve.Problem)
	}
	fmt.Println(err)
	// Output:
	// 1 dec-1 hash
	// verify register: record 1 (dec-1): hash does not match the record: register does not verify
}

func ExampleDecoder() {
	line, _ := register.Canonical(restock())
	// The same record spelled with a space is not a stored record.
	spaced := bytes.Replace(line, []byte(`"actor":`), []byte(`"actor": `), 1)
	_, err := register.NewDecoder(bytes.NewReader(append(spaced, '\n'))).Next()
	fmt.Println(err)
	// Output: decode register: line 1: not canonical JSON: not a register file
}
