package postgres_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// heldReader gives its body, then blocks until release is closed: an
// import reading it has begun (its transaction open, its data version
// read) and waits there.
type heldReader struct {
	body    io.Reader
	release chan struct{}
	held    chan struct{}
}

func (h *heldReader) Read(p []byte) (int, error) {
	n, err := h.body.Read(p)
	if err == io.EOF {
		select {
		case <-h.held:
		default:
			close(h.held)
		}
		<-h.release
	}
	return n, err
}

func warehouseCSV(first, n int) string {
	var b strings.Builder
	b.WriteString("event_id,device_id,device_type,zone_id,ts,status,battery_pct,temperature_c,fault_code\n")
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, "e-%05d,dev-%04d,AGV,zone-01,2026-01-06T%02d:%02d:%02dZ,IDLE,55,31.5,\n", i, i%7+1, i/3600%24, i/60%60, i%60)
	}
	return b.String()
}

// TestSink_ConcurrentImports: two imports into one table at once, on two
// connections, each begun before the other commits. With rows of other
// keys both are stored, with distinct _ingest_seq (the data version); with
// the same keys the second is refused as keys already stored, naming
// them by row. Both used to read the same data version at their start:
// the one to commit second then failed on the unique index of
// _ingest_seq, or on a deadlock between their CREATE INDEX, with the
// server's message.
func TestSink_ConcurrentImports(t *testing.T) {
	l := ingesttest.WarehouseLayout(t)
	for _, tc := range []struct {
		name            string
		stored          int // rows imported before, keys from 1000
		firstB          int
		wantRows        int64
		wantErrContains string
	}{
		{name: "OtherKeys", firstB: 100, wantRows: 200},
		{name: "SameKeys", firstB: 0, wantRows: 100, wantErrContains: "key already stored"},
		{name: "OtherKeysTableStored", stored: 10, firstB: 100, wantRows: 210},
		{name: "SameKeysTableStored", stored: 10, firstB: 0, wantRows: 110, wantErrContains: "key already stored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := pgtest.Schema(t)
			ctx := t.Context()
			var sinks [2]ingest.Sink
			db0, err := postgres.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db0.Close() })
			sinks[0] = postgres.NewSink(db0, nil)
			db1, err := postgres.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db1.Close() })
			sinks[1] = postgres.NewSink(db1, nil)
			if tc.stored > 0 {
				if _, err := ingest.Import(ctx, sinks[0], l, ingest.NewCSV("stored.csv", l, strings.NewReader(warehouseCSV(1000, tc.stored)))); err != nil {
					t.Fatal(err)
				}
			}

			// A begins and reads its rows, then waits.
			held := &heldReader{body: strings.NewReader(warehouseCSV(0, 100)), release: make(chan struct{}), held: make(chan struct{})}
			errA := make(chan error, 1)
			go func() {
				_, err := ingest.Import(ctx, sinks[0], l, ingest.NewCSV("a.csv", l, held))
				errA <- err
			}()
			select {
			case <-held.held:
			case err := <-errA:
				t.Fatalf("import A ended before its input did: %v", err)
			}
			// B runs while A is open: it finishes, or waits for A.
			errB := make(chan error, 1)
			go func() {
				_, err := ingest.Import(ctx, sinks[1], l, ingest.NewCSV("b.csv", l, strings.NewReader(warehouseCSV(tc.firstB, 100))))
				errB <- err
			}()
			var bErr error
			bDone := false
			select {
			case bErr = <-errB:
				bDone = true
			case <-time.After(500 * time.Millisecond):
			}
			close(held.release)
			aErr := <-errA
			if !bDone {
				bErr = <-errB
			}
			// Whichever committed first, one import's rows are stored
			// whole; the other's wholly or, with the same keys, refused.
			errs := []error{aErr, bErr}
			var failed []error
			for _, err := range errs {
				if err != nil {
					failed = append(failed, err)
				}
			}
			switch {
			case tc.wantErrContains == "" && len(failed) > 0:
				t.Errorf("imports of other keys at once: %v, want both stored", errors.Join(failed...))
			case tc.wantErrContains != "" && (len(failed) != 1 || !errors.Is(failed[0], ingest.ErrInvalid) || !strings.Contains(failed[0].Error(), tc.wantErrContains)):
				t.Errorf("imports of the same keys at once: errors %v, want one import refused with %q", failed, tc.wantErrContains)
			}
			var rows, distinctSeq, maxSeq int64
			if err := db0.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT _ingest_seq), coalesce(max(_ingest_seq), 0) FROM `+ingest.Quote(ingesttest.Table)).Scan(&rows, &distinctSeq, &maxSeq); err != nil {
				t.Fatal(err)
			}
			if rows != tc.wantRows || distinctSeq != tc.wantRows || maxSeq != tc.wantRows {
				t.Errorf("table holds %d rows, %d distinct _ingest_seq, the greatest %d; want %d of each", rows, distinctSeq, maxSeq, tc.wantRows)
			}
		})
	}
}
