package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/calibration"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/internal/strictjson"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/noisy"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/stats"
)

// Calibration defaults (see CalibrateOptions).
const (
	DefaultNoiseRate  = 0.2
	DefaultSeeds      = 40
	DefaultTarget     = 0.98
	DefaultConfidence = 0.95
	DefaultMinSupport = 30
	DefaultCalSamples = pipeline.DefaultSamples
	CurveGlobal       = "global"
)

// CalibrateOptions configures Calibrate. Only Gold is required.
type CalibrateOptions struct {
	Gold *GoldSet
	// Split chooses the calibration items; nil means CalibrationSplit.
	Split func(index int, it Item) bool
	// Inner is the provider the noisy instrument wraps; nil means the
	// rules provider.
	Inner provider.Provider
	// NoiseRate is the rate of every fault of the noisy instrument; 0
	// means DefaultNoiseRate (a noiseless run would calibrate nothing).
	NoiseRate float64
	// Seeds are the instrument's seeds, one pass of the split each; nil
	// means 1..DefaultSeeds. One pass of ~25 items cannot reach MinSupport.
	Seeds []uint64
	// Samples is the self-consistency sample count, on for every tool so
	// every class has an agreement signal; 0 means DefaultCalSamples.
	Samples int
	// Target, Confidence and MinSupport are the bar (0: the defaults
	// 0.98, 0.95 and 30): a threshold qualifies when the Wilson lower
	// bound of its accuracy at Confidence is at least Target with at
	// least MinSupport answered items.
	Target     float64
	Confidence float64
	MinSupport int
	// Commit is recorded in the policy.
	Commit string
	// Open builds an engine (required).
	Open func(ctx context.Context, opts engine.Options) (*engine.Engine, error)
}

// CalibrationSplit is the default calibration split: the in-coverage
// items at an even (0-based) position in the gold file. The odd positions
// are left for evaluating the policy.
func CalibrationSplit(index int, it Item) bool {
	return it.Coverage == In && index%2 == 0
}

// Calibration is everything a calibration run found. When OK is false no
// threshold qualified globally and Policy is nil; Record (the curves and
// how they were made) is there either way.
type Calibration struct {
	OK     bool
	Policy *calibration.Policy // nil unless OK
	Record CurveRecord
}

// CurveRecord is the record of a calibration run, committed as curve.json
// beside the policy, and written also when no threshold qualifies.
type CurveRecord struct {
	SuiteVersion   string  `json:"suite_version"`
	DatasetVersion string  `json:"dataset_version"`
	Provider       string  `json:"provider"` // the instrument, with its rates and seeds
	Commit         string  `json:"commit"`
	NoiseRate      float64 `json:"noise_rate"`
	Seeds          int     `json:"seeds"`
	Samples        int     `json:"self_consistency_samples"`
	Target         float64 `json:"target"`
	Confidence     float64 `json:"confidence"`
	MinSupport     int     `json:"min_support"`
	// SplitItems is the number of split items asked per seed; Answered
	// the answered (or absence) outcomes over all seeds, which the curves
	// are built from.
	SplitItems int  `json:"split_items"`
	Answered   int  `json:"answered"`
	Qualified  bool `json:"qualified"`
	// Curves holds the risk-coverage points, "global" and per class (only
	// the classes with answered items).
	Curves map[string][]stats.Point `json:"curves"`
	// Voting compares the strict-majority vote (the default) with the
	// plurality vote (measurement only) over the same asks.
	Voting map[string]VotingStats `json:"voting"`
}

// VotingStats is how one voting rule did over the calibration asks.
type VotingStats struct {
	Asked          int     `json:"asked"`
	Answered       int     `json:"answered"`
	Correct        int     `json:"correct"`
	Accuracy       float64 `json:"accuracy"`        // correct / answered
	AbstentionRate float64 `json:"abstention_rate"` // abstained / asked
}

// Voting rules.
const (
	VotingStrict    = "strict"
	VotingPlurality = "plurality"
)

// Calibrate runs the calibration split of the gold set through engines
// over the noisy instrument (one pass per seed), collects the confidence
// score and the correctness of every answered item (outcome answered or
// absence), and selects, on the risk-coverage curve, the lowest threshold
// whose accuracy has a Wilson lower bound of at least the target with at
// least MinSupport answered items: per class where a class qualifies on
// its own, globally otherwise. A class is that of the tool the answer
// called (calibration.ClassOfKind), the class the pipeline applies the
// threshold by. When the global curve has no qualifying threshold it
// returns ok false and no policy: it never lowers the bar.
func Calibrate(ctx context.Context, opts CalibrateOptions) (*calibration.Policy, bool, error) {
	c, err := RunCalibration(ctx, opts)
	if err != nil {
		return nil, false, err
	}
	return c.Policy, c.OK, nil
}

// RunCalibration is Calibrate, returning the curves too (also when no
// threshold qualifies).
func RunCalibration(ctx context.Context, opts CalibrateOptions) (*Calibration, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	var items []Item
	for i, it := range o.Gold.Items {
		if o.Split(i, it) {
			items = append(items, it)
		}
	}
	if len(items) == 0 {
		return nil, errors.New("calibrate: the split holds no items")
	}

	var (
		scores  []float64
		correct []bool
		classOf []string
		name    string
	)
	voting := map[string]*votingCount{VotingStrict: {}, VotingPlurality: {}}
	for _, seed := range o.Seeds {
		if err := comparePlurality(ctx, o, seed, items, voting[VotingPlurality]); err != nil {
			return nil, err
		}
		p, err := noisy.New(o.Inner, noisy.Options{Seed: seed, Rates: noisy.Uniform(o.NoiseRate)})
		if err != nil {
			return nil, fmt.Errorf("calibrate: %w", err)
		}
		if name == "" {
			name = seedsName(p.Name(), seed, o.Seeds)
		}
		e, err := o.Open(ctx, engine.Options{
			Provider:        p,
			SelfConsistency: &pipeline.SelfConsistency{Samples: o.Samples, All: true},
		})
		if err != nil {
			return nil, fmt.Errorf("calibrate: seed %d: %w", seed, err)
		}
		if e.DatasetVersion != o.Gold.DatasetVersion {
			e.Close()
			return nil, fmt.Errorf("calibrate: the gold set is for dataset %s, the store is %s", o.Gold.DatasetVersion, e.DatasetVersion)
		}
		for _, it := range items {
			if err := ctx.Err(); err != nil {
				e.Close()
				return nil, fmt.Errorf("calibrate: %w", err)
			}
			a := e.Pipeline.Ask(ctx, it.Question)
			voting[VotingStrict].add(it, a)
			if out := a.Outcome(); out != answer.Answered && out != answer.Absence {
				continue
			}
			conf, ok := a.Confidence()
			if !ok {
				e.Close()
				return nil, fmt.Errorf("calibrate: seed %d: item %s: an answer without a confidence", seed, it.ID)
			}
			scores = append(scores, conf.Score)
			correct = append(correct, mismatch(it, a) == "")
			classOf = append(classOf, calibration.ClassOfKind(o.Gold.kindOf(a.Tool())))
		}
		e.Close()
	}

	c := &Calibration{Record: CurveRecord{
		SuiteVersion: o.Gold.SuiteVersion, DatasetVersion: o.Gold.DatasetVersion,
		Provider: name, Commit: o.Commit, NoiseRate: o.NoiseRate, Seeds: len(o.Seeds), Samples: o.Samples,
		Target: o.Target, Confidence: o.Confidence, MinSupport: o.MinSupport,
		SplitItems: len(items), Answered: len(scores), Curves: map[string][]stats.Point{},
		Voting: map[string]VotingStats{VotingStrict: voting[VotingStrict].stats(), VotingPlurality: voting[VotingPlurality].stats()},
	}}
	if len(scores) == 0 {
		return c, nil // nothing answered: no curve, no policy
	}
	global, err := stats.RiskCoverage(scores, correct, o.Confidence)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	c.Record.Curves[CurveGlobal] = global
	pol := &calibration.Policy{
		SuiteVersion: o.Gold.SuiteVersion, DatasetVersion: o.Gold.DatasetVersion,
		Provider: name, Commit: o.Commit,
		Target: o.Target, Confidence: o.Confidence, MinSupport: o.MinSupport,
		Classes: map[string]calibration.Threshold{}, Curves: c.Record.Curves,
	}
	for _, class := range calibration.Classes {
		var s []float64
		var k []bool
		for i := range scores {
			if classOf[i] == class {
				s, k = append(s, scores[i]), append(k, correct[i])
			}
		}
		if len(s) == 0 {
			continue
		}
		pts, err := stats.RiskCoverage(s, k, o.Confidence)
		if err != nil {
			return nil, fmt.Errorf("calibrate: class %s: %w", class, err)
		}
		c.Record.Curves[class] = pts
		if p, ok := stats.SelectThreshold(pts, o.Target, o.MinSupport); ok {
			pol.Classes[class] = threshold(p)
		}
	}
	p, ok := stats.SelectThreshold(global, o.Target, o.MinSupport)
	if !ok {
		return c, nil
	}
	pol.Global = threshold(p)
	if err := pol.Validate(); err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	c.OK, c.Policy, c.Record.Qualified = true, pol, true
	return c, nil
}

type votingCount struct{ asked, answered, correct, abstained int }

func (v *votingCount) add(it Item, a answer.Answer) {
	v.asked++
	switch a.Outcome() {
	case answer.Answered, answer.Absence:
		v.answered++
		if mismatch(it, a) == "" {
			v.correct++
		}
	case answer.Abstained:
		v.abstained++
	}
}

func (v *votingCount) stats() VotingStats {
	s := VotingStats{Asked: v.asked, Answered: v.answered, Correct: v.correct}
	if v.answered > 0 {
		s.Accuracy = float64(v.correct) / float64(v.answered)
	}
	if v.asked > 0 {
		s.AbstentionRate = float64(v.abstained) / float64(v.asked)
	}
	return s
}

// comparePlurality asks the same items with the same instrument and seed
// under the plurality vote, for the report's comparison; its answers
// never reach a curve or a policy.
func comparePlurality(ctx context.Context, o CalibrateOptions, seed uint64, items []Item, v *votingCount) error {
	p, err := noisy.New(o.Inner, noisy.Options{Seed: seed, Rates: noisy.Uniform(o.NoiseRate)})
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	e, err := o.Open(ctx, engine.Options{
		Provider:        p,
		SelfConsistency: &pipeline.SelfConsistency{Samples: o.Samples, All: true, AllowPlurality: true},
	})
	if err != nil {
		return fmt.Errorf("calibrate: seed %d: %w", seed, err)
	}
	defer e.Close()
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("calibrate: %w", err)
		}
		v.add(it, e.Pipeline.Ask(ctx, it.Question))
	}
	return nil
}

// VotingTable is the markdown comparison of the voting rules in r.
func VotingTable(r CurveRecord) string {
	st, pl := r.Voting[VotingStrict], r.Voting[VotingPlurality]
	if st.Asked == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nStrict majority (the default) against plurality (measurement only), same instrument, seeds and asks:\n\n")
	b.WriteString("| vote | asked | answered | accuracy | abstention rate |\n|---|---:|---:|---:|---:|\n")
	for _, row := range []struct {
		name string
		v    VotingStats
	}{{"strict", st}, {"plurality", pl}} {
		fmt.Fprintf(&b, "| %s | %d | %d | %.4f | %.4f |\n", row.name, row.v.Asked, row.v.Answered, row.v.Accuracy, row.v.AbstentionRate)
	}
	fmt.Fprintf(&b, "| plurality − strict | | %+d | %+.4f | %+.4f |\n", pl.Answered-st.Answered, pl.Accuracy-st.Accuracy, pl.AbstentionRate-st.AbstentionRate)
	return b.String()
}

// seedsName replaces the seed in the instrument's name by the seeds of the
// whole run: "noisy(rules)[rate=0.2,seeds=1..40]".
func seedsName(name string, seed uint64, seeds []uint64) string {
	text := fmt.Sprint(seeds)
	if n := len(seeds); n > 2 && seeds[n-1]-seeds[0] == uint64(n-1) && slices.IsSorted(seeds) {
		text = fmt.Sprintf("%d..%d", seeds[0], seeds[n-1])
	} else {
		text = strings.ReplaceAll(strings.Trim(text, "[]"), " ", ",")
	}
	old := "seed=" + strconv.FormatUint(seed, 10) + "]"
	if strings.HasSuffix(name, old) {
		return strings.TrimSuffix(name, old) + "seeds=" + text + "]"
	}
	return name + "[seeds=" + text + "]"
}

func threshold(p stats.Point) calibration.Threshold {
	return calibration.Threshold{Threshold: p.Threshold, Coverage: p.Coverage, Accuracy: p.Accuracy, WilsonLower: p.WilsonLower, Support: p.Support}
}

func (o CalibrateOptions) withDefaults() (CalibrateOptions, error) {
	if o.Gold == nil {
		return o, errors.New("calibrate: no gold set")
	}
	if o.Split == nil {
		o.Split = CalibrationSplit
	}
	if o.Inner == nil {
		o.Inner = rules.Provider{}
	}
	if o.NoiseRate == 0 {
		o.NoiseRate = DefaultNoiseRate
	}
	if o.Seeds == nil {
		for s := uint64(1); s <= DefaultSeeds; s++ {
			o.Seeds = append(o.Seeds, s)
		}
	}
	if len(o.Seeds) == 0 {
		return o, errors.New("calibrate: no seeds")
	}
	if o.Samples == 0 {
		o.Samples = DefaultCalSamples
	}
	if err := (pipeline.SelfConsistency{Samples: o.Samples}).Validate(); err != nil {
		return o, fmt.Errorf("calibrate: %w", err)
	}
	if o.Target == 0 {
		o.Target = DefaultTarget
	}
	if o.Confidence == 0 {
		o.Confidence = DefaultConfidence
	}
	if o.MinSupport == 0 {
		o.MinSupport = DefaultMinSupport
	}
	if !(o.Target > 0 && o.Target < 1) || !(o.Confidence > 0 && o.Confidence < 1) || o.MinSupport < 1 {
		return o, errors.New("calibrate: target and confidence must be in (0, 1), min support at least 1")
	}
	if o.Open == nil {
		return o, errors.New("calibrate: no engine opener")
	}
	return o, nil
}

// PolicyTable renders a policy's thresholds as a markdown table: one row
// per class in calibration.Classes order (its own threshold, or "global"
// when it falls back), then the global row. Its output is what the README
// shows between the calibration markers.
func PolicyTable(p *calibration.Policy) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Provider `%s`, suite `%s`, dataset `%s`, commit `%s`; target %s at %s%% confidence, min support %d.\n\n",
		p.Provider, p.SuiteVersion, p.DatasetVersion, p.Commit, ftoa(p.Target), ftoa(p.Confidence*100), p.MinSupport)
	b.WriteString("| class | threshold | coverage | accuracy | Wilson lower | support |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|\n")
	row := func(name string, t calibration.Threshold) {
		fmt.Fprintf(&b, "| %s | %.4f | %.3f | %.4f | %.4f | %d |\n", name, t.Threshold, t.Coverage, t.Accuracy, t.WilsonLower, t.Support)
	}
	for _, c := range calibration.Classes {
		if t, ok := p.Classes[c]; ok {
			row(c, t)
		} else {
			fmt.Fprintf(&b, "| %s | global (%.4f) | – | – | – | %d answered |\n", c, p.Global.Threshold, curveSupport(p.Curves[c]))
		}
	}
	row("**global**", p.Global)
	extra := slices.Sorted(maps.Keys(p.Classes))
	extra = slices.DeleteFunc(extra, func(c string) bool { return slices.Contains(calibration.Classes, c) })
	for _, c := range extra {
		row(c, p.Classes[c])
	}
	return b.String()
}

// curveSupport is the number of items a curve was built from: the support
// of its lowest-threshold point.
func curveSupport(pts []stats.Point) int {
	n := 0
	for _, p := range pts {
		n = max(n, p.Support)
	}
	return n
}

func ftoa(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", f), "0"), ".")
}

// NoPolicyTable renders, as markdown, what a calibration run that
// qualified no threshold found: per curve, the answered items and the
// point with the highest Wilson lower bound among those with at least
// min_support answered (or, when none has, the best point of all).
func NoPolicyTable(r CurveRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Provider `%s`, suite `%s`, dataset `%s`, commit `%s`; target %s at %s%% confidence, min support %d.\n\n",
		r.Provider, r.SuiteVersion, r.DatasetVersion, r.Commit, ftoa(r.Target), ftoa(r.Confidence*100), r.MinSupport)
	fmt.Fprintf(&b, "**No threshold qualifies: no policy is committed.** %d split items per seed, %d answered over %d seeds. Best point of each curve:\n\n",
		r.SplitItems, r.Answered, r.Seeds)
	b.WriteString("| curve | answered | threshold | coverage | accuracy | Wilson lower | support |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, name := range append([]string{CurveGlobal}, calibration.Classes...) {
		pts, ok := r.Curves[name]
		if !ok {
			fmt.Fprintf(&b, "| %s | 0 | – | – | – | – | – |\n", name)
			continue
		}
		best, found := stats.Point{}, false
		for _, enough := range []bool{true, false} {
			for _, p := range pts {
				if (!enough || p.Support >= r.MinSupport) && p.Support > 0 && (!found || p.WilsonLower > best.WilsonLower) {
					best, found = p, true
				}
			}
			if found {
				break
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %.4f | %.3f | %.4f | %.4f | %d |\n", name, curveSupport(pts), best.Threshold, best.Coverage, best.Accuracy, best.WilsonLower, best.Support)
	}
	return b.String()
}

// Artifact file names in the calibration directory.
const (
	PolicyFile = "policy.json"
	CurveFile  = "curve.json"
	SVGFile    = "risk-coverage.svg"
)

// WriteCalibration writes the artifact of c into dir: curve.json and
// risk-coverage.svg (the global curve, titled with the instrument) always,
// policy.json only when a threshold qualified. A policy.json left from an
// earlier run is removed when none qualifies now: the directory never
// holds a policy its curve does not support.
func WriteCalibration(dir string, c *Calibration) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write calibration: %w", err)
	}
	write := func(name string, v any) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("write calibration: %w", err)
		}
		return os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644)
	}
	if err := write(CurveFile, c.Record); err != nil {
		return err
	}
	if g := c.Record.Curves[CurveGlobal]; len(g) > 0 {
		title := "Risk-coverage, " + c.Record.Provider + " (test instrument)"
		if err := os.WriteFile(filepath.Join(dir, SVGFile), stats.SVG(g, title), 0o644); err != nil {
			return fmt.Errorf("write calibration: %w", err)
		}
	}
	if c.OK {
		return write(PolicyFile, c.Policy)
	}
	if err := os.Remove(filepath.Join(dir, PolicyFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write calibration: %w", err)
	}
	return nil
}

// ReadmeTable returns the markdown the README shows for the calibration
// artifact in dir: PolicyTable of policy.json when there is one, else
// NoPolicyTable of curve.json.
func ReadmeTable(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, CurveFile))
	if err != nil {
		return "", err
	}
	var r CurveRecord
	if err := strictjson.Decode(b, &r, nil); err != nil {
		return "", fmt.Errorf("read %s: %w", CurveFile, err)
	}
	if f, err := os.Open(filepath.Join(dir, PolicyFile)); err == nil {
		defer f.Close()
		p, err := calibration.Parse(f)
		if err != nil {
			return "", err
		}
		return PolicyTable(p) + VotingTable(r), nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return NoPolicyTable(r) + VotingTable(r), nil
}
