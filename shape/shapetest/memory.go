package shapetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// RunMemoryStoreWideDays checks, on rows held in memory, the store-wide
// questions (a count of devices meeting a condition, a list at a zone,
// which is not part of a device's series) at instants around rows several
// days apart: before every row, on a row's instant and on a day boundary,
// on a day whose rows all come after the instant (the latest row is days
// earlier), after every row. The executor in memory must answer as the
// same engine over SQL does, and the resolver must find that answer
// whole. (A resolver that read each series' rows of one day only, the
// last at or before the instant, failed it.)
func RunMemoryStoreWideDays(t *testing.T, b Backend) {
	cat := LoadCatalog(t, "warehouse.yaml")
	ds := cat.Datasets[0]
	db, opts := b.Open(t)
	ctx := context.Background()
	day := func(d, h, m, s int) time.Time { return time.Date(2026, 3, d, h, m, s, 0, time.UTC) }
	rows := []Row{
		deviceRow(ds, "e-01", "dev-0001", "zone-01", "FAULT", day(1, 10, 0, 0)),
		deviceRow(ds, "e-02", "dev-0001", "zone-01", "RUNNING", day(3, 12, 0, 0)),
		deviceRow(ds, "e-03", "dev-0002", "zone-01", "FAULT", day(2, 23, 59, 59)),
		deviceRow(ds, "e-04", "dev-0003", "zone-01", "FAULT", day(1, 0, 0, 0)),
		deviceRow(ds, "e-05", "dev-0003", "zone-02", "IDLE", day(4, 0, 0, 0)),
		deviceRow(ds, "e-06", "dev-0004", "zone-02", "FAULT", day(3, 8, 0, 0)),
		deviceRow(ds, "e-07", "dev-0004", "zone-01", "FAULT", day(3, 13, 0, 0)),
		deviceRow(ds, "e-08", "dev-0005", "zone-01", "FAULT", day(9, 6, 0, 0)),
	}
	rel := "memdays"
	if err := Load(ctx, db, ds, rel, rows); err != nil {
		t.Fatal(err)
	}
	defer db.ExecContext(ctx, "DROP TABLE IF EXISTS "+rel)
	src := shape.Source{DB: db, Snapshot: opts, Relations: map[string]string{ds.Name.Value: rel}}
	// Every call takes a turn (eight rows are far fewer than the default
	// least), so that the ended context below finds one to refuse.
	mem, err := shape.New(ctx, cat, src, &shape.Options{MemoryRows: len(rows), MemoryTurnRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if !mem.InMemory(ds.Name.Value) {
		t.Fatal("InMemory = false, want true")
	}
	sql, err := shape.New(ctx, cat, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sql.Close()
	instants := []time.Time{
		day(1, 0, 0, 0).Add(-time.Second), day(1, 0, 0, 0), day(1, 10, 0, 0), day(2, 12, 0, 0),
		day(3, 0, 0, 0), day(3, 11, 0, 0), day(3, 12, 0, 0), day(3, 23, 59, 59), day(4, 0, 0, 0),
		day(8, 0, 0, 0), day(20, 0, 0, 0),
	}
	for _, at := range instants {
		for _, call := range []shape.Call{
			{Tool: "count_devices_with_condition", Args: map[string]string{"condition": "FAULTED", "as_of": stamp(at)}, Scope: shape.All()},
			{Tool: "list_devices_in_status", Args: map[string]string{"zone_id": "zone-01", "status": "FAULT", "as_of": stamp(at)}, Scope: shape.All()},
		} {
			t.Run(call.Tool+"/"+stamp(at), func(t *testing.T) {
				want := executed(t, sql, call)
				snap, got := execute(t, mem, call)
				defer snap.Close()
				if got.Value.Text != want.Value.Text || !slices.Equal(got.Keys, want.Keys) || got.Rows != want.Rows {
					t.Fatalf("in memory: %+v %v, want (as over SQL) %+v %v", got.Value, got.Keys, want.Value, want.Keys)
				}
				v, err := snap.Resolve(ctx, call, got)
				if err != nil {
					t.Fatal(err)
				}
				if !v.OK() {
					t.Fatalf("Resolve = %+v, want every clause", v)
				}
			})
		}
	}
	t.Run("an ended context", func(t *testing.T) {
		// In memory a call waits for nothing but its turn (the engine's
		// memTurn), which a call whose context has ended does not get.
		call := shape.Call{Tool: "count_devices_with_condition", Args: map[string]string{"condition": "FAULTED", "as_of": stamp(day(5, 0, 0, 0))}, Scope: shape.All()}
		snap, got := execute(t, mem, call)
		defer snap.Close()
		ended, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := snap.Execute(ended, call); !errors.Is(err, context.Canceled) {
			t.Errorf("Execute with an ended context: %v, want canceled", err)
		}
		if _, err := snap.Resolve(ended, call, got); !errors.Is(err, context.Canceled) {
			t.Errorf("Resolve with an ended context: %v, want canceled", err)
		}
	})
	t.Run("too few rows for turns", func(t *testing.T) {
		// Below shape.DefaultMemoryTurnRows a call takes no turn, so it
		// has none to refuse: it answers whatever its context.
		few, err := shape.New(ctx, cat, src, &shape.Options{MemoryRows: len(rows)})
		if err != nil {
			t.Fatal(err)
		}
		defer few.Close()
		call := shape.Call{Tool: "count_devices_with_condition", Args: map[string]string{"condition": "FAULTED", "as_of": stamp(day(5, 0, 0, 0))}, Scope: shape.All()}
		snap, got := execute(t, few, call)
		defer snap.Close()
		ended, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := snap.Execute(ended, call); err != nil {
			t.Errorf("Execute without a turn: %v", err)
		}
		if _, err := snap.Resolve(ended, call, got); err != nil {
			t.Errorf("Resolve without a turn: %v", err)
		}
	})
}

// executed is execute's result on a snapshot closed at once.
func executed(t fataler, eng *shape.Engine, call shape.Call) shape.Result {
	snap, got := execute(t, eng, call)
	snap.Close()
	return got
}
