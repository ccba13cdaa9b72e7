package noisy

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/tool"
)

// Errors New returns.
var (
	ErrRate    = errors.New("must be between 0 and 1")
	ErrNoInner = errors.New("no inner provider")
)

// Rates are the probabilities, each in [0, 1], that one call suffers each
// fault. They are independent: at Uniform(0.2) a proposal escapes all
// five select faults with probability 0.8^5.
type Rates struct {
	WrongTool         float64 // another tool from the menu
	WrongParam        float64 // one parameter changed to another in-domain value
	HallucinatedTool  float64 // a tool name not on the menu
	RawQuery          float64 // a parameter value carrying query syntax
	WrongAbstain      float64 // no proposal where the inner provider made one
	FabricatedNumeral float64 // one number in the sentence replaced
	TransposedNumeral float64 // two adjacent digits of one number swapped
	// Metric-selection faults (see metric.go), on query_metric proposals
	// only; Uniform leaves them 0, MetricUniform sets them.
	WrongMetric    float64 // another declared metric
	WrongDimension float64 // a grouping dimension changed or added
	WrongWindow    float64 // the window moved back
}

// Uniform returns Rates with every rate set to rate (the CLI's --noise).
func Uniform(rate float64) Rates {
	return Rates{WrongTool: rate, WrongParam: rate, HallucinatedTool: rate, RawQuery: rate,
		WrongAbstain: rate, FabricatedNumeral: rate, TransposedNumeral: rate}
}

type rateField struct {
	field string // the Go field name, for errors
	key   string // the fault name: stream suffix and Name key
	rate  float64
}

// fields lists the rates in a fixed order.
func (r Rates) fields() []rateField {
	return []rateField{
		{"WrongTool", "wrong_tool", r.WrongTool},
		{"WrongParam", "wrong_param", r.WrongParam},
		{"HallucinatedTool", "hallucinated_tool", r.HallucinatedTool},
		{"RawQuery", "raw_query", r.RawQuery},
		{"WrongAbstain", "wrong_abstain", r.WrongAbstain},
		{"FabricatedNumeral", "fabricated_numeral", r.FabricatedNumeral},
		{"TransposedNumeral", "transposed_numeral", r.TransposedNumeral},
		{"WrongMetric", "wrong_metric", r.WrongMetric},
		{"WrongDimension", "wrong_dimension", r.WrongDimension},
		{"WrongWindow", "wrong_window", r.WrongWindow},
	}
}

// Validate reports the first rate outside [0, 1] (NaN included), naming
// the field and never the value.
func (r Rates) Validate() error {
	for _, f := range r.fields() {
		if !(f.rate >= 0 && f.rate <= 1) {
			return fmt.Errorf("rate %s: %w", f.field, ErrRate)
		}
	}
	return nil
}

// Options configure a noisy provider.
type Options struct {
	Seed  uint64
	Rates Rates
}

// Provider wraps another provider and makes mistakes on purpose.
type Provider struct {
	inner provider.Provider
	seed  uint64
	rates Rates
	name  string
}

var _ provider.Provider = (*Provider)(nil)

// New returns a noisy provider around inner.
func New(inner provider.Provider, opts Options) (*Provider, error) {
	if inner == nil {
		return nil, fmt.Errorf("new noisy provider: %w", ErrNoInner)
	}
	if err := opts.Rates.Validate(); err != nil {
		return nil, fmt.Errorf("new noisy provider: %w", err)
	}
	return &Provider{inner: inner, seed: opts.Seed, rates: opts.Rates, name: name(inner.Name(), opts)}, nil
}

// Name returns "noisy(<inner>)[rate=R,seed=S]" when every rate is R, and
// otherwise lists each non-zero rate by fault name, e.g.
// "noisy(rules)[wrong_tool=0.1,raw_query=0.05,seed=1]".
func (p *Provider) Name() string { return p.name }

func name(inner string, opts Options) string {
	fs := opts.Rates.fields()
	base := opts.Rates
	base.WrongMetric, base.WrongDimension, base.WrongWindow = 0, 0, 0
	m := opts.Rates.WrongMetric
	metricUniform := opts.Rates.WrongDimension == m && opts.Rates.WrongWindow == m
	var parts []string
	if Uniform(fs[0].rate) == base && metricUniform {
		if fs[0].rate != 0 || m == 0 {
			parts = append(parts, "rate="+formatRate(fs[0].rate))
		}
		if m != 0 {
			parts = append(parts, "metric_rate="+formatRate(m))
		}
	} else {
		for _, f := range fs {
			if f.rate != 0 {
				parts = append(parts, f.key+"="+formatRate(f.rate))
			}
		}
	}
	parts = append(parts, "seed="+strconv.FormatUint(opts.Seed, 10))
	return "noisy(" + inner + ")[" + strings.Join(parts, ",") + "]"
}

func formatRate(r float64) string { return strconv.FormatFloat(r, 'g', -1, 64) }

// The stream names, one per fault.
const (
	streamWrongTool         = "noisy/select/wrong_tool"
	streamWrongParam        = "noisy/select/wrong_param"
	streamRawQuery          = "noisy/select/raw_query"
	streamHallucinatedTool  = "noisy/select/hallucinated_tool"
	streamWrongAbstain      = "noisy/select/wrong_abstain"
	streamFabricatedNumeral = "noisy/compose/fabricated_numeral"
	streamTransposedNumeral = "noisy/compose/transposed_numeral"
)

// stream returns the named stream for one call, keyed by key: a PCG
// seeded with the seed and the FNV-1a hash of the name and the key, as
// retail/demo seeds its streams.
func (p *Provider) stream(name, key string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return rand.New(rand.NewPCG(p.seed, h.Sum64()))
}

// fires draws a stream's first number and reports whether the fault
// happens. The draw is made whatever the rate, so a stream's later draws
// never depend on it.
func fires(r *rand.Rand, rate float64) bool { return r.Float64() < rate }

// Select asks the inner provider, then perturbs its proposal. Its streams
// are keyed by the question and the sample index ctx carries (see
// selectKey), so the samples of one question a self-consistency vote
// draws suffer independent faults, and a run still replays exactly.
func (p *Provider) Select(ctx context.Context, question string, menu []tool.Def) (*tool.Proposal, error) {
	in, err := p.inner.Select(ctx, question, menu)
	if err != nil || in == nil {
		return in, err
	}
	prop := tool.Proposal{Tool: in.Tool, Params: maps.Clone(in.Params), Asked: in.Asked}
	return p.perturb(p.decideSelect(selectKey(ctx, question)), prop, question, menu), nil
}

// decide reports whether the fault of a stream fires at rate, and the
// stream its application draws from.
type decide func(stream string, rate float64) (*rand.Rand, bool)

// decideSelect is Select's decision: the first draw of the fault's own
// stream keyed by key.
func (p *Provider) decideSelect(key string) decide {
	return func(name string, rate float64) (*rand.Rand, bool) {
		r := p.stream(name, key)
		return r, fires(r, rate)
	}
}

// perturb applies the select faults to prop, each when decide says so;
// nil is a wrong abstention.
func (p *Provider) perturb(d decide, prop tool.Proposal, question string, menu []tool.Def) *tool.Proposal {
	if r, ok := d(streamWrongTool, p.rates.WrongTool); ok {
		prop = wrongTool(r, prop, question, menu)
	}
	if r, ok := d(streamWrongParam, p.rates.WrongParam); ok {
		prop = wrongParam(r, prop, question, menu)
	}
	prop = p.metricFaults(d, prop, menu)
	if r, ok := d(streamRawQuery, p.rates.RawQuery); ok {
		prop = rawQuery(r, prop, menu)
	}
	if r, ok := d(streamHallucinatedTool, p.rates.HallucinatedTool); ok {
		prop = hallucinate(r, prop, menu)
	}
	if _, ok := d(streamWrongAbstain, p.rates.WrongAbstain); ok {
		return nil
	}
	return &prop
}

// selectKey is the question, and, for a sample index other than 0 (see
// provider.WithSample), a NUL, "sample=" and the index: samples of one
// question draw independent noise, and sample 0 (or none) draws the noise
// of an unsampled call.
func selectKey(ctx context.Context, question string) string {
	if i, ok := provider.SampleFrom(ctx); ok && i != 0 {
		return question + "\x00sample=" + strconv.Itoa(i)
	}
	return question
}

// Compose asks the inner provider, then perturbs the numbers in its
// sentence.
func (p *Provider) Compose(ctx context.Context, in provider.ComposeInput) (string, error) {
	s, err := p.inner.Compose(ctx, in)
	if err != nil {
		return s, err
	}
	key := composeKey(in)
	avoid := append(allNumbers(in.Question), allNumbers(s)...)
	if r := p.stream(streamFabricatedNumeral, key); fires(r, p.rates.FabricatedNumeral) {
		s = fabricate(r, s, avoid)
	}
	if r := p.stream(streamTransposedNumeral, key); fires(r, p.rates.TransposedNumeral) {
		s = transpose(r, s, avoid)
	}
	return s, nil
}

// composeKey is the question, the tool and the sorted arguments.
func composeKey(in provider.ComposeInput) string {
	var b strings.Builder
	b.WriteString(in.Question)
	b.WriteByte(0)
	b.WriteString(in.Tool)
	for _, k := range slices.Sorted(maps.Keys(in.Args)) {
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(in.Args[k])
	}
	return b.String()
}

// ---- select faults ----

var (
	timestampRE = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z`)
)

const tsLayout = "2006-01-02T15:04:05Z"

// fallbackTimestamp is used only when neither the proposal nor the
// question holds a timestamp: the end of the demo store's week.
const fallbackTimestamp = "2026-01-08T00:00:00Z"

// hallucinatedNames are tool names a model might invent for this domain.
var hallucinatedNames = []string{
	"get_revenue", "get_stock_level", "get_inventory", "get_sales", "get_product_price",
	"get_store_headcount", "list_suppliers", "forecast_demand", "count_stores", "query_events",
}

// rawQueryPayloads are appended to a value; each carries query syntax.
var rawQueryPayloads = []string{
	`' OR '1'='1`,
	`'; DROP TABLE events; --`,
	`" OR ""="`,
	`' UNION SELECT event_id FROM events --`,
}

func lookup(name string, menu []tool.Def) (tool.Def, bool) {
	for _, d := range menu {
		if d.Name == name {
			return d, true
		}
	}
	return tool.Def{}, false
}

// wrongTool swaps the tool for another on the menu, with plausible
// parameters.
func wrongTool(r *rand.Rand, prop tool.Proposal, question string, menu []tool.Def) tool.Proposal {
	var others []tool.Def
	for _, d := range menu {
		if d.Name != prop.Tool {
			others = append(others, d)
		}
	}
	if len(others) == 0 {
		return prop
	}
	d := others[r.IntN(len(others))]
	params := make(map[string]any, len(d.Params))
	for _, q := range d.Params {
		params[q.Name] = plausible(r, q, prop, question)
	}
	return tool.Proposal{Tool: d.Name, Params: params}
}

// plausible returns a value for q: the old proposal's value of the same
// name, or one drawn from q's domain as the old proposal and the question
// suggest.
func plausible(r *rand.Rand, q tool.Param, old tool.Proposal, question string) any {
	if v, ok := old.Params[q.Name]; ok {
		return v
	}
	switch q.Kind {
	case tool.EntityID:
		re, synth := idPattern(q)
		var ids []string
		for _, k := range slices.Sorted(maps.Keys(old.Params)) {
			if s, ok := old.Params[k].(string); ok && re.MatchString(s) && !slices.Contains(ids, s) {
				ids = append(ids, s)
			}
		}
		for _, s := range re.FindAllString(question, -1) {
			if !slices.Contains(ids, s) {
				ids = append(ids, s)
			}
		}
		if len(ids) > 0 {
			return ids[r.IntN(len(ids))]
		}
		return synth(1 + r.IntN(9))
	case tool.Timestamp:
		base := ""
		for _, k := range []string{"as_of", "end", "start"} {
			if s, ok := old.Params[k].(string); ok && base == "" {
				base = s
			}
		}
		if base == "" {
			base = timestampRE.FindString(question)
		}
		if base == "" {
			base = fallbackTimestamp
		}
		if q.Name == "start" {
			if t, err := time.Parse(tsLayout, base); err == nil {
				return t.Add(-24 * time.Hour).Format(tsLayout)
			}
		}
		return base
	case tool.Enum:
		enum := q.Values
		for _, k := range slices.Sorted(maps.Keys(old.Params)) {
			if s, ok := old.Params[k].(string); ok && slices.Contains(enum, s) {
				return s
			}
		}
		if len(enum) > 0 {
			return enum[r.IntN(len(enum))]
		}
	}
	return ""
}

// idPattern returns the regular expression that finds q's ids in a text
// (q's pattern without its anchors, between word boundaries) and a
// function writing the n-th synthetic id: for a pattern of a literal
// prefix and k digits ("^st-[0-9]{3}$"), the prefix and n in k digits;
// for any other pattern, "" (which the wall refuses).
func idPattern(q tool.Param) (*regexp.Regexp, func(n int) string) {
	inner := strings.TrimSuffix(strings.TrimPrefix(q.Pattern, "^"), "$")
	re, err := regexp.Compile(`\b(?:` + inner + `)\b`)
	if err != nil {
		re = regexp.MustCompile(`$.^`) // matches nothing
	}
	synth := func(int) string { return "" }
	if full, err := regexp.Compile(q.Pattern); err == nil {
		prefix, _ := full.LiteralPrefix()
		if m := digitsRE.FindStringSubmatch(strings.TrimPrefix(inner, regexp.QuoteMeta(prefix))); m != nil {
			width, _ := strconv.Atoi(m[1])
			synth = func(n int) string { return fmt.Sprintf("%s%0*d", prefix, width, n) }
		}
	}
	return re, synth
}

// digitsRE matches the rest of an id pattern that is k digits.
var digitsRE = regexp.MustCompile(`^\[0-9\]\{([1-9])\}$`)

// wrongParam changes one parameter to another in-domain value.
func wrongParam(r *rand.Rand, prop tool.Proposal, question string, menu []tool.Def) tool.Proposal {
	d, ok := lookup(prop.Tool, menu)
	if !ok {
		return prop
	}
	var candidates []tool.Param
	for _, q := range d.Params {
		if s, ok := prop.Params[q.Name].(string); ok && hasAlternative(q, s) {
			candidates = append(candidates, q)
		}
	}
	if len(candidates) == 0 {
		return prop
	}
	q := candidates[r.IntN(len(candidates))]
	prop.Params[q.Name] = alternative(r, q, prop.Params[q.Name].(string), question)
	return prop
}

func hasAlternative(q tool.Param, cur string) bool {
	switch q.Kind {
	case tool.EntityID:
		return true
	case tool.Timestamp:
		_, err := time.Parse(tsLayout, cur)
		return err == nil
	case tool.Enum:
		return len(q.Values) > 1 || !slices.Contains(q.Values, cur)
	}
	return false
}

// alternative returns a value of q's domain other than cur. hasAlternative
// must hold.
func alternative(r *rand.Rand, q tool.Param, cur, question string) string {
	switch q.Kind {
	case tool.EntityID:
		re, synth := idPattern(q)
		var seen []string
		for _, s := range re.FindAllString(question, -1) {
			if s != cur && !slices.Contains(seen, s) {
				seen = append(seen, s)
			}
		}
		if len(seen) > 0 && r.IntN(2) == 0 {
			return seen[r.IntN(len(seen))]
		}
		var pool []string
		for n := 1; n <= 9; n++ {
			if id := synth(n); id != cur {
				pool = append(pool, id)
			}
		}
		return pool[r.IntN(len(pool))]
	case tool.Timestamp:
		t, _ := time.Parse(tsLayout, cur)
		shift := 24 * time.Hour
		switch {
		case q.Name == "start":
			shift = -shift // keeps start <= end
		case q.Name == "end":
		case r.IntN(2) == 0:
			shift = -shift
		}
		return t.Add(shift).Format(tsLayout)
	default: // Enum
		var pool []string
		for _, v := range q.Values {
			if v != cur {
				pool = append(pool, v)
			}
		}
		return pool[r.IntN(len(pool))]
	}
}

// rawQuery appends query syntax to one parameter value.
func rawQuery(r *rand.Rand, prop tool.Proposal, menu []tool.Def) tool.Proposal {
	var names []string
	if d, ok := lookup(prop.Tool, menu); ok {
		for _, q := range d.Params {
			if _, ok := prop.Params[q.Name]; ok {
				names = append(names, q.Name)
			}
		}
	}
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(prop.Params))
	}
	if len(names) == 0 {
		return prop
	}
	k := names[r.IntN(len(names))]
	prop.Params[k] = fmt.Sprint(prop.Params[k]) + rawQueryPayloads[r.IntN(len(rawQueryPayloads))]
	return prop
}

// hallucinate renames the tool to one that is not on the menu.
func hallucinate(r *rand.Rand, prop tool.Proposal, menu []tool.Def) tool.Proposal {
	var pool []string
	for _, n := range hallucinatedNames {
		if _, ok := lookup(n, menu); !ok {
			pool = append(pool, n)
		}
	}
	if len(pool) == 0 {
		return prop
	}
	prop.Tool = pool[r.IntN(len(pool))]
	return prop
}

// ---- compose faults ----

var (
	// maskRE matches timestamps, dates and identifiers: digits that are
	// not value numerals.
	maskRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)?|[A-Za-z][A-Za-z0-9_]*-\d+`)
	// numberRE matches a number: digits with optional thousands
	// separators and decimals.
	numberRE = regexp.MustCompile(`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`)
)

// numeral is a value numeral found in a sentence.
type numeral struct {
	start, end int // byte offsets
	mant       int64
	decimals   int
	commas     bool
}

func (n numeral) value() float64 { return float64(n.mant) / math.Pow10(n.decimals) }

// parseNumber reads a numberRE match.
func parseNumber(text string) (numeral, bool) {
	n := numeral{commas: strings.Contains(text, ",")}
	digits := strings.ReplaceAll(text, ",", "")
	if i := strings.IndexByte(digits, '.'); i >= 0 {
		n.decimals = len(digits) - i - 1
		digits = digits[:i] + digits[i+1:]
	}
	if len(digits) > 15 {
		return numeral{}, false
	}
	m, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return numeral{}, false
	}
	n.mant = m
	return n, true
}

// format writes a mantissa with the numeral's decimals and separators.
func (n numeral) format(mant int64) string {
	s := strconv.FormatInt(mant, 10)
	for len(s) <= n.decimals {
		s = "0" + s
	}
	intPart, frac := s[:len(s)-n.decimals], s[len(s)-n.decimals:]
	if n.commas {
		var b strings.Builder
		for i, c := range intPart {
			if i > 0 && (len(intPart)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		intPart = b.String()
	}
	if n.decimals > 0 {
		return intPart + "." + frac
	}
	return intPart
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// numerals returns the value numerals of s, in order: numbers that are not
// part of an identifier, a timestamp, a date or a word.
func numerals(s string) []numeral {
	masked := maskRE.ReplaceAllStringFunc(s, func(m string) string { return strings.Repeat("x", len(m)) })
	var out []numeral
	for _, loc := range numberRE.FindAllStringIndex(masked, -1) {
		if loc[0] > 0 && isWordByte(masked[loc[0]-1]) || loc[1] < len(masked) && isWordByte(masked[loc[1]]) {
			continue
		}
		n, ok := parseNumber(s[loc[0]:loc[1]])
		if !ok {
			continue
		}
		n.start, n.end = loc[0], loc[1]
		out = append(out, n)
	}
	return out
}

// allNumbers returns every number in s, identifier and timestamp digits
// included, each also read as cents and as currency units.
func allNumbers(s string) []float64 {
	var out []float64
	for _, m := range numberRE.FindAllString(s, -1) {
		if n, ok := parseNumber(m); ok {
			v := n.value()
			out = append(out, v, v*100, v/100)
		}
	}
	return out
}

// far reports whether v differs from every value in avoid by more than 1%.
func far(v float64, avoid []float64) bool {
	for _, a := range avoid {
		if math.Abs(v-a) <= 0.01*math.Max(math.Abs(v), math.Abs(a)) {
			return false
		}
	}
	return true
}

// fabricate replaces one value numeral of s with a different number.
func fabricate(r *rand.Rand, s string, avoid []float64) string {
	nums := numerals(s)
	if len(nums) == 0 {
		return s
	}
	n := nums[r.IntN(len(nums))]
	unit := int64(math.Pow10(n.decimals))
	ok := func(m int64) bool { return m >= 0 && m != n.mant && far(float64(m)/float64(unit), avoid) }
	mode := r.IntN(3)
	for i := range 3 {
		var m int64
		switch (mode + i) % 3 {
		case 0: // plus one
			m = n.mant + unit
		case 1: // times ten
			m = n.mant * 10
		case 2: // a new value
			limit := max(n.mant*10, 100*unit)
			for range 32 {
				if m = r.Int64N(limit); ok(m) {
					break
				}
			}
		}
		if ok(m) {
			return s[:n.start] + n.format(m) + s[n.end:]
		}
	}
	// Every small candidate is taken: go up by powers of ten until clear.
	for m := max(n.mant, unit) * 100; m < math.MaxInt64/10; m *= 10 {
		if ok(m) {
			return s[:n.start] + n.format(m) + s[n.end:]
		}
	}
	return s
}

// transpose swaps two adjacent, different digits of one value numeral of
// s, never making a leading zero.
func transpose(r *rand.Rand, s string, avoid []float64) string {
	type swap struct {
		n numeral
		i int
	}
	var swaps []swap
	for _, n := range numerals(s) {
		for i := n.start; i+1 < n.end; i++ {
			a, b := s[i], s[i+1]
			if !isDigit(a) || !isDigit(b) || a == b || (i == n.start && b == '0') {
				continue
			}
			t, ok := parseNumber(swapped(s[n.start:n.end], i-n.start))
			if ok && far(t.value(), avoid) {
				swaps = append(swaps, swap{n, i})
			}
		}
	}
	if len(swaps) == 0 {
		return s
	}
	sw := swaps[r.IntN(len(swaps))]
	return s[:sw.n.start] + swapped(s[sw.n.start:sw.n.end], sw.i-sw.n.start) + s[sw.n.end:]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func swapped(s string, i int) string {
	b := []byte(s)
	b[i], b[i+1] = b[i+1], b[i]
	return string(b)
}
