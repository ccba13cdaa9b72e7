package eventlog_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/internal/govchild"
)

func benchLog(b *testing.B, n int) []byte {
	b.Helper()
	store := &eventlog.MemStore{}
	l, err := eventlog.NewLog(b.Context(), store, &eventlog.Options{Deterministic: true})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		p := samples()[i%14]
		if _, err := l.Append(b.Context(), eventlog.Entry{Producer: fmt.Sprintf("p%d", i%4), Time: int64(i / 8), Payload: p}); err != nil {
			b.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := eventlog.Export(b.Context(), &buf, store); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkVerify reports events verified per second (Go checks and the
// hash; schema validation off and on).
func BenchmarkVerify(b *testing.B) {
	const n = 1000
	data := benchLog(b, n)
	for _, schema := range []bool{false, true} {
		b.Run(fmt.Sprintf("schema=%v", schema), func(b *testing.B) {
			opts := &eventlog.VerifyOptions{}
			if schema {
				opts.Schema = validator(b)
			}
			cpu0 := cpuTime()
			for b.Loop() {
				if _, err := eventlog.Verify(b.Context(), bytes.NewReader(data), opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(n*b.N), "cpu-ns/event")
		})
	}
}

// BenchmarkFileAppend reports acknowledged (fsynced) appends per second
// on the test's temporary directory.
func BenchmarkFileAppend(b *testing.B) {
	s, err := eventlog.OpenFileStore(b.Context(), filepath.Join(b.TempDir(), "events.jsonl"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l, err := eventlog.NewLog(b.Context(), s, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := l.Append(b.Context(), eventlog.Entry{Producer: "p", Payload: samples()[0]}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// cpuTime is the process's user and system CPU time: on a shared machine
// a steadier cost than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEventFileVerify reads back 1,000 events from a file store,
// exports and verifies them: events/s, comparable with the database
// stores' BenchmarkEvent*Verify.
func BenchmarkEventFileVerify(b *testing.B) {
	s, err := eventlog.OpenFileStore(b.Context(), filepath.Join(b.TempDir(), "events.jsonl"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	govchild.BenchVerifyEvents(b, s)
}

// BenchmarkFileRequest: requests of 9 events through one Log on a file
// store, waiting for each event (mode=append: 9 fsyncs) or once per
// request (mode=submit: 1 fsync, shared by concurrent requests).
func BenchmarkFileRequest(b *testing.B) {
	govchild.BenchRequestModes(b, func(b *testing.B) eventlog.Store {
		s, err := eventlog.OpenFileStore(b.Context(), filepath.Join(b.TempDir(), "events.jsonl"), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}
