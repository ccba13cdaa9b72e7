package engine

import (
	"context"
	"fmt"

	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/task/sqlstore"
	"github.com/provenant/provenant/tool"
)

// Autonomy configures a catalog engine's autonomy gate and write path.
// The engine never holds the autonomy.Authority: Gates, when set, is a
// constructor main closes over it.
type Autonomy struct {
	// Gates builds the store of every session's gate over the menu's
	// declarations (autonomy.NewSessions with main's Authority); nil:
	// a store that accepts no grant, so every session stays at L1.
	Gates func(tools []autonomy.Tool) (autonomy.Store, error)
	// Session names the session of a request that carries none.
	Session string
	// Register records every write and approval as a decision; nil:
	// Options.Register, or else an in-memory register, verified but lost
	// at exit.
	Register pipeline.DecisionRegister
	// OnEvent receives the autonomy events (pipeline.Autonomy.OnEvent).
	OnEvent func(context.Context, eventlog.Payload)
	// Writes enables the write tools of Open's store-file catalog,
	// which has no catalog file to say `writes: {enabled: true}` in
	// (OpenCatalog reads the catalog's own switch and ignores this).
	Writes bool
}

// autonomyOptions builds the pipeline's autonomy options: the gate store
// over reg's menu and, for a catalog whose writes are enabled, the task
// writer over its tasks table in src (created when missing).
func autonomyOptions(ctx context.Context, cat *catalog.Catalog, src shape.Source, reg *tool.Registry, o *Autonomy, decisions DecisionRegister) (*pipeline.Autonomy, error) {
	var a Autonomy
	if o != nil {
		a = *o
	}
	if a.Register == nil && decisions != nil {
		a.Register = decisions
	}
	out := &pipeline.Autonomy{Session: a.Session, Register: a.Register, OnEvent: a.OnEvent}
	if a.Gates != nil {
		g, err := a.Gates(pipeline.Declarations(reg.Menu()))
		if err != nil {
			return nil, fmt.Errorf("open autonomy gates: %w", err)
		}
		out.Gates = g
	}
	if len(cat.WriteTools()) == 0 {
		return out, nil
	}
	store, err := sqlstore.Open(ctx, src.DB, cat.TasksTable())
	if err != nil {
		return nil, err
	}
	w, err := newTaskWriter(cat, store)
	if err != nil {
		return nil, err
	}
	out.Writer = w
	if out.Register == nil {
		r, err := register.Open(ctx, register.NewMemStore())
		if err != nil {
			return nil, err
		}
		out.Register = r
	}
	return out, nil
}
