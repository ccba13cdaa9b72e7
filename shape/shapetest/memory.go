package shapetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/provenant/provenant/shape"
)

// RunMemoryDuplicateKeys checks, on rows held in memory, that a key two
// rows share backs no answer: the table (not the engine's import) may hold
// such rows, and the in-memory resolver, which finds an asserted key's rows
// by key among every row, must then refuse the provenance the executor
// names. The same rows with distinct keys pass, so the refusal is the
// duplicate's.
func RunMemoryDuplicateKeys(t *testing.T, b Backend) {
	cat := LoadCatalog(t, "warehouse.yaml")
	ds := cat.Datasets[0]
	db, opts := b.Open(t)
	ctx := context.Background()
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	mk := func(key, device, status string, tm time.Time) Row {
		return deviceRow(ds, key, device, "zone-01", status, tm)
	}
	call := shape.Call{Tool: "get_device_status", Args: map[string]string{
		"device_id": "dev-0001", "as_of": stamp(at.Add(90 * time.Minute))}, Scope: shape.All()}
	for _, c := range []struct {
		name      string
		secondKey string // the key of dev-0001's second, latest row
		pass      bool
	}{
		{"distinct keys", "e-3", true},
		{"a key two rows share", "e-1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The latest row first: a resolver that judged a shared key's
			// first row alone would find it backing the answer.
			rows := []Row{
				mk(c.secondKey, "dev-0001", "FAULT", at.Add(time.Hour)),
				mk("e-2", "dev-0002", "IDLE", at.Add(30*time.Minute)),
				mk("e-1", "dev-0001", "RUNNING", at),
			}
			rel := fmt.Sprintf("memdup_%v", c.pass)
			if err := Load(ctx, db, ds, rel, rows); err != nil {
				t.Fatal(err)
			}
			defer db.ExecContext(ctx, "DROP TABLE IF EXISTS "+rel)
			eng, err := shape.New(ctx, cat, shape.Source{DB: db, Snapshot: opts,
				Relations: map[string]string{ds.Name.Value: rel}}, &shape.Options{MemoryRows: len(rows)})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			if !eng.InMemory(ds.Name.Value) {
				t.Fatal("InMemory = false, want true")
			}
			snap, got := execute(t, eng, call)
			defer snap.Close()
			if len(got.Keys) != 1 || got.Keys[0] != c.secondKey || got.Value.Text != "FAULT" {
				t.Fatalf("Execute = %+v, want FAULT from %s", got, c.secondKey)
			}
			v, err := snap.Resolve(ctx, call, got)
			if err != nil {
				t.Fatal(err)
			}
			if v.ProvenanceValid != c.pass {
				t.Fatalf("Resolve = %+v, want ProvenanceValid %v", v, c.pass)
			}
		})
	}
}
