package postgres_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/autonomy/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// tickCounter counts the statements that tick bare sessions, one alone
// or a group (they read the grants and call nextval).
type tickCounter struct{ alone, grouped atomic.Int64 }

func (c *tickCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if strings.Contains(d.SQL, "nextval") && strings.Contains(d.SQL, "count(*)") {
		if strings.Contains(d.SQL, "unnest") {
			c.grouped.Add(1)
		} else {
			c.alone.Add(1)
		}
	}
	return ctx
}

func (c *tickCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// openCounted opens a ledger on a throwaway schema whose statements
// cnt counts, on a pool of its own (closed by the test).
func openCounted(t *testing.T, cnt *tickCounter) (*postgres.Store, *sql.DB) {
	t.Helper()
	dsn, schema := pgtest.SchemaNamed(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tracer = cnt
	db := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { db.Close() })
	l, err := postgres.New(t.Context(), db, &postgres.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, db
}

// TestTickBare_Grouped: bare ticks of concurrent questions share
// statements (fewer statements than calls), and each call still gets
// what it would alone: a session holding a grant is not ticked and
// gets nothing, every other is ticked at a time of its own, with its
// own session's time; calls made one after another tick in order, each
// after the last.
func TestTickBare_Grouped(t *testing.T) {
	cnt := &tickCounter{}
	l, _ := openCounted(t, cnt)
	ctx := t.Context()
	const ahead = 1_000_000
	if err := l.Update(ctx, "ahead", func(st *autonomy.SessionState) error { st.Now = ahead; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := l.Update(ctx, "granted", func(st *autonomy.SessionState) error {
		st.Grants = append(st.Grants, autonomy.GrantRow{ID: "g1", Tools: []string{"open_task"}, Tier: autonomy.L3,
			Approver: "alice", Granted: 1, MaxQuestions: 5, MaxAge: 100})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	before, err := l.Now(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const calls = 96
	sessions := []string{"fresh", "ahead", "granted"}
	type result struct {
		session string
		now     int64
		st      autonomy.SessionState
		ticked  bool
		err     error
	}
	results := make([]result, calls)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			<-start
			s := sessions[i%len(sessions)]
			now, st, ticked, err := l.TickBare(ctx, s)
			results[i] = result{s, now, st, ticked, err}
		})
	}
	close(start)
	wg.Wait()
	times := map[int64]bool{}
	for _, r := range results {
		switch {
		case r.err != nil:
			t.Errorf("tick bare %s: %v", r.session, r.err)
		case r.session == "granted":
			if r.ticked || r.now != 0 || r.st.Now != 0 || len(r.st.Grants) != 0 {
				t.Errorf("tick bare of a session holding a grant: %d %+v %v; want not ticked, nothing returned", r.now, r.st, r.ticked)
			}
		case !r.ticked || r.now <= before || times[r.now]:
			t.Errorf("tick bare %s: ticked %v at %d; want ticked after %d at a time no other call got", r.session, r.ticked, r.now, before)
		case r.session == "ahead" && r.st.Now != ahead, r.session == "fresh" && r.st.Now != 0:
			t.Errorf("tick bare %s: session time %d", r.session, r.st.Now)
		default:
			times[r.now] = true
		}
	}
	if want := calls * 2 / 3; len(times) != want {
		t.Errorf("%d distinct ticks, want %d", len(times), want)
	}
	alone, grouped := cnt.alone.Load(), cnt.grouped.Load()
	if grouped == 0 || alone+grouped >= calls/2 {
		t.Errorf("%d calls ran %d statements alone and %d grouped; want them grouped, in fewer than %d statements", calls, alone, grouped, calls/2)
	}
	// One after another: each tick after the one that returned before it.
	last, _, _, err := l.TickBare(ctx, "fresh")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		now, _, ticked, err := l.TickBare(ctx, "fresh")
		if err != nil || !ticked || now <= last {
			t.Fatalf("tick bare after one that returned %d: %d %v %v", last, now, ticked, err)
		}
		last = now
	}
}

// TestTickBare_GroupFails: when the statement fails (here, the database
// is closed under the store), every call of every group gets the error,
// and none waits for ever.
func TestTickBare_GroupFails(t *testing.T) {
	l, db := openCounted(t, &tickCounter{})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 32)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			_, _, _, errs[i] = l.TickBare(t.Context(), "s1")
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil || !strings.HasPrefix(err.Error(), "tick bare session: ") || !strings.Contains(err.Error(), "database is closed") {
			t.Errorf("call %d: %v, want the statement's error", i, err)
		}
	}
}

// TestTickBare_Canceled: a call whose context is already done returns
// its error and ticks nothing.
func TestTickBare_Canceled(t *testing.T) {
	cnt := &tickCounter{}
	l, _ := openCounted(t, cnt)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, _, err := l.TickBare(ctx, "s1"); err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Errorf("tick bare, canceled: %v", err)
	}
	if n := cnt.alone.Load() + cnt.grouped.Load(); n != 0 {
		t.Errorf("a canceled call ran %d statements", n)
	}
}
