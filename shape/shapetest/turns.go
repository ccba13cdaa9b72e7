package shapetest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/shape"
)

// RunSQLTurns checks shape.Options.SQLTurns on a database connect opens:
// with it, while as many calls as processors run their queries, a further
// call runs none until one of them ends (it waits for a turn, and gives up
// when its context ends); without it, the further call's query runs at
// once. Queries are held in the database/sql driver (a Connector wrapped
// around connect's), not timed.
func RunSQLTurns(t *testing.T, connect func(t *testing.T) driver.Connector) {
	fx := Fixtures[1]
	cat := LoadCatalog(t, fx.File)
	ds := cat.Datasets[0]
	ctx := context.Background()
	tool := ""
	for _, tl := range cat.ReadTools() {
		if tl.Shape.Value == "latest_value" {
			tool = tl.Name.Value
			break
		}
	}
	if tool == "" {
		t.Fatalf("%s: no latest_value tool", fx.File)
	}
	call := shape.Call{Tool: tool, Args: fixedArgs(cat, tool, fx.Pools), Scope: shape.All()}
	for _, turns := range []bool{true, false} {
		t.Run(map[bool]string{true: "turns", false: "no turns"}[turns], func(t *testing.T) {
			g := &queryHold{entered: make(chan struct{}, 64), release: make(chan struct{})}
			db := sql.OpenDB(holdConnector{Connector: connect(t), h: g})
			defer db.Close()
			if err := Load(ctx, db, ds, "turns", nil); err != nil {
				t.Fatal(err)
			}
			eng, err := shape.New(ctx, cat, shape.Source{DB: db, Relations: map[string]string{ds.Name.Value: "turns"}}, &shape.Options{SQLTurns: turns})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			n := runtime.GOMAXPROCS(0)
			// Each call's snapshot begins before queries are held.
			snaps := make([]*shape.Snapshot, n+1)
			for i := range snaps {
				if snaps[i], err = eng.Begin(ctx); err != nil {
					t.Fatal(err)
				}
				defer snaps[i].Close()
			}
			g.arm()
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i := range n {
				wg.Go(func() { _, errs[i] = snaps[i].Execute(ctx, call) })
			}
			for range n {
				<-g.entered // every turn is taken, each call held in its query
			}
			late, cancel := context.WithCancel(ctx)
			lateErr := make(chan error, 1)
			go func() { _, err := snaps[n].Execute(late, call); lateErr <- err }()
			// With turns the further call's query cannot start, however
			// long it is given; without them it starts at once.
			var ran bool
			select {
			case <-g.entered:
				ran = true
			case <-time.After(300 * time.Millisecond):
			}
			if turns && ran {
				t.Errorf("a call ran its query while %d calls held every turn", n)
			}
			if !turns && !ran {
				t.Errorf("without turns, a call's query did not start beside %d others", n)
			}
			cancel()
			if turns {
				if err := <-lateErr; !errors.Is(err, context.Canceled) {
					t.Errorf("a call waiting for a turn, its context ended: %v, want canceled", err)
				}
			}
			g.open()
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("held call %d: %v", i, err)
				}
			}
			if !turns {
				<-lateErr // answered or canceled: either is fine without turns
			}
		})
	}
}

// queryHold holds every query a held connection runs, once armed, until
// opened: each held query is reported on entered.
type queryHold struct {
	mu      sync.Mutex
	armed   bool
	entered chan struct{}
	release chan struct{}
}

func (h *queryHold) arm() { h.mu.Lock(); h.armed = true; h.mu.Unlock() }

func (h *queryHold) open() {
	h.mu.Lock()
	h.armed = false
	h.mu.Unlock()
	close(h.release)
}

func (h *queryHold) enter(ctx context.Context) error {
	h.mu.Lock()
	armed := h.armed
	h.mu.Unlock()
	if !armed {
		return nil
	}
	h.entered <- struct{}{}
	select {
	case <-h.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// holdConnector wraps a driver's Connector: its connections' queries pass
// a queryHold first; everything else goes to the driver's connection.
type holdConnector struct {
	driver.Connector
	h *queryHold
}

func (c holdConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &holdConn{Conn: conn, h: c.h}, nil
}

type holdConn struct {
	driver.Conn
	h *queryHold
}

func (c *holdConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if b, ok := c.Conn.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, opts)
	}
	return c.Conn.Begin() //nolint:staticcheck // the driver has no BeginTx
}

func (c *holdConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var st driver.Stmt
	var err error
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, query)
	} else {
		st, err = c.Conn.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return &holdStmt{Stmt: st, h: c.h}, nil
}

func (c *holdConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	if err := c.h.enter(ctx); err != nil {
		return nil, err
	}
	return q.QueryContext(ctx, query, args)
}

func (c *holdConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if e, ok := c.Conn.(driver.ExecerContext); ok {
		return e.ExecContext(ctx, query, args)
	}
	return nil, driver.ErrSkip
}

func (c *holdConn) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := c.Conn.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

type holdStmt struct {
	driver.Stmt
	h *queryHold
}

func (s *holdStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := s.h.enter(ctx); err != nil {
		return nil, err
	}
	if q, ok := s.Stmt.(driver.StmtQueryContext); ok {
		return q.QueryContext(ctx, args)
	}
	return nil, errors.New("hold: the driver's statement has no QueryContext")
}

func (s *holdStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if e, ok := s.Stmt.(driver.StmtExecContext); ok {
		return e.ExecContext(ctx, args)
	}
	return nil, errors.New("hold: the driver's statement has no ExecContext")
}

func (s *holdStmt) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := s.Stmt.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}
