package register

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

var idGen = rapid.StringMatching(`[A-Za-z0-9._:@/+-]{1,12}`)

// textGen draws valid UTF-8 text of any characters, control characters,
// quotes, HTML-special characters and line separators included.
var textGen = rapid.OneOf(
	rapid.StringN(1, 40, -1),
	rapid.SampledFrom([]string{"<a&b>", "\u2028\u2029", "\x00\x1f\x7f", `"\/`, "é", "😀", "\ufeff"}),
)

var numGen = rapid.OneOf(
	rapid.Float64(),
	rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1e21, 1e-7, 5e-324, math.MaxFloat64, -math.MaxFloat64, 0.1, 1 << 53, 1<<53 + 2}),
).Filter(func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) })

func drawRecord(t *rapid.T, id string, decisions []string) Record {
	r := Record{
		ID:            id,
		Time:          rapid.Uint64Range(0, MaxTime).Draw(t, "time"),
		Actor:         idGen.Draw(t, "actor"),
		Tier:          rapid.SampledFrom([]Tier{L1, L2, L3}).Draw(t, "tier"),
		ModelVersion:  idGen.Draw(t, "model"),
		PolicyVersion: idGen.Draw(t, "policy"),
		Seed:          rapid.Uint64().Draw(t, "seed"),
	}
	if rapid.Bool().Draw(t, "approved") {
		r.Approver = idGen.Draw(t, "approver")
	}
	if rapid.Bool().Draw(t, "question") {
		r.Question = idGen.Draw(t, "question_id")
	} else {
		r.Task = idGen.Draw(t, "task_id")
	}
	if len(decisions) > 0 && rapid.IntRange(0, 2).Draw(t, "outcome") == 0 {
		r.Kind = KindOutcome
		r.Outcome = &Outcome{
			Decision: rapid.SampledFrom(decisions).Draw(t, "ref"),
			Observed: textGen.Draw(t, "observed"),
			Inputs:   rapid.SliceOfN(idGen, 0, 3).Draw(t, "inputs"),
		}
		return r
	}
	r.Kind = KindDecision
	n := rapid.IntRange(1, 3).Draw(t, "alternatives")
	d := &Decision{Expected: textGen.Draw(t, "expected"),
		Inputs:      rapid.SliceOfN(idGen, 0, 3).Draw(t, "inputs"),
		Constraints: rapid.SliceOfN(textGen, 0, 2).Draw(t, "constraints")}
	for i := range n {
		v := []float64{numGen.Draw(t, "v1"), numGen.Draw(t, "v2"), numGen.Draw(t, "v3")}
		lo, mid, hi := sort3(v)
		d.Alternatives = append(d.Alternatives, Alternative{
			ID: fmt.Sprint("alt", i), Description: textGen.Draw(t, "description"), Change: textGen.Draw(t, "change"),
			Effect: Effect{Estimate: mid, Low: lo, High: hi, Unit: rapid.SampledFrom([]string{"", "units", "fill rate"}).Draw(t, "unit")},
			Cost:   numGen.Draw(t, "cost"), Score: numGen.Draw(t, "score"),
		})
	}
	d.Chosen = d.Alternatives[rapid.IntRange(0, n-1).Draw(t, "chosen")].ID
	r.Decision = d
	return r
}

func sort3(v []float64) (float64, float64, float64) {
	a, b, c := v[0], v[1], v[2]
	if a > b {
		a, b = b, a
	}
	if b > c {
		b, c = c, b
	}
	if a > b {
		a, b = b, a
	}
	return a, b, c
}

// TestRegister_Sequences appends arbitrary records (fresh and repeated
// ids, outcomes of decisions, of outcomes and of nothing) and checks every
// result against a model of ids; the register then verifies, its file
// loads back to the same records and the same head, and every appended
// record is read back equal to what was appended.
func TestRegister_Sequences(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		s := NewMemStore()
		g, err := Open(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]Kind{}
		var decisions, all []string
		var stored []Record
		n := rapid.IntRange(0, 25).Draw(t, "n")
		for i := range n {
			id := fmt.Sprint("r", i)
			if len(all) > 0 && rapid.IntRange(0, 5).Draw(t, "reuse") == 0 {
				id = rapid.SampledFrom(all).Draw(t, "reused")
			}
			refs := decisions
			if rapid.IntRange(0, 5).Draw(t, "badref") == 0 {
				refs = append([]string{"nowhere"}, all...)
			}
			r := drawRecord(t, id, refs)
			got, err := g.Append(ctx, r)
			_, dup := kinds[id]
			switch {
			case dup:
				if !errors.Is(err, ErrDuplicateID) {
					t.Fatalf("append of a repeated id: %v", err)
				}
			case r.Kind == KindOutcome && kinds[r.Outcome.Decision] != KindDecision:
				if !errors.Is(err, ErrUnknownDecision) {
					t.Fatalf("append of an outcome of %s: %v", r.Outcome.Decision, err)
				}
			case err != nil:
				t.Fatalf("append: %v", err)
			default:
				kinds[id] = r.Kind
				all = append(all, id)
				if r.Kind == KindDecision {
					decisions = append(decisions, id)
				}
				r.Prev, r.Hash = got.Prev, got.Hash
				stored = append(stored, got)
				if !reflect.DeepEqual(normal(got), normal(r)) {
					t.Fatalf("stored %+v, appended %+v", got, r)
				}
			}
		}
		head, err := Verify(ctx, s)
		if err != nil || head != g.Head() || head.Len != len(stored) {
			t.Fatalf("Verify = %+v, %v; register head %+v, %d appended", head, err, g.Head(), len(stored))
		}
		var buf bytes.Buffer
		if err := Export(ctx, &buf, s); err != nil {
			t.Fatal(err)
		}
		loaded, err := Load(ctx, &buf)
		if err != nil {
			t.Fatal(err)
		}
		if h, err := Verify(ctx, loaded); err != nil || h != head {
			t.Fatalf("loaded file verifies as %+v, %v; want %+v", h, err, head)
		}
		i := 0
		_ = loaded.Scan(ctx, 0, func(_ int, r Record) error {
			if !reflect.DeepEqual(normal(r), normal(stored[i])) {
				t.Fatalf("record %d loads as %+v, stored %+v", i, r, stored[i])
			}
			i++
			return nil
		})
	})
}

// normal makes empty lists nil and negative zeros positive: the two
// differences JSON cannot carry.
func normal(r Record) Record {
	r = r.Clone()
	z := func(f *float64) {
		if *f == 0 {
			*f = 0
		}
	}
	if d := r.Decision; d != nil {
		if len(d.Inputs) == 0 {
			d.Inputs = nil
		}
		if len(d.Constraints) == 0 {
			d.Constraints = nil
		}
		for i := range d.Alternatives {
			a := &d.Alternatives[i]
			z(&a.Cost)
			z(&a.Score)
			z(&a.Effect.Estimate)
			z(&a.Effect.Low)
			z(&a.Effect.High)
		}
	}
	if o := r.Outcome; o != nil && len(o.Inputs) == 0 {
		o.Inputs = nil
	}
	return r
}

// TestCanonical_RoundTrip: every valid record's canonical line decodes to
// the same record and is canonical again.
func TestCanonical_RoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := drawRecord(t, idGen.Draw(t, "id"), []string{"d1"})
		r.Prev = GenesisHash
		h, err := ComputeHash(r)
		if err != nil {
			t.Fatal(err)
		}
		r.Hash = h
		if err := r.Validate(); err != nil {
			t.Fatalf("drew an invalid record: %v", err)
		}
		line, err := Canonical(r)
		if err != nil {
			t.Fatal(err)
		}
		back, p := decodeLine(line)
		if p != "" {
			t.Fatalf("canonical line %s does not decode: %s", line, p)
		}
		if !reflect.DeepEqual(normal(back), normal(r)) {
			t.Fatalf("decoded %+v\nwant    %+v", back, r)
		}
		if h2, _ := ComputeHash(back); h2 != h {
			t.Fatalf("hash of the decoded record %s, of the record %s", h2, h)
		}
	})
}
