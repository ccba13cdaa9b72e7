package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/task"
	"github.com/provenant/provenant/tool"
)

// taskWriter runs a catalog's append_task tools over its tasks table:
// the pipeline's Writer. The pipeline lets a call through only under a
// human's L3 grant; the wall has checked every argument's domain and the
// caller's scope.
type taskWriter struct {
	store task.Store
	tools map[string]*catalog.Tool
	cols  map[string][]string // by tool: the subject's parameter names, in order
}

var _ pipeline.Writer = (*taskWriter)(nil)

func newTaskWriter(cat *catalog.Catalog, store task.Store) (*taskWriter, error) {
	w := &taskWriter{store: store, tools: map[string]*catalog.Tool{}, cols: map[string][]string{}}
	for _, t := range cat.WriteTools() {
		ds := cat.Dataset(t.Dataset.Value)
		if ds == nil || t.Task == nil {
			return nil, fmt.Errorf("open task writer: tool %s: no dataset or task", t.Name.Value)
		}
		w.tools[t.Name.Value] = t
		for _, e := range t.Task.Entities {
			ent := ds.Entity(e.Value)
			if ent == nil {
				return nil, fmt.Errorf("open task writer: tool %s: entity %s is not declared", t.Name.Value, e.Value)
			}
			w.cols[t.Name.Value] = append(w.cols[t.Name.Value], ent.Column.Value)
		}
	}
	return w, nil
}

// request reads a validated call as the task it asks for.
func (w *taskWriter) request(c tool.Call, info pipeline.WriteInfo) (task.Request, error) {
	t, ok := w.tools[c.Tool()]
	if !ok {
		return task.Request{}, fmt.Errorf("write %s: %w", c.Tool(), shape.ErrUnknownTool)
	}
	args := c.Args()
	subject := make(map[string]string, len(w.cols[c.Tool()]))
	for _, col := range w.cols[c.Tool()] {
		subject[col] = args[col]
	}
	qty, err := strconv.ParseInt(args[catalog.ParamQuantity], 10, 64)
	if err != nil {
		return task.Request{}, fmt.Errorf("write %s: quantity: %w", c.Tool(), err)
	}
	return task.Request{Tool: c.Tool(), Kind: t.Task.Kind.Value, Subject: subject, Quantity: qty,
		Key: args[catalog.ParamRequestKey], Session: info.Session, Approver: info.Approver}, nil
}

// Write appends the task, or finds the one its request key opened.
func (w *taskWriter) Write(ctx context.Context, c tool.Call, info pipeline.WriteInfo) (fact.Result, bool, error) {
	req, err := w.request(c, info)
	if err != nil {
		return fact.Result{}, false, err
	}
	t, created, err := w.store.Append(ctx, req)
	if err != nil {
		return fact.Result{}, false, err
	}
	prov, err := fact.Events([]string{t.ID})
	if err != nil {
		return fact.Result{}, false, err
	}
	r, err := fact.NewResult(c.Tool(), c.Args(), fact.EntityList(shape.TaskIDsField, []string{t.ID}), prov)
	return r, created, err
}

// Resolve re-reads the task a result names and judges it against the
// call: the row exists, it is the one the request key names, and it
// holds the call's arguments.
func (w *taskWriter) Resolve(ctx context.Context, c tool.Call, r fact.Result) (fact.Verdict, error) {
	req, err := w.request(c, pipeline.WriteInfo{})
	if err != nil {
		return fact.Verdict{}, err
	}
	id := task.ID(req.Key)
	got, err := w.store.Get(ctx, id)
	if errors.Is(err, task.ErrNotFound) {
		return fact.Verdict{}, nil
	}
	if err != nil {
		return fact.Verdict{}, err
	}
	events := r.Provenance.EventIDs()
	v := fact.Verdict{
		ProvenanceValid: slices.Equal(events, []string{id}) && got.Same(req),
		ValueMatches:    r.Value.Kind == fact.KindEntityList && slices.Equal(r.Value.IDs, []string{id}),
		Complete:        r.Provenance.NumEvents() == 1,
		Enumerated:      1,
	}
	return v, nil
}
