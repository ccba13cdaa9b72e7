package register

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

func decision(id string, time uint64) Record {
	return Record{
		ID: id, Kind: KindDecision, Time: time, Question: "q-" + id, Actor: "pipeline", Tier: L2,
		Decision: &Decision{
			Alternatives: []Alternative{
				{ID: "a", Description: "restock 40 units", Change: "open a restock task for store 3, product 17, 40 units",
					Effect: Effect{Estimate: 0.92, Low: 0.85, High: 0.97, Unit: "fill rate"}, Cost: 312.5, Score: 0.81},
				{ID: "b", Description: "do nothing — wait for Monday's delivery ✓", Change: "none",
					Effect: Effect{Estimate: 0.6, Low: 0.4, High: 0.75, Unit: "fill rate"}, Cost: 0, Score: -1e-7},
			},
			Chosen:      "a",
			Inputs:      []string{"res-000001", "res-000002"},
			Expected:    "fill rate above 0.85 by Friday",
			Constraints: []string{"quantity <= 50", "store 3 only"},
		},
		Approver: "human:alice@example.com", ModelVersion: "rules-1", PolicyVersion: "policy-2026-11", Seed: 1<<64 - 1,
	}
}

func outcome(id, ref string, time uint64) Record {
	return Record{
		ID: id, Kind: KindOutcome, Time: time, Task: "task-" + ref, Actor: "pipeline", Tier: L1,
		Outcome:      &Outcome{Decision: ref, Observed: "fill rate 0.9\nas of \"Friday\"", Inputs: []string{"res-000009"}},
		ModelVersion: "rules-1", PolicyVersion: "policy-2026-11", Seed: 42,
	}
}

// sample appends decisions d1..dn and an outcome for each odd one.
func sample(t testing.TB, n int) *MemStore {
	t.Helper()
	ctx := context.Background()
	s := NewMemStore()
	g, err := Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if _, err := g.Append(ctx, decision(fmt.Sprint("d", i), uint64(2*i))); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			if _, err := g.Append(ctx, outcome(fmt.Sprint("o", i), fmt.Sprint("d", i), uint64(2*i+1))); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

func records(t testing.TB, s *MemStore) []Record {
	t.Helper()
	var out []Record
	if err := s.Scan(context.Background(), 0, func(_ int, r Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRegister_Append(t *testing.T) {
	ctx := context.Background()
	base := func() *Register {
		g, err := Open(ctx, sample(t, 2))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	tests := []struct {
		name    string
		rec     Record
		wantErr error
	}{
		{"decision", decision("d9", 10), nil},
		{"outcome of a decision", outcome("o9", "d2", 10), nil},
		{"second outcome of a decision", outcome("o9", "d1", 10), nil},
		{"duplicate id", decision("d1", 10), ErrDuplicateID},
		{"outcome id reusing a decision's", outcome("d2", "d1", 10), ErrDuplicateID},
		{"outcome of an unknown decision", outcome("o9", "d7", 10), ErrUnknownDecision},
		{"outcome of an outcome", outcome("o9", "o1", 10), ErrUnknownDecision},
		{"prev preset", func() Record { r := decision("d9", 1); r.Prev = GenesisHash; return r }(), ErrPreset},
		{"hash preset", func() Record { r := decision("d9", 1); r.Hash = GenesisHash; return r }(), ErrPreset},
		{"invalid", func() Record { r := decision("d9", 1); r.Tier = "L4"; return r }(), ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := base()
			before := g.Head()
			got, err := g.Append(ctx, tt.rec)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Append err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				if g.Head() != before {
					t.Errorf("a refused append moved the head")
				}
				return
			}
			if got.Prev != before.Hash || got.Hash == "" {
				t.Errorf("appended prev %s hash %s, head was %s", got.Prev, got.Hash, before.Hash)
			}
			if h := g.Head(); h.Len != before.Len+1 || h.Hash != got.Hash {
				t.Errorf("head = %+v after appending %s", h, got.Hash)
			}
			head, err := Verify(ctx, g.store)
			if err != nil || head != g.Head() {
				t.Errorf("Verify = %+v, %v; want %+v", head, err, g.Head())
			}
		})
	}
}

func TestRegister_RefErrorIsTyped(t *testing.T) {
	g, _ := Open(context.Background(), sample(t, 1))
	_, err := g.Append(context.Background(), outcome("o9", "nope", 1))
	var re *RefError
	if !errors.As(err, &re) || re.Ref != "nope" || re.IsOutcome {
		t.Fatalf("err = %#v, want a *RefError for nope", err)
	}
}

func TestRecord_Validate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(r *Record)
		field string // "" for valid
	}{
		{"valid decision", func(*Record) {}, ""},
		{"no approver", func(r *Record) { r.Approver = "" }, ""},
		{"task instead of question", func(r *Record) { r.Question, r.Task = "", "t1" }, ""},
		{"empty id", func(r *Record) { r.ID = "" }, "id"},
		{"id with a space", func(r *Record) { r.ID = "d 1" }, "id"},
		{"long id", func(r *Record) { r.ID = strings.Repeat("x", MaxIDBytes+1) }, "id"},
		{"time beyond 2^53", func(r *Record) { r.Time = 1 << 53 }, "time"},
		{"question and task", func(r *Record) { r.Task = "t1" }, "question"},
		{"neither question nor task", func(r *Record) { r.Question = "" }, "question"},
		{"bad tier", func(r *Record) { r.Tier = "l1" }, "tier"},
		{"bad kind", func(r *Record) { r.Kind = "verdict" }, "kind"},
		{"decision kind without decision", func(r *Record) { r.Decision = nil }, "decision"},
		{"decision with outcome", func(r *Record) { r.Outcome = &Outcome{Decision: "d", Observed: "x"} }, "decision"},
		{"no alternatives", func(r *Record) { r.Decision.Alternatives = nil }, "decision.alternatives"},
		{"repeated alternative", func(r *Record) { r.Decision.Alternatives[1].ID = "a" }, "decision.alternatives[1].id"},
		{"chosen unknown", func(r *Record) { r.Decision.Chosen = "c" }, "decision.chosen"},
		{"estimate outside interval", func(r *Record) { r.Decision.Alternatives[0].Effect.Estimate = 0.99 }, "decision.alternatives[0].effect"},
		{"NaN cost", func(r *Record) { r.Decision.Alternatives[1].Cost = nan() }, "decision.alternatives[1].cost"},
		{"missing description", func(r *Record) { r.Decision.Alternatives[0].Description = "" }, "decision.alternatives[0].description"},
		{"invalid UTF-8", func(r *Record) { r.Decision.Expected = "\xff" }, "decision.expected"},
		{"bad input id", func(r *Record) { r.Decision.Inputs = []string{"res 1"} }, "decision.inputs[0]"},
		{"empty constraint", func(r *Record) { r.Decision.Constraints = []string{""} }, "decision.constraints[0]"},
		{"no model version", func(r *Record) { r.ModelVersion = "" }, "model_version"},
		{"bad approver", func(r *Record) { r.Approver = "alice smith" }, "approver"},
		{"uppercase prev", func(r *Record) { r.Prev = strings.ToUpper(GenesisHash[:63]) + "A" }, "prev"},
		{"short hash", func(r *Record) { r.Hash = "00" }, "hash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := decision("d1", 1)
			tt.edit(&r)
			err := r.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Validate = %v, want a *FieldError at %s", err, tt.field)
			}
		})
	}
	o := outcome("o1", "d1", 1)
	o.Outcome.Observed = ""
	if err := o.Validate(); err == nil {
		t.Error("outcome without an observation validated")
	}
}

func TestVerify(t *testing.T) {
	ctx := context.Background()
	recs := records(t, sample(t, 4))
	tests := []struct {
		name    string
		edit    func(rs []Record) []Record
		index   int
		problem Problem
	}{
		{"intact", func(rs []Record) []Record { return rs }, -1, ""},
		{"empty", func([]Record) []Record { return nil }, -1, ""},
		{"edited text", func(rs []Record) []Record { rs[2].Decision.Expected += "!"; return rs }, 2, ProblemHash},
		{"edited seed", func(rs []Record) []Record { rs[0].Seed--; return rs }, 0, ProblemHash},
		{"edited hash", func(rs []Record) []Record { rs[3].Hash = rs[2].Hash; return rs }, 3, ProblemHash},
		{"removed record", func(rs []Record) []Record { return append(rs[:1], rs[2:]...) }, 1, ProblemPrev},
		{"swapped records", func(rs []Record) []Record { rs[1], rs[2] = rs[2], rs[1]; return rs }, 1, ProblemPrev},
		{"invalid", func(rs []Record) []Record { rs[4].Tier = "L0"; return rs }, 4, ProblemInvalid},
		{"rehashed edit breaks the next link", func(rs []Record) []Record {
			rs[1].Outcome.Observed = "rewritten"
			rs[1].Hash, _ = ComputeHash(rs[1])
			return rs
		}, 2, ProblemPrev},
		{"duplicate id rechained", func(rs []Record) []Record {
			return rechain(t, append(rs, decision("d2", 99)))
		}, 6, ProblemDuplicate},
		{"dangling outcome rechained", func(rs []Record) []Record {
			return rechain(t, append(rs, outcome("o9", "d9", 99)))
		}, 6, ProblemRef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp := make([]Record, len(recs))
			for i, r := range recs {
				cp[i] = r.Clone()
			}
			s := NewMemStore(tt.edit(cp)...)
			head, err := Verify(ctx, s)
			if tt.index < 0 {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if head.Len != s.Len() {
					t.Errorf("head %+v of %d records", head, s.Len())
				}
				return
			}
			var ve *VerifyError
			if !errors.As(err, &ve) || !errors.Is(err, ErrBroken) {
				t.Fatalf("Verify = %v, want a *VerifyError", err)
			}
			if (tt.problem == ProblemInvalid) != errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(err, ErrInvalid) = %v for problem %s", errors.Is(err, ErrInvalid), ve.Problem)
			}
			if ve.Index != tt.index || ve.Problem != tt.problem {
				t.Errorf("Verify failed at %d (%s), want %d (%s): %v", ve.Index, ve.Problem, tt.index, tt.problem, err)
			}
			if _, err := Open(ctx, s); !errors.As(err, &ve) {
				t.Errorf("Open accepted a broken chain: %v", err)
			}
		})
	}
}

// rechain recomputes every link and hash, as a forger with write access
// would.
func rechain(t testing.TB, rs []Record) []Record {
	t.Helper()
	prev := GenesisHash
	for i := range rs {
		rs[i].Prev = prev
		h, err := ComputeHash(rs[i])
		if err != nil {
			t.Fatal(err)
		}
		rs[i].Hash = h
		prev = h
	}
	return rs
}

func TestMemStore_NoAliasing(t *testing.T) {
	ctx := context.Background()
	s := sample(t, 2)
	_ = s.Scan(ctx, 0, func(_ int, r Record) error {
		if r.Decision != nil {
			r.Decision.Alternatives[0].Cost = 1e9
			r.Decision.Inputs[0] = "res-x"
		}
		return nil
	})
	if _, err := Verify(ctx, s); err != nil {
		t.Fatalf("editing scanned copies changed the store: %v", err)
	}
}

// TestRegister_TwoWriters: two Registers over one store (two processes
// over one database) append concurrently; the chain stays linear and
// complete.
func TestRegister_TwoWriters(t *testing.T) {
	ctx := context.Background()
	s := NewMemStore()
	a, _ := Open(ctx, s)
	b, _ := Open(ctx, s)
	const each = 50
	var wg sync.WaitGroup
	errs := make(chan error, 4*each)
	for w, g := range []*Register{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := g.Append(ctx, decision(fmt.Sprintf("w%d-%d", w, i), uint64(i))); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	head, err := Verify(ctx, s)
	if err != nil || head.Len != 4*each {
		t.Fatalf("Verify = %+v, %v; want %d records", head, err, 4*each)
	}
	// An id the other writer wrote is a duplicate for each writer
	// (whether it had read that record yet or reads it now).
	if _, err := a.Append(ctx, decision("w1-0", 1)); !errors.Is(err, ErrDuplicateID) {
		t.Errorf("append of the other writer's id: %v", err)
	}
	// A writer's next append reads what the others appended first, so
	// after it the writer's head is the store's. (A refused duplicate
	// need not move the head: a writer that already read the id refuses
	// it without reading further.)
	for i, g := range []*Register{a, b} {
		if _, err := g.Append(ctx, decision(fmt.Sprintf("last-%d", i), 1)); err != nil {
			t.Fatal(err)
		}
		head, err := Verify(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if g.Head() != head {
			t.Errorf("writer's head %+v after its append, store's %+v", g.Head(), head)
		}
	}
}

func TestExportLoad(t *testing.T) {
	ctx := context.Background()
	s := sample(t, 5)
	var buf bytes.Buffer
	if err := Export(ctx, &buf, s); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(ctx, bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	h1, err1 := Verify(ctx, s)
	h2, err2 := Verify(ctx, loaded)
	if err1 != nil || err2 != nil || h1 != h2 {
		t.Fatalf("heads %+v %v / %+v %v", h1, err1, h2, err2)
	}
	var again bytes.Buffer
	if err := Export(ctx, &again, loaded); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Fatalf("export of the loaded register differs: %v", err)
	}
	if n := bytes.Count(buf.Bytes(), []byte("\n")); n != s.Len() {
		t.Errorf("%d lines for %d records", n, s.Len())
	}
}

func TestDecoder_Problems(t *testing.T) {
	ctx := context.Background()
	var buf bytes.Buffer
	if err := Export(ctx, &buf, sample(t, 2)); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(buf.String(), "\n")
	line2 := strings.TrimSuffix(lines[1], "\n")
	tests := []struct {
		name    string
		file    string
		line    int
		problem DecodeProblem
	}{
		{"no final newline", strings.TrimSuffix(buf.String(), "\n"), 3, DecodeNoNewline},
		{"blank line", lines[0] + "\n" + lines[1], 2, DecodeSyntax},
		{"not json", lines[0] + "hello\n", 2, DecodeSyntax},
		{"unknown member", lines[0] + strings.Replace(line2, `{"actor"`, `{"zzz":1,"actor"`, 1) + "\n", 2, DecodeSyntax},
		{"spaced", lines[0] + strings.Replace(line2, `":`, `": `, 1) + "\n", 2, DecodeNotCanonical},
		{"crlf", lines[0] + line2 + "\r\n", 2, DecodeNotCanonical},
		{"key in another case", lines[0] + strings.Replace(line2, `"actor"`, `"Actor"`, 1) + "\n", 2, DecodeNotCanonical},
		{"repeated key", lines[0] + strings.Replace(line2, `{"actor":"pipeline"`, `{"actor":"x","actor":"pipeline"`, 1) + "\n", 2, DecodeNotCanonical},
		{"escaped letter", lines[0] + strings.Replace(line2, `"pipeline"`, `"pip\u0065line"`, 1) + "\n", 2, DecodeNotCanonical},
		{"fraction for an integer", lines[0] + strings.Replace(line2, `"time":3`, `"time":3.0`, 1) + "\n", 2, DecodeSyntax},
		{"number form", strings.Replace(lines[0], `"cost":0,`, `"cost":0.0,`, 1) + lines[1], 1, DecodeNotCanonical},
		{"empty inputs", lines[0] + strings.Replace(line2, `,"inputs":["res-000009"]`, `,"inputs":[]`, 1) + "\n", 2, DecodeNotCanonical},
		{"too long", strings.Repeat("x", MaxLineBytes+10) + "\n", 1, DecodeTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.file == buf.String() {
				t.Fatal("the edit changed nothing")
			}
			_, err := Load(ctx, strings.NewReader(tt.file))
			var de *DecodeError
			if !errors.As(err, &de) || !errors.Is(err, ErrDecode) {
				t.Fatalf("Load = %v, want a *DecodeError", err)
			}
			if de.Line != tt.line || de.Problem != tt.problem {
				t.Errorf("Load failed at line %d (%s), want %d (%s)", de.Line, de.Problem, tt.line, tt.problem)
			}
			if strings.Contains(err.Error(), "pipeline") || strings.Contains(err.Error(), "xxxx") {
				t.Errorf("error repeats the line: %v", err)
			}
		})
	}
	d := NewDecoder(strings.NewReader(""))
	if _, err := d.Next(); err != io.EOF {
		t.Errorf("empty file: %v, want io.EOF", err)
	}
}
