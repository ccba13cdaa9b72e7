package metrics_test

import (
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/metrics"
	"github.com/provenant/provenant/pipeline"
)

// records is one of each kind of request the pipeline can finish.
var records = []pipeline.Record{
	{Outcome: answer.Answered, Tool: "get_price", Validation: "passed", Provenance: "verified", Deterministic: 40 * time.Microsecond},
	{Outcome: answer.Absence, Tool: "get_price", Validation: "passed", Provenance: "verified", Deterministic: 30 * time.Microsecond},
	{Outcome: answer.Abstained, Validation: "skipped", Provenance: "skipped"},
	{Outcome: answer.Rejected, Validation: "unregistered", Provenance: "skipped", Deterministic: time.Microsecond},
	{Outcome: answer.Rejected, Tool: "get_price", Validation: "invalid", Provenance: "skipped", Deterministic: time.Microsecond},
	{Outcome: answer.Rejected, Tool: "get_price", Validation: "raw_query", Provenance: "skipped", Deterministic: time.Microsecond},
	{Outcome: answer.Error, Validation: "skipped", Provenance: "skipped", ErrorKind: answer.ReasonModelUnavailable, Stage: answer.StageSelect},
	{Outcome: answer.Error, Tool: "get_price", Validation: "passed", Provenance: "failed", ErrorKind: answer.ReasonVerificationFailed, Stage: answer.StageResolve, Deterministic: 50 * time.Microsecond},
}

func TestObserver_ConcurrentNoLostUpdates(t *testing.T) {
	const goroutines, perGoroutine = 64, 500
	m := metrics.New(nil)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				m.Observe(records[(g+i)%len(records)])
			}
		})
	}
	wg.Wait()

	s, err := m.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	const total = goroutines * perGoroutine
	if got := s.RequestsTotal(); got != uint64(total) {
		t.Fatalf("requests total = %d, want %d", got, total)
	}
	// goroutines*perGoroutine is a multiple of len(records), so each
	// record was observed exactly total/len(records) times.
	each := uint64(total / len(records))
	if total%len(records) != 0 {
		t.Fatal("test setup: total must be a multiple of len(records)")
	}
	checks := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"answered", s.Requests["answered"], each},
		{"absence", s.Requests["absence"], each},
		{"abstained", s.Requests["abstained"], each},
		{"rejected", s.Requests["rejected"], 3 * each},
		{"error", s.Requests["error"], 2 * each},
		{"rejections unregistered", s.Rejections["unregistered"], each},
		{"rejections invalid", s.Rejections["invalid"], each},
		{"rejections raw_query", s.Rejections["raw_query"], each},
		{"resolutions verified", s.Resolutions["verified"], 2 * each},
		{"resolutions failed", s.Resolutions["failed"], each},
		{"abstentions", s.Abstentions, each},
		{"errors select/model_unavailable", s.Errors["select/model_unavailable"], each},
		{"errors resolve/verification_failed", s.Errors["resolve/verification_failed"], each},
		// Every record but the abstention and the select error reached the wall.
		{"deterministic samples", s.Deterministic, 6 * each},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %d, want %d", c.got, c.want)
			}
		})
	}
}

func TestObserver_LabelsFromClosedSets(t *testing.T) {
	tests := []struct {
		name string
		rec  pipeline.Record
		want func(s metrics.Snapshot) uint64
	}{
		{"unknown outcome", pipeline.Record{Outcome: "'; DROP TABLE x"},
			func(s metrics.Snapshot) uint64 { return s.Requests[metrics.Other] }},
		{"unknown rejection kind", pipeline.Record{Outcome: answer.Rejected, Validation: "banana"},
			func(s metrics.Snapshot) uint64 { return s.Rejections[metrics.Other] }},
		{"unknown error kind", pipeline.Record{Outcome: answer.Error, Stage: "warp", ErrorKind: "on_fire"},
			func(s metrics.Snapshot) uint64 { return s.Errors["other/other"] }},
		{"error without stage", pipeline.Record{Outcome: answer.Error, ErrorKind: "panic"},
			func(s metrics.Snapshot) uint64 { return s.Errors["none/panic"] }},
		{"timeout has its own label", pipeline.Record{Outcome: answer.Error, Stage: answer.StageResolve, ErrorKind: answer.ReasonTimeout},
			func(s metrics.Snapshot) uint64 { return s.Errors["resolve/timeout"] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := metrics.New(nil)
			before, err := m.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			m.Observe(tt.rec)
			s, err := m.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.want(s); got != 1 {
				t.Errorf("counter = %d, want 1", got)
			}
			// No new outcome series besides "other" appeared.
			keys := maps.Clone(s.Requests)
			for k := range before.Requests {
				delete(keys, k)
			}
			for k := range keys {
				if k != metrics.Other {
					t.Errorf("unexpected outcome series %q", k)
				}
			}
		})
	}
}

func TestObserver_Handler(t *testing.T) {
	m := metrics.New(&metrics.Options{Runtime: true})
	m.Observe(records[0])
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`provenant_requests_total{outcome="answered"} 1`,
		`provenant_requests_total{outcome="error"} 0`,
		`provenant_rejections_total{kind="raw_query"} 0`,
		`provenant_provenance_resolutions_total{result="verified"} 1`,
		`provenant_abstentions_total 0`,
		`provenant_errors_total{kind="internal",stage="execute"} 0`,
		`provenant_deterministic_seconds_bucket{le="5e-05"} 1`,
		`provenant_deterministic_seconds_count 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics output lacks %q", want)
		}
	}
}
