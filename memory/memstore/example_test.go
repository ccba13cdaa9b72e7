package memstore_test

import (
	"context"
	"fmt"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/memstore"
)

// Append refuses what a journal must not hold; a correction then replaces
// the claim it targets on the sheet.
func ExampleStore_Append() {
	ctx := context.Background()
	st := memstore.New()
	claim := memory.Record{Key: "n-1", Agent: "stock-bot", Kind: memory.KindObservation,
		Text: "pr-007 is out of stock at st-003", Subject: "pr-007@st-003", Time: 1}
	fmt.Println(st.Append(ctx, claim, memory.Visibility{}))
	fmt.Println(st.Append(ctx, claim, memory.Visibility{}))
	fmt.Println(st.Append(ctx, memory.Record{Key: "n-2", Agent: "stock-bot", Kind: memory.KindRetract, Time: 2}, memory.Visibility{}))
	fix := memory.Record{Key: "n-3", Agent: "stock-bot", Kind: memory.KindSupersede, Target: "n-1", Stated: true,
		Text: "pr-007 was restocked at st-003 at 10:00", Subject: "pr-007@st-003", Time: 3}
	fmt.Println(st.Append(ctx, fix, memory.Visibility{}))

	q := memory.Query{Cues: memory.Cues{Subject: "pr-007@st-003"}, AsOf: 10, MaxItems: 5}
	sheet, err := memory.Read(ctx, st, &memory.Reader{Agent: "stock-bot"}, q, memory.DefaultPolicy())
	if err != nil {
		panic(err)
	}
	for _, c := range sheet.Claims {
		fmt.Println(c.Rank, c.Key, c.Text, c.Supersedes)
	}
	// Output:
	// <nil>
	// append record: duplicate key
	// append record: validate record: target: required by a targeted kind
	// <nil>
	// 1 n-3 pr-007 was restocked at st-003 at 10:00 [n-1]
}
