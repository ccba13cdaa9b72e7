// Package metrics is a pipeline.Observer that counts requests in
// Prometheus metrics on a registry of its own (never the process-wide
// default), and serves them in the Prometheus text format.
//
// The metrics:
//
//	provenant_requests_total{outcome}                 every request, by terminal outcome
//	provenant_rejections_total{kind}                  wall rejections: unregistered, invalid, raw_query
//	provenant_provenance_resolutions_total{result}    resolver verdicts: verified, failed
//	provenant_abstentions_total                       abstained requests
//	provenant_errors_total{stage,kind}                error outcomes by failing stage and reason
//	provenant_deterministic_seconds                   latency of the deterministic span (wall, execute,
//	                                                  resolve, staple), observed for every request whose
//	                                                  proposal reached the wall
//
// Every label value comes from a closed set fixed here; a value outside it
// is counted as "other", so nothing a client sends can mint a series.
// Every series of the closed sets is created at zero on construction.
package metrics

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/pipeline"
)

// Metric names.
const (
	NameRequests      = "provenant_requests_total"
	NameRejections    = "provenant_rejections_total"
	NameResolutions   = "provenant_provenance_resolutions_total"
	NameGroundings    = "provenant_grounding_checks_total"
	NameAbstentions   = "provenant_abstentions_total"
	NameErrors        = "provenant_errors_total"
	NameDeterministic = "provenant_deterministic_seconds"
)

// Other is the label value for anything outside a closed set.
const Other = "other"

// The closed label sets.
var (
	outcomes = []string{
		string(answer.Answered), string(answer.Absence), string(answer.Abstained),
		string(answer.Rejected), string(answer.Error),
	}
	rejectKinds = kindStrings(slices.Concat(answer.RejectKinds, answer.ActionRejectKinds))
	resolutions = []string{"verified", "failed"}
	groundings  = []string{"pass", "refused"}
	// stages of an error; "none" when the error carries no stage.
	stages = []string{
		"none", string(answer.StageSelect), string(answer.StageExecute),
		string(answer.StageResolve), string(answer.StageCompose),
	}
	// errorKinds are the error reasons, plus "panic" (a recovered panic).
	errorKinds = append(kindStrings(answer.ErrorKinds), string(pipeline.ErrorKindPanic))
)

// DefaultBuckets suit a deterministic span between 10µs and 100ms.
var DefaultBuckets = []float64{
	10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6,
	1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3,
}

// Options configures New.
type Options struct {
	// Buckets are the histogram's upper bounds in seconds; nil:
	// DefaultBuckets.
	Buckets []float64
	// Runtime adds the Go runtime and process collectors to the registry.
	Runtime bool
}

// Observer counts pipeline records. Safe for concurrent use.
type Observer struct {
	reg           *prometheus.Registry
	requests      *prometheus.CounterVec
	rejections    *prometheus.CounterVec
	resolutions   *prometheus.CounterVec
	groundings    *prometheus.CounterVec
	abstentions   prometheus.Counter
	errors        *prometheus.CounterVec
	deterministic prometheus.Histogram
}

var _ pipeline.Observer = (*Observer)(nil)

// New returns an observer with its own registry. nil opts means defaults.
func New(opts *Options) *Observer {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Buckets == nil {
		o.Buckets = DefaultBuckets
	}
	o.Buckets = slices.Clone(o.Buckets)

	m := &Observer{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameRequests, Help: "Requests answered by the pipeline, by terminal outcome.",
		}, []string{"outcome"}),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameRejections, Help: "Proposed tool calls the wall rejected, by rejection kind.",
		}, []string{"kind"}),
		resolutions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameResolutions, Help: "Independent re-derivations of tool results, by verdict.",
		}, []string{"result"}),
		groundings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameGroundings, Help: "Numeral grounding checks of composed sentences, by verdict (refused sentences never ship).",
		}, []string{"verdict"}),
		abstentions: prometheus.NewCounter(prometheus.CounterOpts{
			Name: NameAbstentions, Help: "Requests where no tool covered the question.",
		}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameErrors, Help: "Requests that ended in an error outcome, by failing stage and reason.",
		}, []string{"stage", "kind"}),
		deterministic: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    NameDeterministic,
			Help:    "Latency of the deterministic span (wall, execute, resolve, staple; model calls excluded) in seconds.",
			Buckets: o.Buckets,
		}),
	}
	m.reg.MustRegister(m.requests, m.rejections, m.resolutions, m.groundings, m.abstentions, m.errors, m.deterministic)
	if o.Runtime {
		m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	for _, v := range outcomes {
		m.requests.WithLabelValues(v)
	}
	for _, v := range rejectKinds {
		m.rejections.WithLabelValues(v)
	}
	for _, v := range groundings {
		m.groundings.WithLabelValues(v)
	}
	for _, v := range resolutions {
		m.resolutions.WithLabelValues(v)
	}
	for _, s := range stages {
		for _, k := range errorKinds {
			m.errors.WithLabelValues(s, k)
		}
	}
	return m
}

func kindStrings(ks []answer.ReasonKind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// closed returns v if it is in set, Other otherwise.
func closed(v string, set []string) string {
	if slices.Contains(set, v) {
		return v
	}
	return Other
}

// Observe counts one finished request.
func (m *Observer) Observe(r pipeline.Record) {
	m.requests.WithLabelValues(closed(string(r.Outcome), outcomes)).Inc()
	switch r.Outcome {
	case answer.Rejected:
		m.rejections.WithLabelValues(closed(r.Validation, rejectKinds)).Inc()
	case answer.Abstained:
		m.abstentions.Inc()
	case answer.Error:
		stage := string(r.Stage)
		if stage == "" {
			stage = "none"
		}
		m.errors.WithLabelValues(closed(stage, stages), closed(string(r.ErrorKind), errorKinds)).Inc()
	}
	if r.Provenance == "verified" || r.Provenance == "failed" {
		m.resolutions.WithLabelValues(r.Provenance).Inc()
	}
	if r.Grounding == "pass" || r.Grounding == "refused" {
		m.groundings.WithLabelValues(r.Grounding).Inc()
	}
	// The span exists once a proposal reached the wall; before that
	// (abstention, select error) there is nothing deterministic to time.
	if r.Validation != "" && r.Validation != "skipped" {
		m.deterministic.Observe(r.Deterministic.Seconds())
	}
}

// Registry returns the observer's registry, to add collectors to.
func (m *Observer) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus exposition format.
func (m *Observer) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Snapshot is a point-in-time read of the counters.
type Snapshot struct {
	Requests      map[string]uint64 // by outcome
	Rejections    map[string]uint64 // by kind
	Resolutions   map[string]uint64 // by result
	Abstentions   uint64
	Errors        map[string]uint64 // by "stage/kind"
	Deterministic uint64            // histogram sample count
}

// RequestsTotal sums the request counter over every outcome.
func (s Snapshot) RequestsTotal() uint64 {
	var n uint64
	for _, v := range s.Requests {
		n += v
	}
	return n
}

// Snapshot gathers the registry and returns the provenant metrics.
func (m *Observer) Snapshot() (Snapshot, error) {
	families, err := m.reg.Gather()
	if err != nil {
		return Snapshot{}, fmt.Errorf("gather metrics: %w", err)
	}
	s := Snapshot{
		Requests: map[string]uint64{}, Rejections: map[string]uint64{},
		Resolutions: map[string]uint64{}, Errors: map[string]uint64{},
	}
	for _, f := range families {
		for _, mt := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range mt.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			n := uint64(mt.GetCounter().GetValue())
			switch f.GetName() {
			case NameRequests:
				s.Requests[labels["outcome"]] = n
			case NameRejections:
				s.Rejections[labels["kind"]] = n
			case NameResolutions:
				s.Resolutions[labels["result"]] = n
			case NameAbstentions:
				s.Abstentions = n
			case NameErrors:
				s.Errors[labels["stage"]+"/"+labels["kind"]] = n
			case NameDeterministic:
				s.Deterministic = mt.GetHistogram().GetSampleCount()
			}
		}
	}
	return s, nil
}
