package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/tool"
)

// Self-consistency bounds.
const (
	DefaultSamples = 5
	MaxSamples     = 11
)

// ErrSamples is returned by SelfConsistency.Validate for a sample count
// that is even or outside 1..MaxSamples.
var ErrSamples = errors.New("self-consistency samples must be odd, from 1 to 11")

// SelfConsistency configures voting over independent proposals for the
// hard question classes. For a question whose first proposal calls a hard
// tool, the pipeline draws Samples proposals in all (sample i is asked
// with provider.WithSample(ctx, i)), takes each through the wall and the
// executor, clusters the executed values (fact.Value.Equal: ids, enums,
// counts and prices exact, lists as sets), and continues with the modal
// cluster only if it holds a strict majority of Samples; otherwise it
// abstains with reason no_majority. A sample the provider declines, the
// wall rejects or the executor fails is a vote for nothing; it still
// counts in Samples.
//
// With the repair loop on (Options.Repair and a provider.Repairer), each
// sample is verified and repaired on its own before the vote, exactly as
// a single proposal is (repair.go): at most Repair.Retries repairs per
// sample, each asked under the sample's own index (so a seeded provider
// repairs the samples independently), each back through the wall and the
// executor, and charged to the question's budget like any call and model
// turn. A sample that ends in a passing result, an empty table or an
// out-of-band value votes with it; one that still fails, or whose value
// lies outside the metric's domain, votes for nothing. The answer lists
// every sample's attempts, each naming its sample, so a question costs at
// most Samples × (1 + Retries) proposals. Repairing only the winner would
// be cheaper, but a vote over unverified samples can be won by a wrong
// value (an out-of-domain share, a wrong empty window) that verification
// would have caught; per-sample repair keeps every ballot verified.
type SelfConsistency struct {
	// Samples is the number of proposals, odd, 1 to MaxSamples; 0 means
	// DefaultSamples. 1 draws one proposal: the same as no voting.
	Samples int
	// Hard holds the tool names whose questions are voted on. nil means
	// DefaultHard of the wall's registry (aggregates, lists and windows);
	// an empty map, none.
	Hard map[string]bool
	// All votes on the questions of every tool of the wall's registry;
	// Hard is then ignored. For calibration, which measures every class.
	All bool
	// AllowPlurality lets the largest cluster win without a strict
	// majority (a tie for largest still abstains). For measurement only:
	// never for answers a person relies on.
	AllowPlurality bool
}

// DefaultHard returns the default hard classes of reg by tool name: every
// tool whose value is not a scalar, that is aggregates (entity counts),
// lists and windows (row counts). A write is never voted on: each sample
// would be a write.
func DefaultHard(reg *tool.Registry) map[string]bool {
	hard := map[string]bool{}
	for _, d := range reg.Menu() {
		if !d.Value.Scalar() && !d.Writes() {
			hard[d.Name] = true
		}
	}
	return hard
}

// Validate reports a sample count that is even or out of range.
func (sc SelfConsistency) Validate() error {
	if sc.Samples == 0 {
		return nil
	}
	if sc.Samples < 1 || sc.Samples > MaxSamples || sc.Samples%2 == 0 {
		return fmt.Errorf("validate self-consistency: samples %d: %w", sc.Samples, ErrSamples)
	}
	return nil
}

// withDefaults returns a copy of sc with its defaults filled.
func (sc SelfConsistency) withDefaults(reg *tool.Registry) *SelfConsistency {
	if sc.Samples == 0 {
		sc.Samples = DefaultSamples
	}
	if sc.All {
		sc.Hard = map[string]bool{}
		for _, d := range reg.Menu() {
			sc.Hard[d.Name] = true
		}
	} else if sc.Hard == nil {
		sc.Hard = DefaultHard(reg)
	} else {
		sc.Hard = maps.Clone(sc.Hard)
	}
	return &sc
}

// votes reports whether a question whose first proposal is first is voted
// on.
func (p *Pipeline) votes(first tool.Proposal) bool {
	sc := p.opts.SelfConsistency
	if d, ok := p.wall.Registry().Lookup(first.Tool); ok && d.Writes() {
		return false // each sample would be a write
	}
	return sc != nil && sc.Samples > 1 && sc.Hard[first.Tool]
}

// ballot is one executed sample.
type ballot struct {
	call   tool.Call
	result fact.Result
	// special: the sample's value was out of band and unchanged after its
	// one repair (see repair.go): it ships as a special cause if it wins.
	special bool
}

// ballotOf is the vote of a sample whose repair loop ended in e: the
// executed result when it passed, or when the loop gave up on a result
// the single-proposal path would ship (an empty table, a value out of
// band); nil, a vote for nothing, when it failed or its value lay outside
// the metric's domain.
func ballotOf(e loopEnd) *ballot {
	switch {
	case e.failed != nil:
		return nil
	case e.f == nil:
		return &ballot{call: e.call, result: e.result}
	case e.bandAgain:
		return &ballot{call: e.call, result: e.result, special: e.unchanged}
	case e.f.class == answer.ReasonImplausibleMagnitude && !e.f.band:
		return nil
	}
	return &ballot{call: e.call, result: e.result}
}

// cluster is a set of samples whose executed values are equal; first is
// its lowest-indexed member, the one the pipeline continues with.
type cluster struct {
	first ballot
	size  int
}

// tally clusters the executed samples (nil: a vote for nothing), in order
// of each cluster's first member.
func tally(ballots []*ballot) []cluster {
	var cs []cluster
next:
	for _, b := range ballots {
		if b == nil {
			continue
		}
		for i := range cs {
			if cs[i].first.result.Value.Equal(b.result.Value) {
				cs[i].size++
				continue next
			}
		}
		cs = append(cs, cluster{first: *b, size: 1})
	}
	return cs
}

// decide returns the index of the winning cluster, or -1 and the
// abstention detail (kind no_majority). Strictly, the winner holds more than half of n; with
// plurality, it is the unique largest cluster.
func decide(cs []cluster, n int, plurality bool) (int, string) {
	best, tied := -1, false
	for i, c := range cs {
		switch {
		case best < 0 || c.size > cs[best].size:
			best, tied = i, false
		case c.size == cs[best].size:
			tied = true
		}
	}
	top := 0
	if best >= 0 {
		top = cs[best].size
	}
	switch {
	case 2*top > n:
		return best, ""
	case plurality && best >= 0 && !tied:
		return best, ""
	case plurality && best >= 0:
		return -1, fmt.Sprintf("the largest clusters tie at %d of %d samples", top, n)
	}
	return -1, fmt.Sprintf("at most %d of %d samples agree; a strict majority needs %d", top, n, n/2+1)
}

// vote draws the remaining proposals for a question whose first proposal
// calls a hard tool, takes each through the wall and the executor, and
// continues with the winning sample's call and result through resolve,
// compose, grounding and staple, or abstains.
func (p *Pipeline) vote(ctx context.Context, question string, first tool.Proposal, rec *Record,
	compose func(fact.Result) (string, error)) answer.Answer {
	ctx, release := p.pin(ctx)
	defer release()
	sc := p.opts.SelfConsistency
	n := sc.Samples
	ballots := make([]*ballot, n)
	rp, retries, repairs := p.repairer()
	var (
		span     time.Duration
		attempts []answer.Attempt
	)
	for i := range n {
		prop := &first
		if i > 0 {
			var err error
			prop, err = p.prov.Select(provider.WithSample(ctx, i), question, p.menu)
			if err != nil {
				if rec.ErrorDetail == "" {
					rec.ErrorDetail = detail(fmt.Errorf("sample %d: %w", i, err))
				}
				if a, done := timedOut(ctx, rec, err, answer.StageSelect, nil); done {
					return p.attempted(a, attempts, rec)
				}
				continue
			}
			if prop == nil {
				continue
			}
		}
		srec := Record{ev: rec.ev}
		var (
			b      *ballot
			failed bool
		)
		if repairs {
			// Each sample is repaired on its own, under its own sample
			// index, within the same bound as a single proposal.
			e := p.repairLoop(provider.WithSample(ctx, i), question, *prop, &srec, rp, retries, &i)
			span += srec.Deterministic
			attempts = append(attempts, e.attempts...)
			b, failed = ballotOf(e), e.failed != nil
		} else {
			start := time.Now()
			call, result, f := p.execute(ctx, *prop, &srec)
			span += time.Since(start)
			if f == nil {
				b = &ballot{call: call, result: result}
			}
			failed = f != nil
		}
		// A sample cut short by the deadline is no vote for nothing: the
		// request times out rather than decide on fewer ballots.
		if a, done := timedOut(ctx, rec, nil, answer.StageExecute, nil); done {
			rec.Deterministic = span
			return p.attempted(a, attempts, rec)
		}
		if i == 0 {
			rec.Validation = srec.Validation
		}
		if failed && srec.ErrorDetail != "" && rec.ErrorDetail == "" {
			rec.ErrorDetail = fmt.Sprintf("sample %d: %s", i, srec.ErrorDetail)
		}
		ballots[i] = b
	}
	rec.Deterministic = span

	cs := tally(ballots)
	rec.SCSamples = n
	for _, c := range cs {
		rec.SCClusters = append(rec.SCClusters, c.size)
	}
	slices.SortFunc(rec.SCClusters, func(a, b int) int { return b - a })
	if len(cs) > 0 {
		rec.SCAgreement = float64(rec.SCClusters[0]) / float64(n)
	}

	win, reason := decide(cs, n, sc.AllowPlurality)
	if win < 0 {
		return p.attempted(answer.Abstain(answer.ReasonNoMajority, reason), attempts, rec)
	}
	rec.Validation = "passed"
	w := cs[win].first
	a := p.finish(ctx, question, w.call, w.result, rec, compose)
	if w.special && a.Outcome() == answer.Answered {
		a = a.WithSpecialCause(specialCauseNote)
	}
	return p.attempted(a, attempts, rec)
}
