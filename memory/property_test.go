package memory_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/memstore"
)

// genJournal draws a journal of claims and annotations: each annotation
// targets an earlier record; times repeat so that ties happen; a few
// records are corrupt (a targeted kind without a target).
func genJournal(t *rapid.T) []memory.Entry {
	n := rapid.IntRange(1, 40).Draw(t, "n")
	agents := []string{"a", "b", "c"}
	var out []memory.Entry
	for i := range n {
		key := fmt.Sprintf("k%02d", i)
		kinds := []memory.Kind{memory.KindClaim, memory.KindObservation}
		if i > 0 {
			kinds = append(kinds, memory.KindConfirm, memory.KindRetract, memory.KindSupersede, memory.KindSupersede)
		}
		kind := rapid.SampledFrom(kinds).Draw(t, "kind")
		r := memory.Record{
			Key: key, Agent: rapid.SampledFrom(agents).Draw(t, "agent"), Kind: kind,
			Subject: "s", Tags: []string{"t"}, Time: int64(rapid.IntRange(0, 5).Draw(t, "time")),
			Stated: rapid.Bool().Draw(t, "stated"),
		}
		if kind.Targeted() && rapid.IntRange(0, 19).Draw(t, "corrupt") != 0 {
			r.Target = fmt.Sprintf("k%02d", rapid.IntRange(0, i-1).Draw(t, "target"))
		}
		if kind == memory.KindClaim || kind == memory.KindObservation || kind == memory.KindSupersede {
			r.Text = "text " + key
			if rapid.Bool().Draw(t, "has-relevance") {
				r.Relevance = &memory.Relevance{Score: float64(rapid.IntRange(0, 10).Draw(t, "score")) / 10,
					HalfLife: int64(rapid.IntRange(0, 5).Draw(t, "half"))}
			}
			if rapid.IntRange(0, 4).Draw(t, "class") == 0 {
				r.Class = "q"
			}
		}
		v := memory.Visibility{}
		switch rapid.IntRange(0, 4).Draw(t, "vis") {
		case 1:
			v.Agent = rapid.SampledFrom(agents).Draw(t, "vis-agent")
		case 2:
			v.Tags = []string{rapid.SampledFrom([]string{"x", "y"}).Draw(t, "vis-tag")}
		case 3:
			v.Tags = []string{"x", "y"}
		}
		out = append(out, memory.Entry{Record: r, Visibility: v})
	}
	return out
}

// chainOf is every record reachable from key through targets.
func chainOf(entries []memory.Entry, key string) []memory.Record {
	var out []memory.Record
	seen := map[string]bool{key: true}
	queue := []string{key}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		for _, e := range entries {
			if e.Record.Target == k && !seen[e.Record.Key] {
				seen[e.Record.Key] = true
				out = append(out, e.Record)
				queue = append(queue, e.Record.Key)
			}
		}
	}
	return out
}

func genInput(t *rapid.T) (memory.Input, []memory.Entry) {
	entries := genJournal(t)
	in := memory.Input{AsOf: 10, Chains: map[string][]memory.Record{}}
	for _, e := range entries {
		r := e.Record
		admitted := !((r.Kind == memory.KindConfirm || r.Kind == memory.KindRetract) && r.Target != "")
		if admitted && rapid.Bool().Draw(t, "select-"+r.Key) {
			in.Selected = append(in.Selected, r)
			in.Chains[r.Key] = chainOf(entries, r.Key)
		}
	}
	return in, entries
}

func shuffled[T any](t *rapid.T, xs []T, label string) []T {
	out := slices.Clone(xs)
	for i := len(out) - 1; i > 0; i-- {
		j := rapid.IntRange(0, i).Draw(t, label)
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Resolution does not depend on the order of its input: the selected
// records and every chain may come in any order.
func TestProperty_ResolveOrderIndependent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in, _ := genInput(t)
		p := memory.DefaultPolicy()
		p.Prefer = rapid.SampledFrom([]memory.Prefer{memory.PreferSelfStated, memory.PreferConfirmed, memory.PreferRecent}).Draw(t, "prefer")
		a, err := memory.Resolve(in, p).Canonical()
		if err != nil {
			t.Fatal(err)
		}
		perm := memory.Input{AsOf: in.AsOf, Selected: shuffled(t, in.Selected, "perm-sel"), Chains: map[string][]memory.Record{}}
		for k, c := range in.Chains {
			perm.Chains[k] = shuffled(t, c, "perm-"+k)
		}
		b, err := memory.Resolve(perm, p).Canonical()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("order changed the sheet:\n%s\n%s", a, b)
		}
	})
}

// A retracted key never appears on a sheet; every key a sheet names is a
// record of its input; ranks run 1..n; no claim is corrupt.
func TestProperty_ResolveInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in, _ := genInput(t)
		p := memory.DefaultPolicy()
		p.Prefer = rapid.SampledFrom([]memory.Prefer{memory.PreferSelfStated, memory.PreferConfirmed, memory.PreferRecent}).Draw(t, "prefer")
		s := memory.Resolve(in, p)
		known := map[string]memory.Record{}
		retracted := map[string]bool{}
		for _, r := range in.Selected {
			known[r.Key] = r
		}
		for _, c := range in.Chains {
			for _, r := range c {
				known[r.Key] = r
				if r.Kind == memory.KindRetract && r.Target != "" {
					retracted[r.Target] = true
				}
			}
		}
		seen := map[string]bool{}
		for i, c := range s.Claims {
			if c.Rank != i+1 {
				t.Fatalf("claim %s rank %d at place %d", c.Key, c.Rank, i+1)
			}
			if seen[c.Key] {
				t.Fatalf("claim %s twice", c.Key)
			}
			seen[c.Key] = true
			r, ok := known[c.Key]
			if !ok {
				t.Fatalf("claim %s is not in the input", c.Key)
			}
			if r.Kind == memory.KindConfirm || r.Kind == memory.KindRetract || r.Kind.Targeted() && r.Target == "" {
				t.Fatalf("claim %s is a %s with target %q", c.Key, r.Kind, r.Target)
			}
			for _, list := range [][]string{{c.Key}, c.Supersedes, c.Outranked, c.DisjunctWith} {
				for _, k := range list {
					if retracted[k] {
						t.Fatalf("retracted key %s appears on the sheet (claim %s)", k, c.Key)
					}
					if _, ok := known[k]; !ok {
						t.Fatalf("claim %s names %s, which is not in the input", c.Key, k)
					}
				}
			}
			if slices.Contains(c.Supersedes, c.Key) || slices.Contains(c.DisjunctWith, c.Key) {
				t.Fatalf("claim %s lists itself", c.Key)
			}
		}
	})
}

// No claim surfaces to a reader who may not see it, nor does any key a
// sheet names (supersedes, outranked, disjunct_with, trace).
func TestProperty_ReadGate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		entries := genJournal(t)
		st, err := memstore.Load(entries)
		if err != nil {
			t.Fatal(err)
		}
		vis := map[string]memory.Visibility{}
		for _, e := range entries {
			vis[e.Record.Key] = e.Visibility
		}
		reader := &memory.Reader{
			Agent: rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "reader"),
			Tags:  rapid.SliceOfDistinct(rapid.SampledFrom([]string{"x", "y"}), func(s string) string { return s }).Draw(t, "tags"),
			Match: rapid.SampledFrom([]memory.Match{memory.MatchAll, memory.MatchAny}).Draw(t, "match"),
		}
		p := memory.DefaultPolicy()
		p.GateOverfetchMultiplier = rapid.IntRange(1, 3).Draw(t, "mult")
		p.MaxBackfillPulls = rapid.IntRange(0, 3).Draw(t, "pulls")
		q := memory.Query{Cues: memory.Cues{Subject: "s"}, AsOf: 10, MaxItems: rapid.IntRange(1, 10).Draw(t, "k")}
		s, err := memory.Read(context.Background(), st, reader, q, p)
		if err != nil {
			t.Fatal(err)
		}
		mayNot := func(k string) bool {
			ok, err := memory.Visible(vis[k], reader)
			return err != nil || !ok
		}
		for _, c := range s.Claims {
			for _, list := range [][]string{{c.Key}, c.Supersedes, c.Outranked, c.DisjunctWith} {
				for _, k := range list {
					if mayNot(k) {
						t.Fatalf("reader %+v sees %s (on claim %s)", reader, k, c.Key)
					}
				}
			}
		}
		for _, e := range s.Trace {
			if mayNot(e.Key) {
				t.Fatalf("trace names %s, which reader %+v may not see", e.Key, reader)
			}
		}
		if len(s.Claims) > q.MaxItems+len(s.Claims) || s.Counts.Selected > q.MaxItems {
			t.Fatalf("selected %d, max_items %d", s.Counts.Selected, q.MaxItems)
		}
	})
}

// TestFoldSubject_Property: two subjects fold alike exactly when they are
// equal under strings.EqualFold after trimming space, the equality a
// subject cue matches by (Cues.Match), so a store may index subjects by
// their fold.
func TestFoldSubject_Property(t *testing.T) {
	letters := []rune("aAbBkKK\u212aſsSß\u1e9eσςΣ Ǆǅǆ-0 ")
	gen := rapid.Custom(func(t *rapid.T) string {
		return string(rapid.SliceOfN(rapid.SampledFrom(letters), 0, 6).Draw(t, "runes"))
	})
	rapid.Check(t, func(t *rapid.T) {
		a, b := gen.Draw(t, "a"), gen.Draw(t, "b")
		if rapid.Bool().Draw(t, "variant") {
			// b: a with each rune replaced by a member of its case-fold
			// orbit, and space around it.
			var sb strings.Builder
			sb.WriteString(rapid.SampledFrom([]string{"", " ", "\t"}).Draw(t, "pad"))
			for _, r := range a {
				for range rapid.IntRange(0, 3).Draw(t, "steps") {
					r = unicode.SimpleFold(r)
				}
				sb.WriteRune(r)
			}
			b = sb.String()
		}
		same := memory.FoldSubject(a) == memory.FoldSubject(b)
		match := strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
		if strings.TrimSpace(a) != "" && (memory.Cues{Subject: a}).Match(memory.Record{Subject: b}) != match {
			t.Fatalf("Cues.Match disagrees with EqualFold for %q and %q", a, b)
		}
		if same != match {
			t.Fatalf("fold equal %v, cue matches %v for %q and %q", same, match, a, b)
		}
	})
}
