package duckdb_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/duckdb"
	"github.com/provenant/provenant/internal/govchild"
	"github.com/provenant/provenant/register"
	regduck "github.com/provenant/provenant/register/duckdb"
)

// envPath names the child's DuckDB file.
const envPath = "PROVENANT_GOVCHILD_DUCKDB"

func TestMain(m *testing.M) {
	if code, ok := govchild.Main(openBoth); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// openBoth opens the log and the register in one DuckDB file, sharing
// one database handle.
func openBoth(ctx context.Context) (eventlog.Store, register.Store, func(), error) {
	ev, err := duckdb.Open(ctx, os.Getenv(envPath), nil)
	if err != nil {
		return nil, nil, nil, err
	}
	reg, err := regduck.Open(ctx, os.Getenv(envPath), nil)
	if err != nil {
		ev.Close()
		return nil, nil, nil, err
	}
	return ev, reg, func() { reg.Close(); ev.Close() }, nil
}

// TestCrash_KillMidLoad: a child appending to the log and the register
// in one DuckDB file is killed with SIGKILL after some acknowledgements,
// twice (the second child continues the first's run); each time, on
// reopening, both verify and every acknowledged id is there.
func TestCrash_KillMidLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.duckdb")
	env := []string{envPath + "=" + path}
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
		ev, err := duckdb.Open(t.Context(), path, nil)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		reg, err := regduck.Open(t.Context(), path, nil)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		govchild.Check(t, ev, reg, acks, false)
		reg.Close()
		ev.Close()
	}
}
