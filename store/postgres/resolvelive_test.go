package postgres_test

import (
	"database/sql"
	"testing"

	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/postgres"
)

// TestResolveLive_FaultyValidity: a store-wide call's re-derivation
// counts the live rows (those whose validity interval holds as_of) apart
// from the rows it returns, and a count that is not the census's still
// marks the answer: a series with no live row, or with many, fails the
// verdict, pipelined or not, while the executor (which reads no validity)
// answers as before. The faults are written into the table and into the
// checkpoints' copies, so that the rows since the checkpoint and the
// checkpoint's rows both carry them.
func TestResolveLive_FaultyValidity(t *testing.T) {
	cat := ingesttest.WarehouseCatalog(t)
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	calls := []shape.Call{
		{Tool: "count_devices_with_condition", Args: map[string]string{"condition": "NEEDS_ATTENTION", "as_of": asOf}, Scope: shape.All()},
		{Tool: "list_devices_in_status", Args: map[string]string{"zone_id": "zone-01", "status": "RUNNING", "as_of": asOf}, Scope: shape.All()},
	}
	faults := []struct {
		name, set string
	}{
		{"none", ""},
		// Every interval of the device ends where it begins: no live row.
		{"no live row", `_valid_to = ts`},
		// Every interval of the device is open: each of its rows is live.
		{"many live rows", `_valid_to = CAST('` + shape.OpenEnd + `' AS TIMESTAMP)`},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			db := demoDB(t, &counter{}, 20_000)
			if f.set != "" {
				for _, rel := range []string{"status_events", "status_events__cp"} {
					if _, err := db.ExecContext(t.Context(), "UPDATE "+rel+" SET "+f.set+" WHERE device_id = 'dev-0001'"); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, variant := range []struct {
				name string
				p    shape.Pipeliner
			}{{"pipelined", postgres.NewPipeliner(db, nil).WithoutSQLDigest()}, {"plain", nil}} {
				eng, err := shape.New(t.Context(), cat, shape.Source{DB: db, Snapshot: opts, Pipeline: variant.p}, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer eng.Close()
				for _, c := range calls {
					t.Run(variant.name+"/"+c.Tool, func(t *testing.T) {
						// Twice: the first call reads the checkpoint index
						// (not pipelined), the second is pipelined.
						for range 2 {
							snap, err := eng.Begin(t.Context())
							if err != nil {
								t.Fatal(err)
							}
							r, err := snap.Execute(t.Context(), c)
							if err != nil {
								snap.Close()
								t.Fatal(err)
							}
							v, err := snap.Resolve(t.Context(), c, r)
							snap.Close()
							if err != nil {
								t.Fatal(err)
							}
							if ok := f.set == ""; v.OK() != ok || v.Complete != ok || v.ValueMatches != ok {
								t.Fatalf("verdict = %+v, want every clause %v", v, ok)
							}
						}
					})
				}
			}
		})
	}
}
