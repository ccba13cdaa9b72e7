package register

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkAppend appends decision records to an in-memory register (the
// chain, validation and SHA-256 over RFC 8785 canonical JSON included;
// the store is a slice).
func BenchmarkAppend(b *testing.B) {
	ctx := context.Background()
	g, _ := Open(ctx, NewMemStore())
	recs := make([]Record, b.N)
	for i := range recs {
		recs[i] = decision(fmt.Sprint("d", i), uint64(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := g.Append(ctx, recs[i]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify verifies an in-memory register of 10,000 decision
// records; records/s is the throughput.
func BenchmarkVerify(b *testing.B) {
	const n = 10_000
	ctx := context.Background()
	s := NewMemStore()
	g, _ := Open(ctx, s)
	for i := range n {
		if _, err := g.Append(ctx, decision(fmt.Sprint("d", i), uint64(i))); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if h, err := Verify(ctx, s); err != nil || h.Len != n {
			b.Fatal(h, err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}
