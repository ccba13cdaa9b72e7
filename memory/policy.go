package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/provenant/provenant/internal/editdist"
)

// Prefer names the rule that picks one of several competing supersessions
// of the same record.
type Prefer string

// The prefer options. Each is the first criterion; the other two follow
// in the order self-stated, confirmed, recent. Competitors equal on all
// three are an unresolved contradiction.
const (
	PreferSelfStated Prefer = "self-stated" // the correction stated outright (Record.Stated)
	PreferConfirmed  Prefer = "confirmed"   // the most live confirmations
	PreferRecent     Prefer = "recent"      // the latest logical time
)

// Policy is the plain document that tunes a read. It has exactly four
// keys; see ParsePolicy.
type Policy struct {
	// Prefer picks among competing supersessions.
	Prefer Prefer `json:"prefer"`
	// StalenessThreshold: a claim whose decayed relevance is below it is
	// flagged stale.
	StalenessThreshold float64 `json:"staleness_threshold"`
	// GateOverfetchMultiplier: a retrieval asks for max_items times this
	// many candidates, so that the reader gate's rejections seldom leave
	// the sheet short.
	GateOverfetchMultiplier int `json:"gate_overfetch_multiplier"`
	// MaxBackfillPulls bounds the further retrievals made when the gate
	// left fewer than max_items visible candidates.
	MaxBackfillPulls int `json:"max_backfill_pulls"`
}

// Bounds on the policy's numbers; a value outside them is a warning and
// the default is used.
const (
	MaxOverfetchMultiplier = 16
	MaxBackfillPulls       = 8
)

// DefaultPolicy is the policy of a read that names none.
func DefaultPolicy() Policy {
	return Policy{
		Prefer:                  PreferSelfStated,
		StalenessThreshold:      0.25,
		GateOverfetchMultiplier: 2,
		MaxBackfillPulls:        2,
	}
}

// Warning is something a reader of a sheet (or of a policy) should know:
// a stable code and a sentence. A warning names record keys and declared
// field names, never a rejected value.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Warning codes.
const (
	WarnPolicyMalformed    = "policy_malformed"         // the document is not a JSON object; defaults used
	WarnPolicyUnknownKey   = "policy_unknown_key"       // a key that is not one of the four; ignored
	WarnPolicyInvalid      = "policy_invalid_value"     // a value of the wrong type or out of range; its default used
	WarnPolicyDuplicateKey = "policy_duplicate_key"     // a key given twice; the first kept
	WarnCorrupt            = "corrupt_record"           // a targeted record without a target, or an unknown kind
	WarnContradiction      = "unresolved_contradiction" // competing supersessions tied under the policy
	WarnVisibility         = "visibility_undecided"     // visibility could not be decided: the sheet is empty
	WarnShortSheet         = "short_sheet"              // the gate left fewer claims than max_items
)

var policyKeys = []string{"gate_overfetch_multiplier", "max_backfill_pulls", "prefer", "staleness_threshold"}

// ParsePolicy reads a policy document: a JSON object with any of the keys
// prefer, staleness_threshold, gate_overfetch_multiplier and
// max_backfill_pulls; a missing key takes its default. It never fails: an
// unknown key, an invalid prefer, a value of the wrong type or out of
// range, a repeated key or a document that is not an object is a warning,
// and the default stands for what could not be read.
func ParsePolicy(data []byte) (Policy, []Warning) {
	p := DefaultPolicy()
	var warns []Warning
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	malformed := []Warning{{WarnPolicyMalformed, "the policy is not a JSON object; the default policy is used"}}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return DefaultPolicy(), malformed
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return DefaultPolicy(), malformed
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return DefaultPolicy(), malformed
		}
		if !slices.Contains(policyKeys, key) {
			warns = append(warns, Warning{WarnPolicyUnknownKey,
				fmt.Sprintf("unknown policy key ignored (nearest valid key: %s)", nearest(key, policyKeys))})
			continue
		}
		if seen[key] {
			warns = append(warns, Warning{WarnPolicyDuplicateKey, fmt.Sprintf("policy key %s given twice; the first is kept", key)})
			continue
		}
		seen[key] = true
		if w, ok := p.set(key, raw); !ok {
			warns = append(warns, w)
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return DefaultPolicy(), malformed
	}
	if _, err := dec.Token(); err == nil {
		return DefaultPolicy(), malformed
	}
	return p, warns
}

// set stores one key's value; ok is false (with a warning) when the value
// is invalid, leaving the default.
func (p *Policy) set(key string, raw json.RawMessage) (Warning, bool) {
	bad := func(why string) (Warning, bool) {
		return Warning{WarnPolicyInvalid, fmt.Sprintf("policy key %s: %s; the default is used", key, why)}, false
	}
	switch key {
	case "prefer":
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return bad("not a string")
		}
		switch pr := Prefer(s); pr {
		case PreferSelfStated, PreferConfirmed, PreferRecent:
			p.Prefer = pr
		default:
			return bad("not one of self-stated, confirmed, recent")
		}
	case "staleness_threshold":
		var f float64
		if json.Unmarshal(raw, &f) != nil {
			return bad("not a number")
		}
		if math.IsNaN(f) || f < 0 || f > 1 {
			return bad("outside [0, 1]")
		}
		p.StalenessThreshold = f
	case "gate_overfetch_multiplier":
		n, ok := smallInt(raw)
		if !ok || n < 1 || n > MaxOverfetchMultiplier {
			return bad(fmt.Sprintf("not an integer from 1 to %d", MaxOverfetchMultiplier))
		}
		p.GateOverfetchMultiplier = n
	case "max_backfill_pulls":
		n, ok := smallInt(raw)
		if !ok || n < 0 || n > MaxBackfillPulls {
			return bad(fmt.Sprintf("not an integer from 0 to %d", MaxBackfillPulls))
		}
		p.MaxBackfillPulls = n
	}
	return Warning{}, true
}

func smallInt(raw json.RawMessage) (int, bool) {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	i, err := n.Int64()
	if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
		return 0, false
	}
	return int(i), true
}

// sanitize replaces invalid fields of a policy given as a Go value with
// their defaults, warning for each, as ParsePolicy would.
func (p Policy) sanitize() (Policy, []Warning) {
	d := DefaultPolicy()
	var warns []Warning
	bad := func(key string) {
		warns = append(warns, Warning{WarnPolicyInvalid, fmt.Sprintf("policy key %s: out of range; the default is used", key)})
	}
	switch p.Prefer {
	case PreferSelfStated, PreferConfirmed, PreferRecent:
	default:
		bad("prefer")
		p.Prefer = d.Prefer
	}
	if math.IsNaN(p.StalenessThreshold) || p.StalenessThreshold < 0 || p.StalenessThreshold > 1 {
		bad("staleness_threshold")
		p.StalenessThreshold = d.StalenessThreshold
	}
	if p.GateOverfetchMultiplier < 1 || p.GateOverfetchMultiplier > MaxOverfetchMultiplier {
		bad("gate_overfetch_multiplier")
		p.GateOverfetchMultiplier = d.GateOverfetchMultiplier
	}
	if p.MaxBackfillPulls < 0 || p.MaxBackfillPulls > MaxBackfillPulls {
		bad("max_backfill_pulls")
		p.MaxBackfillPulls = d.MaxBackfillPulls
	}
	return p, warns
}

// nearest is the candidate closest to s by edit distance (the first on a
// tie), so a warning can suggest a key without repeating the bad one.
func nearest(s string, candidates []string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	best, bestD := candidates[0], math.MaxInt
	for _, c := range candidates {
		if d := editdist.Distance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
