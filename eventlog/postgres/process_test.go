package postgres_test

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/postgres"
	"github.com/provenant/provenant/internal/govchild"
	"github.com/provenant/provenant/register"
	regpg "github.com/provenant/provenant/register/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// The child's PostgreSQL place.
const (
	envDSN    = "PROVENANT_GOVCHILD_DSN"
	envSchema = "PROVENANT_GOVCHILD_SCHEMA"
)

func TestMain(m *testing.M) {
	if code, ok := govchild.Main(openBoth); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func openBoth(ctx context.Context) (eventlog.Store, register.Store, func(), error) {
	dsn, schema := os.Getenv(envDSN), os.Getenv(envSchema)
	ev, err := postgres.Open(ctx, dsn, &postgres.Options{Schema: schema})
	if err != nil {
		return nil, nil, nil, err
	}
	reg, err := regpg.Open(ctx, dsn, &regpg.Options{Schema: schema})
	if err != nil {
		ev.Close()
		return nil, nil, nil, err
	}
	return ev, reg, func() { ev.Close(); reg.Close() }, nil
}

func reopen(t *testing.T, dsn, schema string) (*postgres.Store, *regpg.Store) {
	t.Helper()
	ev, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ev.Close() })
	reg, err := regpg.Open(t.Context(), dsn, &regpg.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	return ev, reg
}

// TestProcesses_ShareOneChain: three processes append to one schema's
// event log (each its own run, and all of them one shared producer) and
// register at once; afterwards both verify, every (run, producer)'s seqs
// are dense and unique, and the stores hold exactly what the children
// acknowledged.
func TestProcesses_ShareOneChain(t *testing.T) {
	dsn, schema := pgtest.SchemaNamed(t)
	env := []string{envDSN + "=" + dsn, envSchema + "=" + schema}
	const children, rounds = 3, 40
	var kids []*govchild.Child
	for i := range children {
		kids = append(kids, govchild.Start(t, "hammer", i, rounds, env...))
	}
	var acks govchild.Acks
	for i, k := range kids {
		if err := acks.Read(k.Out, nil); err != nil {
			t.Fatalf("child %d: %v", i, err)
		}
		if err := k.Cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v: %s", i, err, k.Stderr)
		}
	}
	if len(acks.Events) != children*rounds*2 || len(acks.Records) != children*rounds {
		t.Fatalf("children acknowledged %d events and %d records; want %d and %d", len(acks.Events), len(acks.Records), children*rounds*2, children*rounds)
	}
	ev, reg := reopen(t, dsn, schema)
	govchild.Check(t, ev, reg, acks, true)
	// The children ran at once: their events interleave in append order.
	all, err := eventlog.ReadAll(t.Context(), ev)
	if err != nil {
		t.Fatal(err)
	}
	switches := 0
	for i := 1; i < len(all); i++ {
		if all[i].Correlation != all[i-1].Correlation || all[i].Run != all[i-1].Run {
			switches++
		}
	}
	if switches < children {
		t.Errorf("the children's appends did not interleave (%d switches): the test did not run them concurrently", switches)
	}
	if seq, _, err := ev.Last(t.Context(), govchild.SharedRun, govchild.SharedProducer); err != nil || seq != children*rounds {
		t.Errorf("shared producer's last seq %d, %v; want %d", seq, err, children*rounds)
	}
}

// TestCrash_KillMidLoad: a child appending to the log and the register
// is killed with SIGKILL after some acknowledgements, twice (the second
// child continues the first's run); each time, on reopening, both verify
// and every acknowledged id is there.
func TestCrash_KillMidLoad(t *testing.T) {
	dsn, schema := pgtest.SchemaNamed(t)
	env := []string{envDSN + "=" + dsn, envSchema + "=" + schema}
	var acks govchild.Acks
	for round := range 2 {
		k := govchild.Start(t, "crash", 0, 0, env...)
		target := len(acks.Events) + 30
		if err := acks.Read(k.Out, func() bool { return len(acks.Events) >= target }); err != nil || len(acks.Events) < target {
			k.Cmd.Wait()
			t.Fatalf("round %d: the child stopped before %d acknowledgements: %v: %s", round, target, err, k.Stderr)
		}
		if err := k.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		acks.Read(k.Out, nil) // acknowledged before the kill landed
		k.Cmd.Wait()
		ev, reg := reopen(t, dsn, schema)
		govchild.Check(t, ev, reg, acks, false)
	}
}
