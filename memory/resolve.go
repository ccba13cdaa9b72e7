package memory

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Input is what resolution reads: the selected records (the candidates
// retrieval ranked and the gate let through, in any order: resolution
// sorts them by the declared rank at AsOf) and, for each selected key, its
// annotation chain: every record whose target is that key, every record
// targeting those, and so on (in any order; resolution sorts them).
type Input struct {
	AsOf     int64
	Selected []Record
	Chains   map[string][]Record
}

// Resolve folds the selected records and their chains into a sheet under
// the policy. It is a pure function: no clock, no randomness, no I/O; the
// same input in any order gives the same sheet. The rules:
//
//   - a selected record of a targeted kind without a target, or of an
//     unknown kind, is corrupt: counted, warned, never surfaced;
//   - a retract anywhere in the input drops its target: a retracted key
//     never appears on the sheet, as a claim or in any list;
//   - a live supersede of a claim replaces it: the claim collapses onto
//     its winner, which lists the keys it supersedes; corrections of
//     corrections are followed to the last;
//   - several live supersedes of one record compete: the policy's prefer
//     picks (self-stated, confirmed or recent first, the other two in
//     that order after); the losers are listed as outranked; competitors
//     equal on all three are an unresolved contradiction, warned with
//     their keys, and surface together as disjunct, none guessed;
//   - a selected supersede whose target did not rank is a claim of its
//     own; one whose target ranked is resolved with it;
//   - live confirmations of each claim are counted;
//   - claims sharing a class id surface together, each listing the others
//     in disjunct_with;
//   - ranks are assigned in final order, from 1;
//   - each claim's staleness is its decayed relevance at AsOf (null when
//     it declares none), stale when below the policy's threshold.
//
// Resolve fills the sheet's claims, warnings and resolution counts; the
// assembler (Read) adds the reader, the retrieval counts and the trace.
func Resolve(in Input, p Policy) *Sheet {
	p, warns := p.sanitize()
	r := newResolver(in, p)
	r.warns = append(r.warns, warns...)
	r.run()
	return r.sheet()
}

type resolver struct {
	in        Input
	p         Policy
	byKey     map[string]Record
	children  map[string][]Record // target → annotations, by (time, key)
	retracted map[string]bool
	cyclic    map[string]bool // records whose targets lead back to them
	selected  []Record        // deduplicated, in rank order
	ranked    map[string]bool
	warns     []Warning
	counts    Counts
	out       []*Claim // slot order, one per winner key
	outByKey  map[string]*Claim
	peers     map[string]map[string]bool
	final     []Claim
}

func newResolver(in Input, p Policy) *resolver {
	r := &resolver{
		in:        in,
		p:         p,
		byKey:     map[string]Record{},
		children:  map[string][]Record{},
		retracted: map[string]bool{},
		cyclic:    map[string]bool{},
		ranked:    map[string]bool{},
		outByKey:  map[string]*Claim{},
		peers:     map[string]map[string]bool{},
	}
	// Every record the input holds, once per key. Two different records
	// under one key are corrupt: the smaller encoding is kept, whatever
	// the input order.
	var all []Record
	all = append(all, in.Selected...)
	for _, k := range sortedKeys(in.Chains) {
		all = append(all, in.Chains[k]...)
	}
	conflict := map[string]bool{}
	for _, rec := range all {
		old, ok := r.byKey[rec.Key]
		if !ok {
			r.byKey[rec.Key] = rec
			continue
		}
		// The same key again: usually the same record (a selected one in
		// another's chain); compare encodings only then.
		a, _ := json.Marshal(old)
		b, _ := json.Marshal(rec)
		if !bytes.Equal(a, b) {
			conflict[rec.Key] = true
			if bytes.Compare(b, a) < 0 {
				r.byKey[rec.Key] = rec
			}
		}
	}
	for _, k := range sortedKeys(conflict) {
		r.warn(WarnCorrupt, fmt.Sprintf("key %s is held by two different records; one is used", k))
	}
	for _, rec := range r.byKey {
		if !rec.Kind.Targeted() || rec.Target == "" {
			continue
		}
		r.children[rec.Target] = append(r.children[rec.Target], rec)
		if rec.Kind == KindRetract {
			r.retracted[rec.Target] = true
		}
	}
	for _, k := range sortedKeys(r.byKey) {
		if r.inCycle(k) {
			r.cyclic[k] = true
		}
	}
	for _, cs := range r.children {
		slices.SortFunc(cs, func(a, b Record) int {
			return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.Key, b.Key))
		})
	}
	for _, rec := range in.Selected {
		if r.ranked[rec.Key] {
			continue
		}
		r.ranked[rec.Key] = true
		r.selected = append(r.selected, r.byKey[rec.Key])
	}
	SortRank(r.selected, in.AsOf)
	r.counts.Selected = len(r.selected)
	return r
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func (r *resolver) warn(code, msg string) {
	r.warns = append(r.warns, Warning{Code: code, Message: msg})
}

// corrupt reports whether a record is corrupt evidence.
func corrupt(rec Record) bool {
	return !rec.Kind.Known() || rec.Kind.Targeted() && rec.Target == ""
}

// inCycle reports whether following targets from k leads back to k.
func (r *resolver) inCycle(k string) bool {
	cur := r.byKey[k]
	for range len(r.byKey) {
		if cur.Target == "" {
			return false
		}
		if cur.Target == k {
			return true
		}
		next, ok := r.byKey[cur.Target]
		if !ok {
			return false
		}
		cur = next
	}
	return false
}

// slotRoot reports whether a selected key opens a slot of its own: a
// well-formed, live, claim-bearing selected record.
func (r *resolver) slotRoot(k string) bool {
	rec, ok := r.byKey[k]
	return ok && r.ranked[k] && !corrupt(rec) && !r.cyclic[k] && rec.Kind.claimBearing() && !r.retracted[k]
}

// root is the slot a selected supersede belongs to: the highest ranked
// ancestor reached through targets that opened slots (records in a cycle
// open none, so the walk ends).
func (r *resolver) root(rec Record) string {
	cur := rec
	for cur.Kind == KindSupersede && r.slotRoot(cur.Target) {
		cur = r.byKey[cur.Target]
	}
	return cur.Key
}

func (r *resolver) run() {
	for _, s := range r.selected {
		switch {
		case corrupt(s):
			r.counts.Corrupt++
			if !s.Kind.Known() {
				r.warn(WarnCorrupt, fmt.Sprintf("record %s has an unknown kind; not surfaced", s.Key))
			} else {
				r.warn(WarnCorrupt, fmt.Sprintf("record %s is a %s without a target; not surfaced", s.Key, s.Kind))
			}
			continue
		case r.cyclic[s.Key]:
			r.counts.Corrupt++
			r.warn(WarnCorrupt, fmt.Sprintf("record %s is in a cycle of targets; not surfaced", s.Key))
			continue
		case !s.Kind.claimBearing():
			continue
		case r.retracted[s.Key]:
			r.counts.Retracted++
			continue
		}
		if r.root(s) != s.Key {
			continue // resolved in its target's slot
		}
		outs := r.follow(s.Key, nil, map[string]bool{})
		for _, o := range outs {
			r.place(o, outs)
		}
	}
	r.finish()
}

type slotOut struct {
	key        string
	supersedes []string
	outranked  []string
}

// follow resolves a live record to the claims that stand in its place.
func (r *resolver) follow(k string, path []string, visiting map[string]bool) []slotOut {
	visiting[k] = true
	defer delete(visiting, k)
	var sups []Record
	for _, c := range r.children[k] {
		if c.Kind == KindSupersede && !r.retracted[c.Key] && !r.cyclic[c.Key] && !visiting[c.Key] {
			sups = append(sups, c)
		}
	}
	if len(sups) == 0 {
		return []slotOut{{key: k, supersedes: slices.Clone(path)}}
	}
	path = append(slices.Clone(path), k)
	best, losers := r.pick(sups)
	if len(best) > 1 {
		r.counts.Contradictions++
		r.warn(WarnContradiction, fmt.Sprintf("corrections of %s are tied under prefer %s: %s; none is chosen",
			k, r.p.Prefer, strings.Join(best, ", ")))
	}
	var outs []slotOut
	for _, b := range best {
		for _, o := range r.follow(b, path, visiting) {
			o.outranked = append(o.outranked, losers...)
			outs = append(outs, o)
		}
	}
	return outs
}

// pick orders competing supersedes by the policy and returns the best
// (several on a complete tie) and the rest.
func (r *resolver) pick(sups []Record) (best, losers []string) {
	criteria := []Prefer{r.p.Prefer}
	for _, c := range []Prefer{PreferSelfStated, PreferConfirmed, PreferRecent} {
		if c != r.p.Prefer {
			criteria = append(criteria, c)
		}
	}
	value := func(rec Record, c Prefer) int64 {
		switch c {
		case PreferSelfStated:
			if rec.Stated {
				return 1
			}
			return 0
		case PreferConfirmed:
			return int64(r.confirmations(rec.Key))
		default:
			return rec.Time
		}
	}
	compare := func(a, b Record) int { // better first
		for _, c := range criteria {
			if x := cmp.Compare(value(b, c), value(a, c)); x != 0 {
				return x
			}
		}
		return 0
	}
	sorted := slices.Clone(sups)
	slices.SortStableFunc(sorted, func(a, b Record) int { return cmp.Or(compare(a, b), cmp.Compare(a.Key, b.Key)) })
	for _, s := range sorted {
		if compare(s, sorted[0]) == 0 {
			best = append(best, s.Key)
		} else {
			losers = append(losers, s.Key)
		}
	}
	return best, losers
}

func (r *resolver) confirmations(k string) int {
	n := 0
	for _, c := range r.children[k] {
		if c.Kind == KindConfirm && !r.retracted[c.Key] {
			n++
		}
	}
	return n
}

// place puts one resolved claim on the sheet, merging with a claim
// already placed under the same key.
func (r *resolver) place(o slotOut, slot []slotOut) {
	c, ok := r.outByKey[o.key]
	if !ok {
		rec := r.byKey[o.key]
		c = &Claim{
			Key: rec.Key, Agent: rec.Agent, Kind: rec.Kind, Text: rec.Text, Subject: rec.Subject,
			Tags: slices.Clone(rec.Tags), Class: rec.Class, Stated: rec.Stated, Time: rec.Time,
			Valid: rec.Valid, Score: Score(rec, r.in.AsOf), Confirmations: r.confirmations(rec.Key),
			Provenance: rec.Provenance, Recorded: rec.Recorded,
		}
		if v, ok := rec.Decayed(r.in.AsOf); ok {
			c.Staleness = &v
			c.Stale = v < r.p.StalenessThreshold
		}
		r.outByKey[o.key] = c
		r.out = append(r.out, c)
	}
	c.Supersedes = append(c.Supersedes, o.supersedes...)
	c.Outranked = append(c.Outranked, o.outranked...)
	if len(slot) > 1 {
		for _, p := range slot {
			if p.key != o.key {
				r.addPeer(o.key, p.key)
			}
		}
	}
}

func (r *resolver) addPeer(a, b string) {
	if r.peers[a] == nil {
		r.peers[a] = map[string]bool{}
	}
	r.peers[a][b] = true
}

// finish groups classes, assigns ranks and sorts every list.
func (r *resolver) finish() {
	byClass := map[string][]*Claim{}
	for _, c := range r.out {
		if c.Class != "" {
			byClass[c.Class] = append(byClass[c.Class], c)
		}
	}
	for _, group := range byClass {
		for _, a := range group {
			for _, b := range group {
				if a != b {
					r.addPeer(a.Key, b.Key)
				}
			}
		}
	}
	// Final order: slot order, with each class and each tie gathered at
	// its best-placed member.
	placed := map[string]bool{}
	var final []*Claim
	var put func(c *Claim)
	put = func(c *Claim) {
		if placed[c.Key] {
			return
		}
		placed[c.Key] = true
		final = append(final, c)
		for _, p := range r.out {
			if r.peers[c.Key][p.Key] {
				put(p)
			}
		}
	}
	for _, c := range r.out {
		put(c)
	}
	selectedSet := r.ranked
	surfaced := map[string]bool{}
	for _, c := range final {
		surfaced[c.Key] = true
	}
	superseded, outranked := map[string]bool{}, map[string]bool{}
	claims := make([]Claim, 0, len(final))
	for i, c := range final {
		c.Rank = i + 1
		c.Supersedes = uniqueSorted(c.Supersedes)
		c.Outranked = uniqueSorted(slices.DeleteFunc(c.Outranked, func(k string) bool { return surfaced[k] }))
		c.DisjunctWith = sortedKeys(r.peers[c.Key])
		for _, k := range c.Supersedes {
			if selectedSet[k] {
				superseded[k] = true
			}
		}
		for _, k := range c.Outranked {
			if selectedSet[k] {
				outranked[k] = true
			}
		}
		claims = append(claims, *c)
	}
	r.counts.Superseded = len(superseded)
	r.counts.Outranked = len(outranked)
	r.counts.Claims = len(claims)
	r.final = claims
}

func uniqueSorted(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return slices.Compact(xs)
}

func (r *resolver) sheet() *Sheet {
	return &Sheet{
		AsOf:     r.in.AsOf,
		Policy:   r.p,
		Claims:   r.final,
		Warnings: sortWarnings(r.warns),
		Counts:   r.counts,
	}
}

func sortWarnings(ws []Warning) []Warning {
	ws = slices.Clone(ws)
	slices.SortFunc(ws, func(a, b Warning) int {
		return cmp.Or(cmp.Compare(a.Code, b.Code), cmp.Compare(a.Message, b.Message))
	})
	ws = slices.Compact(ws)
	if ws == nil {
		ws = []Warning{}
	}
	return ws
}
