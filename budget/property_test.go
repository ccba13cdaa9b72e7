package budget

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// model is an independent account of a budget tree, rebuilt from its
// events alone. apply fails when an event could not have happened to a
// correct budget: a grant beyond what remained, a denial of something that
// fitted, a settlement beyond its reservation, a reported remainder that
// differs from the model's.
type model struct {
	b   map[string]*mBudget
	res map[uint64]mRes
}

type mBudget struct {
	parent                                       string
	total, remaining, reserved, allocated, spent Amount
	closed                                       bool
}

type mRes struct {
	budget string
	amount Amount
}

func newModel(root string, total Amount) *model {
	return &model{b: map[string]*mBudget{root: {total: total, remaining: total}}, res: map[uint64]mRes{}}
}

func (m *model) get(name string) (*mBudget, error) {
	b, ok := m.b[name]
	if !ok {
		return nil, fmt.Errorf("event names an unknown budget %q", name)
	}
	if b.closed {
		return nil, fmt.Errorf("event on closed budget %q", name)
	}
	return b, nil
}

func (m *model) apply(e Event) error {
	b, err := m.get(e.Budget)
	if err != nil {
		return err
	}
	fits := func(a Amount, what string) error {
		if over := a.Exceeding(b.remaining); over != nil {
			return fmt.Errorf("%s granted %v beyond remaining %v of %s", what, a, b.remaining, e.Budget)
		}
		return nil
	}
	switch e.Type {
	case EventReserved:
		if err := fits(e.Amount, "reservation"); err != nil {
			return err
		}
		if _, dup := m.res[e.Reservation]; dup {
			return fmt.Errorf("reservation id %d granted twice", e.Reservation)
		}
		b.remaining = b.remaining.Sub(e.Amount)
		b.reserved = b.reserved.Add(e.Amount)
		m.res[e.Reservation] = mRes{e.Budget, e.Amount}
	case EventExceeded:
		over := e.Amount.Exceeding(b.remaining)
		if over == nil || !slices.Equal(over, e.Components) {
			return fmt.Errorf("denied %v on %v with remaining %v; the model says %v do not fit", e.Amount, e.Components, b.remaining, over)
		}
	case EventSettled:
		r, ok := m.res[e.Reservation]
		if !ok || r.budget != e.Budget || r.amount != e.Amount {
			return fmt.Errorf("settled unknown reservation %d", e.Reservation)
		}
		if over := e.Used.Exceeding(r.amount); over != nil {
			return fmt.Errorf("settled %v beyond reservation %v", e.Used, r.amount)
		}
		delete(m.res, e.Reservation)
		b.reserved = b.reserved.Sub(r.amount)
		b.spent = b.spent.Add(e.Used)
		b.remaining = b.remaining.Add(r.amount.Sub(e.Used))
	case EventOverrun:
		r, ok := m.res[e.Reservation]
		if !ok || e.Used.Exceeding(r.amount) == nil {
			return fmt.Errorf("overrun reported for a settlement within its reservation")
		}
	case EventAllocated:
		if err := fits(e.Amount, "child"); err != nil {
			return err
		}
		if _, dup := m.b[e.Child]; dup {
			return fmt.Errorf("child %q allocated twice", e.Child)
		}
		b.remaining = b.remaining.Sub(e.Amount)
		b.allocated = b.allocated.Add(e.Amount)
		m.b[e.Child] = &mBudget{parent: e.Budget, total: e.Amount, remaining: e.Amount}
	case EventReleased:
		c, err := m.get(e.Child)
		if err != nil {
			return err
		}
		if c.parent != e.Budget || !c.reserved.IsZero() || !c.allocated.IsZero() || c.remaining != e.Amount {
			return fmt.Errorf("released %q in state %+v, giving back %v", e.Child, c, e.Amount)
		}
		b.allocated = b.allocated.Sub(c.total)
		b.spent = b.spent.Add(c.spent)
		b.remaining = b.remaining.Add(c.remaining)
		c.closed = true
	case EventReallocated:
		to, err := m.get(e.Child)
		if err != nil {
			return err
		}
		if err := fits(e.Amount, "reallocation"); err != nil {
			return err
		}
		b.remaining = b.remaining.Sub(e.Amount)
		to.remaining = to.remaining.Add(e.Amount)
		switch {
		case b.parent != "" && b.parent == to.parent:
			b.total = b.total.Sub(e.Amount)
			to.total = to.total.Add(e.Amount)
		case to.parent == e.Budget:
			b.allocated = b.allocated.Add(e.Amount)
			to.total = to.total.Add(e.Amount)
		case b.parent == e.Child:
			b.total = b.total.Sub(e.Amount)
			to.allocated = to.allocated.Sub(e.Amount)
		default:
			return fmt.Errorf("reallocated between unrelated budgets")
		}
		if err := m.check(e.Child); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown event type %q", e.Type)
	}
	if e.Remaining != b.remaining {
		return fmt.Errorf("%s event reports remaining %v, the model has %v", e.Type, e.Remaining, b.remaining)
	}
	return m.check(e.Budget)
}

// check is the accounting invariant on one budget, with the reserved part
// summed from the live reservations rather than taken from a running sum.
func (m *model) check(name string) error {
	b := m.b[name]
	var reserved Amount
	for _, r := range m.res {
		if r.budget == name {
			reserved = reserved.Add(r.amount)
		}
	}
	if reserved != b.reserved {
		return fmt.Errorf("%s: live reservations sum to %v, running sum %v", name, reserved, b.reserved)
	}
	if sum := b.remaining.Add(reserved).Add(b.allocated).Add(b.spent); sum != b.total {
		return fmt.Errorf("%s: remaining+reserved+allocated+spent = %v, total %v", name, sum, b.total)
	}
	if neg := b.remaining.Negative(); neg != nil {
		return fmt.Errorf("%s: remaining negative on %v", name, neg)
	}
	return nil
}

// state returns the model's view of one budget as a State.
func (m *model) state(name string) State {
	b := m.b[name]
	s := State{Name: name, Total: b.total, Remaining: b.remaining, Reserved: b.reserved, Allocated: b.allocated, Spent: b.spent, Closed: b.closed}
	for _, r := range m.res {
		if r.budget == name {
			s.Live++
		}
	}
	for _, c := range m.b {
		if c.parent == name && !c.closed {
			s.Children++
		}
	}
	return s
}

func drawAmount(t *rapid.T, label string, max Amount) Amount {
	var a Amount
	for _, c := range Components() {
		// Up to a little beyond max, so some requests do not fit.
		a = a.With(c, rapid.Int64Range(0, max.Get(c)+max.Get(c)/4+1).Draw(t, label+"."+c.String()))
	}
	return a
}

func drawTotal(t *rapid.T) Amount {
	var a Amount
	for _, c := range Components() {
		a = a.With(c, rapid.Int64Range(0, 1000).Draw(t, "total."+c.String()))
	}
	return a
}

// TestBudget_Model runs arbitrary sequences of reserve, settle, child,
// close and reallocate against the model: every result, every denial (and
// the components it names) and every state agree with it.
func TestBudget_Model(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		total := drawTotal(t)
		var mdl *model
		var applyErr error
		root, err := New("s", total, &Options{OnEvent: func(e Event) {
			if err := mdl.apply(e); err != nil && applyErr == nil {
				applyErr = err
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		mdl = newModel("s", total)
		budgets := []*Budget{root}
		var live []*Reservation
		nChild := 0
		open := func() []*Budget {
			var out []*Budget
			for _, b := range budgets {
				if !mdl.b[b.Name()].closed {
					out = append(out, b)
				}
			}
			return out
		}
		t.Repeat(map[string]func(*rapid.T){
			"reserve": func(t *rapid.T) {
				b := rapid.SampledFrom(open()).Draw(t, "budget")
				want := mdl.state(b.Name())
				a := drawAmount(t, "amount", want.Remaining)
				r, err := b.Reserve(a)
				over := a.Exceeding(want.Remaining)
				var d *DeniedError
				switch {
				case over == nil && err != nil:
					t.Fatalf("reserve %v of remaining %v: %v", a, want.Remaining, err)
				case over != nil && (!errors.As(err, &d) || !slices.Equal(d.Components, over) || !errors.Is(err, ErrExhausted)):
					t.Fatalf("reserve %v of remaining %v: err %v, want denial on %v", a, want.Remaining, err, over)
				case err == nil:
					live = append(live, r)
				}
			},
			"settle": func(t *rapid.T) {
				if len(live) == 0 {
					t.Skip("no live reservation")
				}
				i := rapid.IntRange(0, len(live)-1).Draw(t, "reservation")
				r := live[i]
				used := drawAmount(t, "used", r.Amount())
				b := budgetOf(budgets, mdl.res[r.ID()].budget)
				unused, err := b.Settle(r, used)
				if over := used.Exceeding(r.Amount()); over != nil {
					var o *OverrunError
					if !errors.As(err, &o) || !slices.Equal(o.Components, over) {
						t.Fatalf("settle %v of %v: err %v, want overrun on %v", used, r.Amount(), err, over)
					}
					return
				}
				if err != nil || unused != r.Amount().Sub(used) {
					t.Fatalf("settle %v of %v = %v, %v", used, r.Amount(), unused, err)
				}
				live = slices.Delete(live, i, i+1)
			},
			"child": func(t *rapid.T) {
				b := rapid.SampledFrom(open()).Draw(t, "parent")
				rem := mdl.state(b.Name()).Remaining
				a := drawAmount(t, "amount", rem)
				nChild++
				c, err := b.Child(fmt.Sprint("c", nChild), a)
				if over := a.Exceeding(rem); over != nil {
					var d *DeniedError
					if !errors.As(err, &d) || !slices.Equal(d.Components, over) {
						t.Fatalf("child %v of %v: err %v, want denial on %v", a, rem, err, over)
					}
					return
				}
				if err != nil {
					t.Fatalf("child %v of %v: %v", a, rem, err)
				}
				budgets = append(budgets, c)
			},
			"close": func(t *rapid.T) {
				b := rapid.SampledFrom(open()).Draw(t, "budget")
				want := mdl.state(b.Name())
				back, err := b.Close()
				switch {
				case b == root:
					if !errors.Is(err, ErrRoot) {
						t.Fatalf("close root: %v", err)
					}
				case want.Live > 0 || want.Children > 0:
					if !errors.Is(err, ErrBusy) {
						t.Fatalf("close busy %s: %v", b.Name(), err)
					}
				case err != nil || back != want.Remaining:
					t.Fatalf("close %s = %v, %v; want %v", b.Name(), back, err, want.Remaining)
				}
			},
			"reallocate": func(t *rapid.T) {
				o := open()
				from := rapid.SampledFrom(o).Draw(t, "from")
				to := rapid.SampledFrom(o).Draw(t, "to")
				rem := mdl.state(from.Name()).Remaining
				a := drawAmount(t, "amount", rem)
				err := Reallocate(from, to, a)
				fm, tm := mdl.b[from.Name()], mdl.b[to.Name()]
				related := from != to && ((fm.parent != "" && fm.parent == tm.parent) || tm.parent == from.Name() || fm.parent == to.Name())
				switch {
				case !related:
					if !errors.Is(err, ErrUnrelated) {
						t.Fatalf("reallocate unrelated %s to %s: %v", from.Name(), to.Name(), err)
					}
				case a.Exceeding(rem) != nil:
					if !errors.Is(err, ErrExhausted) {
						t.Fatalf("reallocate %v of %v: %v", a, rem, err)
					}
				case err != nil:
					t.Fatalf("reallocate %v of %v: %v", a, rem, err)
				}
			},
			"": func(t *rapid.T) {
				if applyErr != nil {
					t.Fatal(applyErr)
				}
				for _, b := range budgets {
					got, want := b.Snapshot(), mdl.state(b.Name())
					if got != want {
						t.Fatalf("state of %s = %+v\nmodel        %+v", b.Name(), got, want)
					}
					if !got.Closed {
						invariant(t, got)
					}
				}
			},
		})
	})
}

func budgetOf(bs []*Budget, name string) *Budget {
	for _, b := range bs {
		if b.Name() == name {
			return b
		}
	}
	return nil
}

type op struct {
	kind   int // 0 reserve, 1 settle, 2 reallocate, 3 cycle own child, 4 yield
	child  int
	to     int
	amount Amount
	frac   int // settle: used = reserved * frac / 4, frac 5 is an overrun
}

// TestBudget_Concurrent runs arbitrary scripts of reserve, settle,
// reallocation and child turnover from concurrent goroutines over one
// session and its questions. Every event, in the order it took effect, is
// replayed on the model (so nothing was granted beyond what remained and
// every budget balanced after every operation); a watcher takes snapshots
// throughout; at the end every budget balances and what the session spent
// is exactly what the goroutines used.
func TestBudget_Concurrent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		total := drawTotal(t)
		nChildren := rapid.IntRange(1, 3).Draw(t, "children")
		nWorkers := rapid.IntRange(2, 4).Draw(t, "workers")
		scripts := make([][]op, nWorkers)
		for w := range scripts {
			scripts[w] = rapid.SliceOfN(rapid.Custom(func(t *rapid.T) op {
				o := op{kind: rapid.IntRange(0, 4).Draw(t, "kind"), child: rapid.IntRange(0, nChildren-1).Draw(t, "child"),
					to: rapid.IntRange(0, nChildren).Draw(t, "to"), frac: rapid.IntRange(0, 5).Draw(t, "frac")}
				o.amount = drawAmount(t, "amount", Amount{USD: 100, Tokens: 100, ToolCalls: 100, SimSeconds: 100, RowsScanned: 100})
				return o
			}), 0, 30).Draw(t, fmt.Sprint("script", w))
		}

		var mdl *model
		var applyErr error
		root, err := New("s", total, &Options{OnEvent: func(e Event) {
			if err := mdl.apply(e); err != nil && applyErr == nil {
				applyErr = fmt.Errorf("after %s: %w", e.Type, err)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		mdl = newModel("s", total)
		share := Amount{}
		for _, c := range Components() {
			share = share.With(c, total.Get(c)/int64(nChildren+1))
		}
		children := make([]*Budget, nChildren)
		for i := range children {
			if children[i], err = root.Child(fmt.Sprint("q", i), share); err != nil {
				t.Fatal(err)
			}
		}

		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			used     Amount // what settlements used, summed by the workers
			failures []string
			stop     = make(chan struct{})
		)
		fail := func(format string, args ...any) {
			mu.Lock()
			failures = append(failures, fmt.Sprintf(format, args...))
			mu.Unlock()
		}
		watch := make(chan struct{})
		go func() { // the watcher
			defer close(watch)
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, b := range append([]*Budget{root}, children...) {
					s := b.Snapshot()
					if sum := s.Remaining.Add(s.Reserved).Add(s.Allocated).Add(s.Spent); sum != s.Total || s.Remaining.Negative() != nil {
						fail("snapshot of %s does not balance: %+v", s.Name, s)
					}
				}
				runtime.Gosched()
			}
		}()
		for w, script := range scripts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				type held struct {
					b *Budget
					r *Reservation
				}
				var mine []held
				var own *Budget // a question budget this worker opens and closes
				for i, o := range script {
					switch o.kind {
					case 0:
						b := children[o.child]
						if own != nil && o.frac%2 == 0 {
							b = own
						}
						r, err := b.Reserve(o.amount)
						if err == nil {
							mine = append(mine, held{b, r})
						} else if !errors.Is(err, ErrExhausted) {
							fail("reserve: %v", err)
						}
					case 1:
						if len(mine) == 0 {
							continue
						}
						h := mine[0]
						var u Amount
						for _, c := range Components() {
							u = u.With(c, h.r.Amount().Get(c)*int64(o.frac)/4)
						}
						_, err := h.b.Settle(h.r, u)
						if u.Exceeding(h.r.Amount()) != nil {
							if !errors.Is(err, ErrOverrun) {
								fail("settle beyond reservation: %v", err)
							}
							continue
						}
						if err != nil {
							fail("settle: %v", err)
							continue
						}
						mu.Lock()
						used = used.Add(u)
						mu.Unlock()
						mine = mine[1:]
					case 2:
						from := children[o.child]
						to := root
						if o.to < nChildren {
							to = children[o.to]
						}
						if o.frac == 0 {
							from, to = to, from
						}
						if err := Reallocate(from, to, o.amount); err != nil && !errors.Is(err, ErrExhausted) && !errors.Is(err, ErrUnrelated) {
							fail("reallocate: %v", err)
						}
					case 3:
						if own == nil {
							c, err := root.Child(fmt.Sprint("w", w, "-", i), o.amount)
							if err == nil {
								own = c
							} else if !errors.Is(err, ErrExhausted) {
								fail("child: %v", err)
							}
							continue
						}
						// Settle everything held on it, then close it.
						rest := mine[:0]
						for _, h := range mine {
							if h.b != own {
								rest = append(rest, h)
								continue
							}
							if _, err := own.Settle(h.r, Amount{}); err != nil {
								fail("settle own: %v", err)
							}
						}
						mine = rest
						if _, err := own.Close(); err != nil {
							fail("close own: %v", err)
						}
						own = nil
					case 4:
						runtime.Gosched()
					}
				}
				for _, h := range mine {
					if _, err := h.b.Settle(h.r, Amount{}); err != nil {
						fail("final settle: %v", err)
					}
				}
				if own != nil {
					if _, err := own.Close(); err != nil {
						fail("final close: %v", err)
					}
				}
			}()
		}
		wg.Wait()
		close(stop)
		<-watch
		if failures != nil {
			t.Fatal(failures[0])
		}
		if applyErr != nil {
			t.Fatal(applyErr)
		}
		for _, c := range children {
			if _, err := c.Close(); err != nil {
				t.Fatal(err)
			}
		}
		s := root.Snapshot()
		invariant(t, s)
		if s.Spent != used || s.Remaining != total.Sub(used) || s.Live != 0 || s.Children != 0 {
			t.Fatalf("session after all work = %+v; the workers used %v of %v", s, used, total)
		}
		if s != mdl.state("s") {
			t.Fatalf("session %+v, model %+v", s, mdl.state("s"))
		}
	})
}
