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
	e := p.repairLoop(ctx, question, proposal, rec, rp, retries, nil)
	var a answer.Answer
	switch {
	case e.f == nil && e.failed != nil:
		a = *e.failed
	case e.f == nil:
		a = p.finish(ctx, question, e.call, e.result, rec, compose)
	case e.bandAgain:
		// One retry for an out-of-band value: it ships, noted as a
		// special cause when the model gave the same value again.
		a = p.finish(ctx, question, e.call, e.result, rec, compose)
		if e.unchanged && a.Outcome() == answer.Answered {
			a = a.WithSpecialCause(specialCauseNote)
		}
	default:
		a = p.giveUp(ctx, question, e.call, e.result, e.failed, e.f, rec, compose)
	}
	return p.attempted(a, e.attempts, rec)
}

// loopEnd is where one proposal's repair loop stopped.
type loopEnd struct {
	// The last proposal's executed call and result, or its failure's
	// own answer.
	call   tool.Call
	result fact.Result
	failed *answer.Answer
	// f is the last proposal's classified failure; nil when it passed
	// (or failed in a way the loop does not repair: failed is then set).
	f *failure
	// bandAgain: f is an out-of-band value after its one retry;
	// unchanged: with the same values as the value retried.
	bandAgain, unchanged bool
	attempts             []answer.Attempt
}

// repairLoop takes proposal through the wall and the executor, and, while
// the result fails verification and the bound allows, asks rp for a
// corrected proposal and takes that one through in turn. sample, when
// set, is the self-consistency sample the proposal is (each of its
// attempts names it, and rp is asked under provider.WithSample).
func (p *Pipeline) repairLoop(ctx context.Context, question string, proposal tool.Proposal, rec *Record, rp provider.Repairer, retries int, sample *int) loopEnd {
	var (
		e         loopEnd
		bandTried bool
		bandPrev  []float64
	)
	for try := 0; ; try++ {
		start := time.Now()
		e.call, e.result, e.failed = p.execute(ctx, proposal, rec)
		if e.failed != nil {
			e.f = p.classifyFailed(proposal, *e.failed)
		} else {
			e.f = p.checkResult(ctx, proposal, e.call, e.result, true)
		}
		rec.Deterministic += time.Since(start)
		if e.f == nil {
			return e
		}
		if e.f.band && bandTried {
			e.bandAgain, e.unchanged = true, slices.Equal(e.f.values, bandPrev)
			return e
		}
		exhausted := try >= retries || ctx.Err() != nil
		var next *tool.Proposal
		if !exhausted {
			at := answer.Attempt{Class: e.f.class}
			if sample != nil {
				n := *sample
				at.Sample = &n
			}
			e.attempts = append(e.attempts, at)
			msg, err := repair.Message(p.failureOf(proposal, e.f))
			if err == nil {
				in := provider.RepairInput{Question: question, Menu: p.menu, Previous: proposal, Class: string(e.f.class), Message: msg, Attempt: try + 1}
				next, err = rp.Repair(ctx, in)
			}
			// A model that proposes again what just failed insists:
			// running it again would fail the same way, so the loop
			// stops (an out-of-band value excepted: it runs once more,
			// to ship as a special cause).
			exhausted = err != nil || next == nil || !e.f.band && sameProposal(*next, proposal)
		}
		if exhausted {
			return e
		}
		if e.f.band {
			bandTried, bandPrev = true, e.f.values
		}
		proposal = *next
	}
}

// attempted stamps the attempts on the answer and the record.
func (p *Pipeline) attempted(a answer.Answer, attempts []answer.Attempt, rec *Record) answer.Answer {
	if len(attempts) == 0 {
		return a
	}
	rec.RepairAttempts, rec.RepairSamples = rec.RepairAttempts[:0], rec.RepairSamples[:0]
	for _, at := range attempts {
		rec.RepairAttempts = append(rec.RepairAttempts, string(at.Class))
		if at.Sample != nil {
			rec.RepairSamples = append(rec.RepairSamples, *at.Sample)
		}
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
//
// withHistory also judges an unbounded metric against the band of its
// own history, which costs HistoryWindows more re-derivations of the
// metric: the loop pays it for a model's proposal, which it can send
// back; a client's own call (runClient) does not, since it would cost
// every direct call many times the call itself.
func (p *Pipeline) checkResult(ctx context.Context, proposal tool.Proposal, call tool.Call, r fact.Result, withHistory bool) *failure {
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
	if h, ok := p.opts.Repair.Metrics.(History); ok && withHistory && !m.Domain.Bounded() {
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
		out.Snippet = repair.TablesSnippet(p.opts.FreeSQL.Tables)
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

// runClient runs a call a client proposed itself (Call: the agent is the
// model, and there is no provider to repair with). With the repair loop
// configured (Options.Repair, whatever its bound), the executed call is
// verified as a model's proposal is; a failure ends as the loop ends when
// it gives up (a rejection, an empty table or an out-of-band value
// shipped as the resolver judges it, a value outside the domain
// rejected), and the answer carries the repair advice (repair.Advise:
// the class, the selection by its declared names, the catalog snippet and
// the definition) so that the client can correct its own call. A metric
// query that failed while it ran is a rejection with class sql_error, not
// an internal error: the client can choose another call.
func (p *Pipeline) runClient(ctx context.Context, proposal tool.Proposal, rec *Record, compose func(fact.Result) (string, error)) answer.Answer {
	if p.opts.Repair == nil {
		return p.run(ctx, "", proposal, rec, compose)
	}
	ctx, release := p.pin(ctx)
	defer release()
	start := time.Now()
	call, result, failed := p.execute(ctx, proposal, rec)
	var f *failure
	if failed != nil {
		f = p.classifyFailed(proposal, *failed)
	} else {
		f = p.checkResult(ctx, proposal, call, result, false)
	}
	rec.Deterministic = time.Since(start)
	if f == nil {
		if failed != nil {
			return *failed
		}
		return p.finish(ctx, "", call, result, rec, compose)
	}
	a := p.giveUp(ctx, "", call, result, failed, f, rec, compose)
	if a.Outcome() == answer.Error && a.Reason().Kind == answer.ReasonInternal {
		// The engine's own compiled query failed while it ran (the
		// database, not the client's selection): our failure, a 5xx
		// with nothing for the client to repair.
		rec.FailureClass = string(f.class)
		return a
	}
	adv, err := repair.Advise(p.failureOf(proposal, f), p.selection(proposal))
	if err != nil {
		return a // a class outside the closed set cannot happen
	}
	return a.WithAdvice(&adv)
}

// selection names a proposal by its declared names only: the tool when
// it is registered, and the values of its enumerated parameters metric,
// grain, dimensions and the filters' dimension that the tool declares.
// Nothing else the client sent is repeated.
func (p *Pipeline) selection(proposal tool.Proposal) answer.Selection {
	def, ok := p.wall.Registry().Lookup(proposal.Tool)
	if !ok {
		return answer.Selection{}
	}
	sel := answer.Selection{Tool: def.Name}
	for _, q := range def.Params {
		v, given := proposal.Params[q.Name]
		if !given {
			continue
		}
		switch q.Name {
		case "metric":
			sel.Metric = declared(&q, v)
		case "grain":
			sel.Grain = declared(&q, v)
		case "dimensions":
			for _, x := range bounded(&q, items(v)) {
				if d := declared(q.Items, x); d != "" {
					sel.Dimensions = append(sel.Dimensions, d)
				}
			}
		case "filters":
			if q.Items == nil {
				continue
			}
			var dim *tool.Param
			for i := range q.Items.Fields {
				if q.Items.Fields[i].Name == "dimension" {
					dim = &q.Items.Fields[i]
				}
			}
			for _, x := range bounded(&q, items(v)) {
				if m, ok := x.(map[string]any); ok {
					if d := declared(dim, m["dimension"]); d != "" {
						sel.Filters = append(sel.Filters, d)
					}
				}
			}
		}
	}
	return sel
}

// declared returns v when q is an enumerated parameter and v one of its
// declared values; "" otherwise.
func declared(q *tool.Param, v any) string {
	s, ok := v.(string)
	if !ok || q == nil || q.Kind != tool.Enum || !slices.Contains(q.Values, s) {
		return ""
	}
	return s
}

// bounded returns at most q.MaxItems of xs: a longer list was refused,
// and the selection must not repeat it whole (a client's list of 100,000
// declared names would come back in every rejection).
func bounded(q *tool.Param, xs []any) []any {
	if q.MaxItems > 0 && len(xs) > q.MaxItems {
		return xs[:q.MaxItems]
	}
	return xs
}

// items returns a JSON array's elements (as decoded, or a []string).
func items(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}
	return nil
}
