package govchild

import (
	"bytes"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventlogtest"
	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/register/registertest"
)

// VerifyN is how many events or records a verify benchmark's store
// holds.
const VerifyN = 1000

// BenchAppendEvents measures acknowledged appends through a Log to s,
// from writers goroutines (each with a Log of its own run, as separate
// processes would have); events/s is the throughput.
func BenchAppendEvents(b *testing.B, s eventlog.Store, writers int) {
	l, err := eventlog.NewLog(b.Context(), s, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetParallelism(max(1, writers/max(1, runtimeProcs())))
	if writers <= 1 {
		for b.Loop() {
			if _, err := l.Append(b.Context(), eventlog.Entry{Producer: "p", Payload: eventlogtest.Payload(0)}); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		b.RunParallel(func(pb *testing.PB) {
			l, err := eventlog.NewLog(b.Context(), s, nil)
			if err != nil {
				b.Error(err)
				return
			}
			for pb.Next() {
				if _, err := l.Append(b.Context(), eventlog.Entry{Producer: "p", Payload: eventlogtest.Payload(1)}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// RequestEvents is how many events BenchRequests writes per request,
// about what a tool request through the pipeline writes.
const RequestEvents = 9

// BenchRequests measures requests of RequestEvents events each through
// one Log on s (as one serve process has), from writers goroutines at
// once. With submit, a request submits its events and waits once, as the
// pipeline does over an *eventlog.Log; without, it waits for each event
// (Append), as the pipeline did before. requests/s and events/s are the
// throughput of acknowledged requests.
func BenchRequests(b *testing.B, s eventlog.Store, writers int, submit bool) {
	l, err := eventlog.NewLog(b.Context(), s, nil)
	if err != nil {
		b.Fatal(err)
	}
	request := func() error {
		var last *eventlog.Pending
		for i := range RequestEvents {
			e := eventlog.Entry{Producer: "p", Payload: eventlogtest.Payload(i)}
			if !submit {
				if _, err := l.Append(b.Context(), e); err != nil {
					return err
				}
				continue
			}
			_, p, err := l.Submit(b.Context(), e, last)
			if err != nil {
				return err
			}
			last = p
		}
		if last != nil {
			return last.Wait(b.Context())
		}
		return nil
	}
	if writers <= 1 {
		for b.Loop() {
			if err := request(); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		b.SetParallelism(max(1, writers/max(1, runtimeProcs())))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := request(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	b.ReportMetric(float64(RequestEvents*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchRequestModes runs BenchRequests as sub-benchmarks: mode=append
// and mode=submit, each with 1 and 4 writers, each on a fresh store from
// open.
func BenchRequestModes(b *testing.B, open func(b *testing.B) eventlog.Store) {
	for _, mode := range []string{"append", "submit"} {
		for _, writers := range []int{1, 4} {
			b.Run(fmt.Sprintf("mode=%s/writers=%d", mode, writers), func(b *testing.B) {
				BenchRequests(b, open(b), writers, mode == "submit")
			})
		}
	}
}

// BenchVerifyEvents fills s with VerifyN events, then measures reading
// them back, exporting and verifying; events/s is the throughput.
func BenchVerifyEvents(b *testing.B, s eventlog.Store) {
	l, err := eventlog.NewLog(b.Context(), s, &eventlog.Options{Deterministic: true})
	if err != nil {
		b.Fatal(err)
	}
	for i := range VerifyN {
		if _, err := l.Append(b.Context(), eventlog.Entry{Producer: fmt.Sprintf("p%d", i%4), Time: int64(i / 8), Payload: eventlogtest.Payload(i)}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		var buf bytes.Buffer
		if _, err := eventlog.Export(b.Context(), &buf, s); err != nil {
			b.Fatal(err)
		}
		if rep, err := eventlog.Verify(b.Context(), &buf, nil); err != nil || rep.Events != VerifyN {
			b.Fatal(rep.Events, err)
		}
	}
	b.ReportMetric(float64(VerifyN*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchAppendRecords measures acknowledged appends of decision records
// through writers Registers on stores (one each, all on one register);
// records/s is the throughput.
func BenchAppendRecords(b *testing.B, stores []register.Store) {
	var regs []*register.Register
	for _, s := range stores {
		g, err := register.Open(b.Context(), s)
		if err != nil {
			b.Fatal(err)
		}
		regs = append(regs, g)
	}
	var next, id atomic.Int64
	if len(regs) == 1 {
		for b.Loop() {
			if _, err := regs[0].Append(b.Context(), registertest.Decision(fmt.Sprint("d", id.Add(1)), 1)); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		b.SetParallelism(max(1, len(regs)/max(1, runtimeProcs())))
		b.RunParallel(func(pb *testing.PB) {
			g := regs[int(next.Add(1)-1)%len(regs)]
			for pb.Next() {
				if _, err := g.Append(b.Context(), registertest.Decision(fmt.Sprint("d", id.Add(1)), 1)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchVerifyRecords fills s with VerifyN decision records, then
// measures register.Verify over it (reading every record back, every
// hash recomputed); records/s is the throughput.
func BenchVerifyRecords(b *testing.B, s register.Store) {
	g, err := register.Open(b.Context(), s)
	if err != nil {
		b.Fatal(err)
	}
	for i := range VerifyN {
		if _, err := g.Append(b.Context(), registertest.Decision(fmt.Sprint("d", i), uint64(i))); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if h, err := register.Verify(b.Context(), s); err != nil || h.Len != VerifyN {
			b.Fatal(h, err)
		}
	}
	b.ReportMetric(float64(VerifyN*b.N)/b.Elapsed().Seconds(), "records/s")
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
