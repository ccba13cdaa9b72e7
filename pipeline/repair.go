package pipeline

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/repair"
	"github.com/provenant/provenant/tool"
)

// Repair configures the repair loop: when an executed call of a governed
// metric (or a free SQL statement) fails with one of the failure classes
// (package repair), the repair message goes back to a provider that
// implements provider.Repairer, for at most Retries more proposals, each
// through the wall again.
type Repair struct {
	// Retries is the most repair attempts per question, 0..repair.MaxRetries;
	// 0 turns the loop off.
	Retries int
	// Metrics describes the metric a proposal names; nil: no plausibility
	// check, and messages without a catalog snippet.
	Metrics MetricFacts
	// Policy is the history band's; the zero Policy is
	// repair.DefaultPolicy().
	Policy repair.Policy
}

// MetricFacts tells the loop about the metric a proposal names (a
// catalog engine's query_metric).
type MetricFacts interface {
	// Describe returns the facts of the proposal's metric; false when the
	// proposal names none (another tool, or an unknown metric).
	Describe(p tool.Proposal) (MetricFact, bool)
}

// MetricFact is what the loop knows of one metric.
type MetricFact struct {
	Name       string
	Definition string
	Snippet    string // the catalog's declaration, as the model may see it
	Domain     repair.Domain
}

// History is an optional capability of a MetricFacts: the metric's own
// history for a call (the same request over earlier windows), for the
// band check. An error or no history means the band is not checked.
type History interface {
	History(ctx context.Context, c tool.Call) ([]float64, error)
}

// specialCauseNote is the note an unchanged out-of-band value ships with.
const specialCauseNote = "special cause: the value lies outside the band of the metric's own history and was unchanged when the model was asked to repair it"

// repairer returns the loop's provider and bound, or false when the loop
// is off for this pipeline.
func (p *Pipeline) repairer() (provider.Repairer, int, bool) {
	r := p.opts.Repair
	if r == nil || r.Retries <= 0 {
		return nil, 0, false
	}
	rp, ok := p.prov.(provider.Repairer)
	return rp, r.Retries, ok
}

// failure is one classified failure of an executed proposal.
type failure struct {
	class  answer.ReasonKind
	detail string
	// band: the value was out of band (not out of domain).
	band   bool
	values []float64
}

// askRepair is run with the repair loop: without a Repairer or with the
// loop off it is run itself.
func (p *Pipeline) askRepair(ctx context.Context, question string, proposal tool.Proposal, rec *Record, compose func(fact.Result) (string, error)) answer.Answer {
	rp, retries, ok := p.repairer()
	if !ok {
		return p.run(ctx, question, proposal, rec, compose)
	}
	ctx, release := p.pin(ctx)
	defer release()
	var (
		attempts  []answer.Attempt
		bandTried bool
		bandPrev  []float64
	)
	for try := 0; ; try++ {
		start := time.Now()
		call, result, failed := p.execute(ctx, proposal, rec)
		var f *failure
		if failed != nil {
			f = p.classifyFailed(proposal, *failed)
		} else {
			f = p.checkResult(ctx, proposal, call, result)
		}
		rec.Deterministic += time.Since(start)
		if f == nil {
			if failed != nil {
				return p.attempted(*failed, attempts, rec)
			}
			return p.attempted(p.finish(ctx, question, call, result, rec, compose), attempts, rec)
		}
		if f.band && bandTried {
			// One retry for an out-of-band value: it ships, noted as a
			// special cause when the model gave the same value again.
			a := p.attempted(p.finish(ctx, question, call, result, rec, compose), attempts, rec)
			if slices.Equal(f.values, bandPrev) && a.Outcome() == answer.Answered {
				a = a.WithSpecialCause(specialCauseNote)
			}
			return a
		}
		exhausted := try >= retries || ctx.Err() != nil
		var next *tool.Proposal
		if !exhausted {
			attempts = append(attempts, answer.Attempt{Class: f.class})
			msg, err := repair.Message(p.failureOf(proposal, f))
			if err == nil {
				in := provider.RepairInput{Question: question, Menu: p.menu, Previous: proposal, Class: string(f.class), Message: msg, Attempt: try + 1}
				next, err = rp.Repair(ctx, in)
			}
			// A model that proposes again what just failed insists:
			// running it again would fail the same way, so the loop
			// stops (an out-of-band value excepted: it runs once more,
			// to ship as a special cause).
			exhausted = err != nil || next == nil || !f.band && sameProposal(*next, proposal)
		}
		if exhausted {
			return p.attempted(p.giveUp(ctx, question, call, result, failed, f, rec, compose), attempts, rec)
		}
		if f.band {
			bandTried, bandPrev = true, f.values
		}
		proposal = *next
	}
}

// attempted stamps the attempts on the answer and the record.
func (p *Pipeline) attempted(a answer.Answer, attempts []answer.Attempt, rec *Record) answer.Answer {
	if len(attempts) == 0 {
		return a
	}
	rec.RepairAttempts = rec.RepairAttempts[:0]
	for _, at := range attempts {
		rec.RepairAttempts = append(rec.RepairAttempts, string(at.Class))
	}
	return a.WithAttempts(attempts)
}

// giveUp is the answer when the loop stops on a failure: the failure's
// own answer, an out-of-domain value rejected, and a result that is only
// empty or out of band shipped as the resolver judges it.
func (p *Pipeline) giveUp(ctx context.Context, question string, call tool.Call, result fact.Result, failed *answer.Answer, f *failure, rec *Record, compose func(fact.Result) (string, error)) answer.Answer {
	switch {
	case failed != nil:
		return *failed
	case f.class == answer.ReasonImplausibleMagnitude && !f.band:
		rec.FailureClass = string(f.class)
		return answer.RejectImplausible(call.Tool(), call.Args(), f.detail)
	}
	return p.finish(ctx, question, call, result, rec, compose)
}

// classifyFailed maps a failed proposal's answer to a failure class, nil
// when the failure is not one the loop repairs: only a free SQL
// statement's rejection, the wall's refusal of a metric call (an
// undeclared or disallowed name: schema_violation; out of the caller's
// scope: permission_denied) and a metric call's execution failure
// (sql_error) are.
func (p *Pipeline) classifyFailed(proposal tool.Proposal, a answer.Answer) *failure {
	k := a.Reason().Kind
	if slices.Contains(answer.StatementRejectKinds, k) {
		return &failure{class: k, detail: a.Reason().Detail}
	}
	if _, ok := p.describe(proposal); !ok {
		return nil
	}
	switch {
	case k == answer.ReasonInvalid:
		return &failure{class: answer.ReasonSchemaViolation, detail: a.Reason().Detail}
	case k == answer.ReasonOutOfScope:
		return &failure{class: answer.ReasonPermissionDenied, detail: a.Reason().Detail}
	case k == answer.ReasonInternal && a.Stage() == answer.StageExecute:
		return &failure{class: answer.ReasonSQLError, detail: "the metric query failed while it ran"}
	}
	return nil
}

func (p *Pipeline) describe(proposal tool.Proposal) (MetricFact, bool) {
	if p.opts.Repair == nil || p.opts.Repair.Metrics == nil {
		return MetricFact{}, false
	}
	return p.opts.Repair.Metrics.Describe(proposal)
}

// checkResult verifies an executed metric call's value: a table with no
// row or no value is empty_result; a value outside the domain, or out of
// the history's band, implausible_magnitude.
func (p *Pipeline) checkResult(ctx context.Context, proposal tool.Proposal, call tool.Call, r fact.Result) *failure {
	m, ok := p.describe(proposal)
	if !ok || r.Value.Kind != fact.KindTable || r.Value.Table == nil {
		return nil
	}
	values, ok := valueColumn(r.Value.Table)
	if !ok {
		return nil
	}
	if len(values) == 0 {
		return &failure{class: answer.ReasonEmptyResult, detail: "the metric has no value for the request (no row, or every value null)"}
	}
	var history []float64
	if h, ok := p.opts.Repair.Metrics.(History); ok && !m.Domain.Bounded() {
		history, _ = h.History(ctx, call)
	}
	pol := p.opts.Repair.Policy
	if pol == (repair.Policy{}) {
		pol = repair.DefaultPolicy()
	}
	v := repair.Check(values, m.Domain, history, pol)
	if v.Finding == repair.Plausible {
		return nil
	}
	return &failure{class: v.Class(), detail: v.Detail, band: v.Finding == repair.OutOfBand, values: values}
}

// valueColumn returns the non-null numbers of a metric table's value
// column (its last, named "value"); false when the table has none.
func valueColumn(t *fact.Table) ([]float64, bool) {
	n := len(t.Columns)
	if n == 0 || t.Columns[n-1].Name != "value" || t.Columns[n-1].Type != fact.CellNumber {
		return nil, false
	}
	var out []float64
	for _, row := range t.Rows {
		if c := row[n-1]; c.Valid {
			out = append(out, c.Num)
		}
	}
	return out, true
}

// failureOf is the repair message's content for a failed proposal.
func (p *Pipeline) failureOf(proposal tool.Proposal, f *failure) repair.Failure {
	out := repair.Failure{Class: f.class, Detail: f.detail}
	if p.opts.FreeSQL != nil && proposal.Tool == p.opts.FreeSQL.Tool {
		for _, v := range proposal.Params {
			if s, ok := v.(string); ok {
				out.SQL = s
			}
		}
	} else if b, err := json.Marshal(struct {
		Tool   string         `json:"tool"`
		Params map[string]any `json:"params"`
	}{proposal.Tool, proposal.Params}); err == nil {
		out.Selection = string(b)
	}
	if m, ok := p.describe(proposal); ok {
		out.Snippet, out.Definition = m.Snippet, m.Definition
	}
	return out
}

// sameProposal reports whether two proposals name the same tool with the
// same arguments.
func sameProposal(a, b tool.Proposal) bool {
	return a.Tool == b.Tool && reflect.DeepEqual(a.Params, b.Params)
}
