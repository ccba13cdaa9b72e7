package duckdb_test

import (
	"bytes"
	"context"
	"database/sql"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
)

// TestKeyFloors_OncePerVersion: the key floors a DuckDB engine keeps for
// metric provenance (shape's snapshotSums.KeyFloors, the executor's, and
// checkFloors, the resolver's own) are read once per data version each,
// however many snapshots ask at once, and read again after an import
// moves the version: the executor's from the rows numbered after the old
// watermark only, lowered into the old floors, the resolver's whole; a
// snapshot is never given floors of another version, nor the executor's
// floors for the resolver's or the other way round.
func TestKeyFloors_OncePerVersion(t *testing.T) {
	ctx := t.Context()
	cat := ingesttest.WarehouseCatalog(t)
	l := ingesttest.WarehouseLayout(t)
	db, err := duckdb.OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	derive := &shape.DeriveOptions{RollupKeys: true, Catalog: cat}
	sk := duckdb.NewSink(db, &ingest.SinkOptions{AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
		return shape.Derive(ctx, tx, l.Dataset, l.Table, derive)
	}})
	// The demo's events in time order, imported in two parts: the second
	// import is an append, which moves the data version.
	lines := bytes.SplitAfter(ingesttest.DemoJSONL(t, 2000), []byte("\n"))
	half := len(lines) / 2
	importLines := func(part [][]byte) {
		t.Helper()
		if _, err := ingest.Import(ctx, sk, l, ingest.NewJSONL("part.jsonl", l, bytes.NewReader(bytes.Join(part, nil)))); err != nil {
			t.Fatal(err)
		}
	}
	importLines(lines[:half])
	e, err := shape.New(ctx, cat, shape.Source{DB: db}, &shape.Options{MetricRollups: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })

	var reads atomic.Int32
	// Each read returns floors whose one group names the version it was
	// read at and the rows it read (where), so a snapshot given another
	// version's floors, or floors read whole where the rows added since
	// were enough, shows.
	read := func(version string) metric.FloorRead {
		return func(_ context.Context, _ metric.Querier, where string) (*metric.KeyFloors, error) {
			reads.Add(1)
			time.Sleep(20 * time.Millisecond) // let the other snapshots arrive while this one reads
			v := version + " [" + where + "]"
			return &metric.KeyFloors{Groups: [][]*string{{&v}}, Least: [][]string{nil}}, nil
		}
	}
	// floorsAt returns the groups of the floors a snapshot is given, and
	// its data version.
	floorsAt := func(t *testing.T, check bool) (got []string, version string) {
		t.Helper()
		s, err := e.Begin(ctx)
		if err != nil {
			t.Error(err)
			return nil, ""
		}
		defer s.Close()
		version, err = s.DataVersion(ctx, "status_events")
		if err != nil {
			t.Error(err)
			return nil, ""
		}
		q, o, err := s.MetricQuerier(ctx)
		if err != nil {
			t.Error(err)
			return nil, ""
		}
		r, ok := o.Rollups["status_events"]
		if !ok || r.Floors == nil || r.CheckFloors == nil {
			t.Error("no floor keepers for status_events with MetricRollups")
			return nil, ""
		}
		keeper, mark := r.Floors, version
		if check {
			keeper, mark = r.CheckFloors, "check "+version
		}
		f, err := keeper.KeyFloors(ctx, q, read(mark))
		if err != nil {
			t.Error(err)
			return nil, ""
		}
		for _, g := range f.Groups {
			got = append(got, *g[0])
		}
		return got, version
	}
	// want gives, by the version the snapshots are at, the groups each
	// keeper's floors must have.
	check := func(t *testing.T, wantReads int32, want func(version string, check bool) []string) {
		t.Helper()
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				// The executor's floors and the resolver's (CheckFloors)
				// are kept apart: each read once, neither given for the
				// other.
				c := i%2 == 1
				got, version := floorsAt(t, c)
				if w := want(version, c); !slices.Equal(got, w) {
					t.Errorf("check %t: floors %q given to a snapshot at %s, want %q", c, got, version, w)
				}
			})
		}
		wg.Wait()
		if got := reads.Load(); got != wantReads {
			t.Errorf("%d reads of the floors, want %d", got, wantReads)
		}
	}
	whole := func(version string, check bool) []string {
		if check {
			return []string{"check " + version + " []"}
		}
		return []string{version + " []"}
	}
	first := func() string {
		s, err := e.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		v, err := s.DataVersion(ctx, "status_events")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}()
	t.Run("eight snapshots at once read each keeper's once", func(t *testing.T) { check(t, 2, whole) })
	t.Run("the same version again reads nothing", func(t *testing.T) { check(t, 2, whole) })
	importLines(lines[half:])
	// The append moves the watermark: the executor's floors are the old
	// ones lowered by the rows numbered after it, the resolver's read
	// whole again.
	n, ok := strings.CutPrefix(first, "seq:")
	if !ok {
		t.Fatalf("data version %q is not a watermark", first)
	}
	t.Run("a new version reads each once more", func(t *testing.T) {
		check(t, 4, func(version string, check bool) []string {
			if check {
				return whole(version, true)
			}
			return []string{first + " []", version + ` ["_ingest_seq" > ` + n + "]"}
		})
	})
}
