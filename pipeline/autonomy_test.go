package pipeline_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/task"
	"github.com/provenant/provenant/tool"
)

// writeMenu is one write tool, L3.
func writeMenu(t *testing.T) *tool.Wall {
	t.Helper()
	reg, err := tool.NewRegistry([]tool.Def{{
		Name: "open_task", Description: "Open a task.", Class: "action",
		Params: []tool.Param{
			{Name: "store_id", Kind: tool.EntityID, Entity: "store", Pattern: "^st-[0-9]{3}$", Hint: "st- and 3 digits", Description: "Store."},
			{Name: "quantity", Kind: tool.Integer, Min: 1, Max: 10, Description: "Quantity."},
			{Name: "request_key", Kind: tool.Token, Pattern: task.KeyPattern, Hint: "a key", Description: "Key."},
		},
		Value: fact.KindEntityList, IDsField: "task_ids", IDsPattern: task.IDPattern,
		Tier: "L3", Effect: "write",
	}}, "store")
	if err != nil {
		t.Fatal(err)
	}
	return tool.NewWall(reg, nil)
}

// countingExec fails the test's expectations by being called at all for
// a write.
type countingExec struct{ n atomic.Int64 }

func (e *countingExec) Execute(context.Context, tool.Call) (fact.Result, error) {
	e.n.Add(1)
	return fact.Result{}, errors.New("the executor ran a write")
}

type verifies struct{}

func (verifies) Resolve(context.Context, tool.Call, fact.Result) (fact.Verdict, error) {
	return fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true}, nil
}

// fakeWriter opens task ids from the key, or refuses a reused key.
type fakeWriter struct {
	n      atomic.Int64
	reused bool
}

func (w *fakeWriter) Write(_ context.Context, c tool.Call, info pipeline.WriteInfo) (fact.Result, bool, error) {
	w.n.Add(1)
	if w.reused {
		return fact.Result{}, false, task.ErrKeyReused
	}
	id := task.ID(c.Args()["request_key"])
	prov, _ := fact.Events([]string{id})
	r, err := fact.NewResult(c.Tool(), c.Args(), fact.EntityList("task_ids", []string{id}), prov)
	return r, true, err
}

func (w *fakeWriter) Resolve(context.Context, tool.Call, fact.Result) (fact.Verdict, error) {
	return fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true}, nil
}

var writeCall = tool.Proposal{Tool: "open_task", Params: map[string]any{"store_id": "st-003", "quantity": 2, "request_key": "k-1"}}

func TestGate_Pipeline(t *testing.T) {
	t.Run("no gate configured: refused", func(t *testing.T) {
		exec := &countingExec{}
		p := pipeline.New(fakeProvider{}, writeMenu(t), exec, verifies{}, nil)
		if a := p.Call(t.Context(), writeCall); a.Reason().Kind != answer.ReasonNeedsApproval {
			t.Errorf("%s %v; want needs_approval", a.Outcome(), a.Reason())
		}
		if exec.n.Load() != 0 {
			t.Error("the executor ran")
		}
	})
	t.Run("a writer needs a register", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("New accepted a Writer without a Register")
			}
		}()
		pipeline.New(fakeProvider{}, writeMenu(t), &countingExec{}, verifies{}, &pipeline.Options{Autonomy: &pipeline.Autonomy{Writer: &fakeWriter{}}})
	})
	t.Run("granted, the request's context done: timeout, nothing written or counted", func(t *testing.T) {
		auth := autonomy.NewAuthority()
		wall := writeMenu(t)
		gates, err := autonomy.NewSessions(pipeline.Declarations(wall.Registry().Menu()), &autonomy.GateOptions{Authority: auth})
		if err != nil {
			t.Fatal(err)
		}
		store := register.NewMemStore()
		reg, _ := register.Open(t.Context(), store)
		w := &fakeWriter{}
		p := pipeline.New(fakeProvider{}, wall, &countingExec{}, verifies{}, &pipeline.Options{Autonomy: &pipeline.Autonomy{Gates: gates, Writer: w, Register: reg}})
		if _, _, err := auth.Grant(t.Context(), gates, "alice", pipeline.DefaultSession, autonomy.GrantRequest{GrantID: "g-1", Tools: []string{"open_task"}, Tier: autonomy.L3, MaxQuestions: 1, MaxAge: 10}); err != nil {
			t.Fatal(err)
		}
		done, cancel := context.WithCancel(t.Context())
		cancel()
		for range 3 {
			if a := p.Call(done, writeCall); a.Outcome() != answer.Error || a.Reason().Kind != answer.ReasonTimeout {
				t.Errorf("done context: %s %v; want error timeout", a.Outcome(), a.Reason())
			}
		}
		if w.n.Load() != 0 || store.Len() != 0 {
			t.Errorf("writer %d calls, register %d records; want none", w.n.Load(), store.Len())
		}
		// The grant's one question was not spent by the refused calls.
		if a := p.Call(t.Context(), writeCall); a.Outcome() != answer.Answered {
			t.Errorf("live context after: %s %v; want answered", a.Outcome(), a.Reason())
		}
	})
	for _, reused := range []bool{false, true} {
		name := map[bool]string{false: "granted: the writer writes, the register records", true: "granted, key reused: request_key_reused"}[reused]
		t.Run(name, func(t *testing.T) {
			auth := autonomy.NewAuthority()
			wall := writeMenu(t)
			gates, err := autonomy.NewSessions(pipeline.Declarations(wall.Registry().Menu()), &autonomy.GateOptions{Authority: auth})
			if err != nil {
				t.Fatal(err)
			}
			store := register.NewMemStore()
			reg, _ := register.Open(t.Context(), store)
			exec, w := &countingExec{}, &fakeWriter{reused: reused}
			p := pipeline.New(fakeProvider{}, wall, exec, verifies{}, &pipeline.Options{Autonomy: &pipeline.Autonomy{Gates: gates, Writer: w, Register: reg}})
			if _, _, err := auth.Grant(t.Context(), gates, "alice", pipeline.DefaultSession, autonomy.GrantRequest{GrantID: "g-1", Tools: []string{"open_task"}, Tier: autonomy.L3, MaxQuestions: 1, MaxAge: 10}); err != nil {
				t.Fatal(err)
			}
			a := p.Call(t.Context(), writeCall)
			switch {
			case reused && a.Reason().Kind != answer.ReasonKeyReused:
				t.Errorf("%s %v; want request_key_reused", a.Outcome(), a.Reason())
			case !reused && a.Outcome() != answer.Answered:
				t.Errorf("%s %v; want answered", a.Outcome(), a.Reason())
			}
			if exec.n.Load() != 0 || w.n.Load() != 1 {
				t.Errorf("executor %d, writer %d calls; want 0 and 1", exec.n.Load(), w.n.Load())
			}
			if want := map[bool]int{false: 1, true: 0}[reused]; store.Len() != want {
				t.Errorf("register holds %d records; want %d", store.Len(), want)
			}
			// The grant covered one question: the next is refused.
			if a := p.Call(t.Context(), writeCall); a.Reason().Kind != answer.ReasonNeedsApproval {
				t.Errorf("after the grant: %s %v; want needs_approval", a.Outcome(), a.Reason())
			}
		})
	}
}

// loggedWriter is a fakeWriter that, when it writes, reads which event
// types the log has acknowledged.
type loggedWriter struct {
	fakeWriter
	store *eventlog.MemStore
	seen  []eventlog.Type
}

func (w *loggedWriter) Write(ctx context.Context, c tool.Call, info pipeline.WriteInfo) (fact.Result, bool, error) {
	evs, err := eventlog.ReadAll(ctx, w.store)
	if err != nil {
		return fact.Result{}, false, err
	}
	for _, e := range evs {
		w.seen = append(w.seen, e.Type)
	}
	return w.fakeWriter.Write(ctx, c, info)
}

// TestGate_WriteAfterItsInvocationIsAcknowledged: the pipeline waits for
// its events once per request, except before a write, which runs only
// once its tool.invoked is acknowledged; when that fails the write does
// not run.
func TestGate_WriteAfterItsInvocationIsAcknowledged(t *testing.T) {
	for _, fail := range []bool{false, true} {
		auth := autonomy.NewAuthority()
		wall := writeMenu(t)
		gates, err := autonomy.NewSessions(pipeline.Declarations(wall.Registry().Menu()), &autonomy.GateOptions{Authority: auth})
		if err != nil {
			t.Fatal(err)
		}
		reg, _ := register.Open(t.Context(), register.NewMemStore())
		store := &failingStore{fail: map[int]bool{1: fail}}
		l, err := eventlog.NewLog(t.Context(), store, &eventlog.Options{Seed: 1, Deterministic: true})
		if err != nil {
			t.Fatal(err)
		}
		w := &loggedWriter{store: &store.MemStore}
		p := pipeline.New(fakeProvider{}, wall, &countingExec{}, verifies{}, &pipeline.Options{
			Events:   &pipeline.Events{Log: l},
			Autonomy: &pipeline.Autonomy{Gates: gates, Writer: w, Register: reg},
		})
		if _, _, err := auth.Grant(t.Context(), gates, "alice", pipeline.DefaultSession, autonomy.GrantRequest{GrantID: "g-1", Tools: []string{"open_task"}, Tier: autonomy.L3, MaxQuestions: 1, MaxAge: 10}); err != nil {
			t.Fatal(err)
		}
		a := p.Call(t.Context(), writeCall)
		switch {
		case fail && (a.Outcome() != answer.Error || w.n.Load() != 0):
			t.Errorf("tool.invoked not acknowledged: %s %v after %d writes; want error internal and no write", a.Outcome(), a.Reason(), w.n.Load())
		case !fail && (a.Outcome() != answer.Answered || w.n.Load() != 1):
			t.Errorf("%s %v after %d writes; want answered after one", a.Outcome(), a.Reason(), w.n.Load())
		case !fail && (len(w.seen) == 0 || w.seen[len(w.seen)-1] != eventlog.TypeToolInvoked):
			t.Errorf("the writer saw %v acknowledged; want the request's events up to tool.invoked", w.seen)
		}
	}
}
