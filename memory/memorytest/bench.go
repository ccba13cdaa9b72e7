package memorytest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/provenant/provenant/memory"
)

// BenchJournal is the journal issue 12's benchmark reads: n claims over
// 500 subjects (pr-000 to pr-499), relevance from 0 to 0.99, and under
// every seventh claim of the first 50 of each 500 a chain of 1 to 20
// annotations (confirms and supersedes in turn, each supersede targeting
// the last). BenchQuery reads subject pr-007 with max_items 50.
func BenchJournal(n int) []memory.Entry {
	var out []memory.Entry
	for i := range n {
		key := fmt.Sprintf("c%06d", i)
		subject := fmt.Sprintf("pr-%03d", i%500)
		out = append(out, memory.Entry{Record: memory.Record{Key: key, Agent: "bot", Kind: memory.KindClaim,
			Text: "stock of pr-007 " + key, Subject: subject, Tags: []string{"pr-007"}, Time: int64(i),
			Relevance: &memory.Relevance{Score: float64(i%100) / 100}}})
		if i%500 < 50 && i%7 == 0 {
			target := key
			for j := range 1 + i%20 {
				kind := []memory.Kind{memory.KindConfirm, memory.KindSupersede}[j%2]
				a := memory.Record{Key: fmt.Sprintf("%s-a%02d", key, j), Agent: "bot", Kind: kind, Target: target, Time: int64(i + j + 1)}
				if kind == memory.KindSupersede {
					a.Text, a.Subject, a.Tags = "correction "+a.Key, subject, []string{"pr-007"}
				}
				out = append(out, memory.Entry{Record: a})
				if kind == memory.KindSupersede {
					target = a.Key
				}
			}
		}
	}
	return out
}

// BenchQuery is the read of BenchJournal's benchmark.
var BenchQuery = memory.Query{Cues: memory.Cues{Subject: "pr-007"}, AsOf: 200_000, MaxItems: 50}

// BenchRead runs memory.Read over st in a benchmark loop and reports the
// 50th and 95th percentiles of a read's wall-clock time (p50-ms, p95-ms)
// beside ns/op.
func BenchRead(b *testing.B, st memory.Store) {
	reader := &memory.Reader{Agent: "bot"}
	ctx := b.Context()
	var took []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		s, err := memory.Read(ctx, st, reader, BenchQuery, memory.DefaultPolicy())
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Claims) == 0 {
			b.Fatal("an empty sheet")
		}
	}
	slices.Sort(took)
	pct := func(p float64) float64 {
		return float64(took[min(len(took)-1, int(p*float64(len(took))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
}
