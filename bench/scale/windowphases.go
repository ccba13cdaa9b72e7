package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/shape"
)

// measureWindowPhases times the two formulations of c.winPhases
// one-client count_rows_in_window calls apart, each call in a snapshot of
// its own, and prints the medians, the 95th percentiles and the maxima to
// w, with the rows a window holds:
//
//   - executor: Snapshot.Execute without a pipeline (its query, the
//     data version, the keys sorted and digested in Go);
//   - resolver: Snapshot.Resolve of that answer (its re-derivation, the
//     listed keys judged);
//   - on PostgreSQL also the pipelined call (one round trip: the version,
//     both queries) and its Resolve (Go only, on the rows read).
//
// The windows are drawn as the measured phase draws them (1–24 hours).
func measureWindowPhases(ctx context.Context, cat *catalog.Catalog, backend string, events int, src shape.Source, gen *proposals, c config, w io.Writer) error {
	type variant struct {
		name string
		src  shape.Source
	}
	plain := src
	plain.Pipeline = nil
	variants := []variant{{"plain", plain}}
	if src.Pipeline != nil {
		variants = append(variants, variant{"pipelined", src})
	}
	for _, v := range variants {
		eng, err := shape.New(ctx, cat, v.src, &shape.Options{WindowDigests: c.windows})
		if err != nil {
			return err
		}
		r := rand.New(rand.NewPCG(c.seed, 91))
		var exec, res []time.Duration
		rows, maxRows := 0, 0
		// By the window's width: 1–6, 7–12, 13–18, 19–24 hours.
		type bucket struct {
			exec, res []time.Duration
			rows      int
		}
		var byWidth [4]bucket
		// One call first, not timed: the checkpoint index and the window
		// counts are read once per engine.
		for i := range c.winPhases + 1 {
			p := gen.draw(r, "count_status_events_in_window")
			call := shape.Call{Tool: p.Tool, Args: map[string]string{}, Scope: shape.All()}
			for k, a := range p.Params {
				call.Args[k] = fmt.Sprint(a)
			}
			snap, err := eng.Begin(ctx)
			if err != nil {
				eng.Close()
				return err
			}
			t0 := time.Now()
			got, err := snap.Execute(ctx, call)
			t1 := time.Now()
			if err != nil {
				snap.Close()
				eng.Close()
				return fmt.Errorf("window phases: execute: %w", err)
			}
			verdict, err := snap.Resolve(ctx, call, got)
			t2 := time.Now()
			snap.Close()
			if err != nil {
				eng.Close()
				return fmt.Errorf("window phases: resolve: %w", err)
			}
			if !verdict.OK() {
				eng.Close()
				return fmt.Errorf("window phases: %v: verdict %+v", call.Args, verdict)
			}
			if i == 0 {
				continue
			}
			exec, res = append(exec, t1.Sub(t0)), append(res, t2.Sub(t1))
			ws, _ := time.Parse(time.RFC3339, call.Args["start"])
			we, _ := time.Parse(time.RFC3339, call.Args["end"])
			bk := &byWidth[min(3, max(0, int((we.Sub(ws)-time.Minute)/(6*time.Hour))))]
			bk.exec, bk.res, bk.rows = append(bk.exec, t1.Sub(t0)), append(bk.res, t2.Sub(t1)), bk.rows+got.Rows
			rows += got.Rows
			maxRows = max(maxRows, got.Rows)
		}
		eng.Close()
		fmt.Fprintf(w, "window phases %s:%d %s (%d calls, %d rows a window on average, %d at most, window digests %v):\n",
			backend, events, v.name, c.winPhases, rows/c.winPhases, maxRows, c.windows)
		for _, s := range []struct {
			name string
			d    []time.Duration
		}{{"executor (Execute)", exec}, {"resolver (Resolve)", res}} {
			slices.Sort(s.d)
			fmt.Fprintf(w, "  %-20s median %7.2f ms  p95 %7.2f ms  max %7.2f ms\n", s.name, ms(s.d[len(s.d)/2]), ms(pct(s.d, 0.95)), ms(s.d[len(s.d)-1]))
		}
		for i, bk := range byWidth {
			if len(bk.exec) == 0 {
				continue
			}
			slices.Sort(bk.exec)
			slices.Sort(bk.res)
			fmt.Fprintf(w, "  %2d–%2d h: %3d calls, %5d rows on average, executor median %7.2f ms, resolver median %7.2f ms\n",
				6*i+1, 6*i+6, len(bk.exec), bk.rows/len(bk.exec), ms(bk.exec[len(bk.exec)/2]), ms(bk.res[len(bk.res)/2]))
		}
	}
	return nil
}
