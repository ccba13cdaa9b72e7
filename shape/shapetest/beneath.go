package shapetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/shape"
)

// RunRebuildBeneathSnapshot checks that a snapshot begun before an import
// that rebuilds the derived structures (rows earlier than stored ones)
// commits still answers from its own data afterwards, verified: every
// call reads the derived structures only after the import committed. A
// database whose rebuild replaced them (DROP TABLE, CREATE TABLE AS) gave
// such a snapshot the new tables, whose rows it cannot see: on PostgreSQL
// under REPEATABLE READ the checkpoints and the census read empty, and
// the calls in flight when an import committed failed verification.
func RunRebuildBeneathSnapshot(t *testing.T, b Backend) { runBeneath(t, b, false) }

// RunLateBeneathSnapshot is RunRebuildBeneathSnapshot for an import of a
// few late rows, which updates the derived structures in place
// (DELETE, INSERT, UPDATE of a few rows) rather than rebuilding them; it
// checks that the checkpoints kept their instants, so that the late
// derivation is what ran.
func RunLateBeneathSnapshot(t *testing.T, b Backend) { runBeneath(t, b, true) }

func runBeneath(t *testing.T, b Backend, late bool) {
	cat := LoadCatalog(t, "warehouse.yaml")
	ds := cat.Datasets[0]
	db, opts := b.Open(t)
	ctx := t.Context()
	status := ds.Attribute("status")
	zone := Fixtures[1].Pools["zone"][0]
	rows := func(device string, first, from, n int) []Row { return deviceRows(ds, device, first, from, n) }
	const rel = "rebuild_beneath"
	defer func() {
		for _, suffix := range []string{"", "__cp", "__cpi", "__series"} {
			db.ExecContext(ctx, "DROP TABLE IF EXISTS "+rel+suffix)
		}
	}()
	stored := append(rows("dev-0001", 0, 100, 10), rows("dev-0002", 10, 100, 10)...)
	every := 2
	if late {
		// Enough rows, and checkpoints far enough apart, for two late
		// rows to be updated in place.
		stored, every = append(rows("dev-0001", 0, 100, 80), rows("dev-0002", 100, 100, 80)...), 20
	}
	if err := Load(ctx, db, ds, rel, stored); err != nil {
		t.Fatal(err)
	}
	if err := derive(ctx, db, ds, rel, every); err != nil {
		t.Fatal(err)
	}
	eng, err := shape.New(ctx, cat, shape.Source{DB: db, Snapshot: opts, Relations: map[string]string{ds.Name.Value: rel}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	at := stamp(instant(107).Add(30 * time.Second))
	st := status.Values[(107)%len(status.Values)].Value
	calls := []shape.Call{
		{Tool: "get_device_status", Args: map[string]string{"device_id": "dev-0001", "as_of": at}},
		{Tool: "list_devices_in_status", Args: map[string]string{"zone_id": zone, "status": st, "as_of": at}},
		{Tool: "count_status_events_in_window", Args: map[string]string{"zone_id": zone, "status": st, "start": stamp(instant(0)), "end": stamp(instant(200))}},
	}
	for _, c := range cat.Tools {
		if c.Name.Value == "count_devices_with_condition" && len(ds.Conditions) > 0 {
			calls = append(calls, shape.Call{Tool: c.Name.Value, Args: map[string]string{"condition": ds.Conditions[0].Name.Value, "as_of": at}})
		}
	}
	for i, call := range calls {
		call.Scope = shape.All()
		snap, err := eng.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// The snapshot is taken by its first read.
		if _, err := snap.DataVersion(ctx, ds.Name.Value); err != nil {
			snap.Close()
			t.Fatal(err)
		}
		// An import of rows earlier than every stored one, which rebuilds
		// the derived structures, commits.
		earlier := rows(fmt.Sprintf("dev-%04d", 3+i%3), 1000+100*i, 90-10*(i+1), 10)
		if late {
			earlier = rows(fmt.Sprintf("dev-%04d", 3+i%3), 1000+100*i, 110+20*i, 2)
		}
		before, err := checkpointIndex(ctx, db, rel)
		if err != nil {
			snap.Close()
			t.Fatal(err)
		}
		if err := Append(ctx, db, ds, rel, earlier, len(stored)); err != nil {
			snap.Close()
			t.Fatal(err)
		}
		if err := derive(ctx, db, ds, rel, every); err != nil {
			snap.Close()
			t.Fatal(err)
		}
		if late {
			after, err := checkpointIndex(ctx, db, rel)
			if err != nil {
				snap.Close()
				t.Fatal(err)
			}
			for id, ts := range before {
				if after[id] != ts {
					snap.Close()
					t.Fatalf("checkpoint %d at %s before the late rows, %q after: the late rows were not derived in place", id, ts, after[id])
				}
			}
		}
		got, err := snap.Execute(ctx, call)
		if err != nil {
			snap.Close()
			t.Fatalf("Execute(%s) after a rebuild beneath its snapshot: %v", call.Tool, err)
		}
		want, wantKeys := Oracle(cat, stored, call)
		if !got.Value.Equal(want) || got.Rows != len(wantKeys) || got.Digest != shape.Digest(wantKeys) {
			t.Errorf("Execute(%s %v) after a rebuild beneath its snapshot = %+v over %d rows, want the snapshot's %+v over %d rows", call.Tool, call.Args, got.Value, got.Rows, want, len(wantKeys))
		}
		if want := fmt.Sprintf("seq:%d", len(stored)); got.DataVersion != want {
			t.Errorf("Execute(%s) data version = %s, want the snapshot's %s", call.Tool, got.DataVersion, want)
		}
		v, err := snap.Resolve(ctx, call, got)
		if err != nil {
			t.Errorf("Resolve(%s) after a rebuild beneath its snapshot: %v", call.Tool, err)
		} else if !v.OK() {
			t.Errorf("Resolve(%s %v) after a rebuild beneath its snapshot = %+v, want verified", call.Tool, call.Args, v)
		}
		snap.Close()
		stored = append(stored, earlier...)
	}
}

// deviceRows is n rows of device in ds (the warehouse catalog's status
// events), keyed k-NNNNN from first, one a minute from minute from, each
// with a status unlike the one four minutes earlier; every other entity
// is the first of its fixture pool.
func deviceRows(ds *catalog.Dataset, device string, first, from, n int) []Row {
	status := ds.Attribute("status")
	var out []Row
	for m := range n {
		r := Row{Key: fmt.Sprintf("k-%05d", first+m), Time: instant(from + m), Str: map[string]*string{}, Num: map[string]*float64{}}
		for _, e := range ds.Entities {
			v := Fixtures[1].Pools[e.Name.Value][0]
			if e.Name.Value == "device" {
				v = device
			}
			r.Str[e.Column.Value] = &v
		}
		for _, a := range ds.Attributes {
			switch {
			case a == status:
				v := status.Values[(from+m)%len(status.Values)].Value
				r.Str[a.Column.Value] = &v
			case a.Enumerated():
				v := a.Values[0].Value
				r.Str[a.Column.Value] = &v
			default:
				f := 50.0
				r.Num[a.Column.Value] = &f
			}
		}
		out = append(out, r)
	}
	return out
}
