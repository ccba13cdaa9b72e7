package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/lthash"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/shape"
)

// measureMetricPhases times the steps of c.phases one-client query_metric
// calls of each phase apart, each in a transaction of its own (the file is opened read-only),
// and prints the medians and maxima to w:
//
//   - compiled: metric.Compile and Query.Run (the executor's table);
//   - keys read: metric.RederiveSQL with its keys (the executor's and the
//     resolver's re-derivation before the digests), and hashing them with
//     lthash (what the digests replace);
//   - values: RederiveSQL without keys (the resolver's, with digests);
//   - summed: metric.RollupKeys as the executor runs it (nearest edges,
//     the least 1,000 keys) and as the resolver does (edges added, no
//     keys listed), and metric.FirstKeysHold (the resolver's check of
//     the listed keys), when the dataset has digests;
//   - with -value-rollups: the compiled query from the value rollups and
//     metric.RederiveValues (the resolver's values from them).
func measureMetricPhases(ctx context.Context, cat *catalog.Catalog, db *sql.DB, gen *proposals, c config, w io.Writer) error {
	ds := cat.Dataset("status_events")
	o := &metric.Options{ValidTo: map[string]string{"status_events": shape.ValidToColumn}, MaxGoRows: -1}
	if c.rollups {
		ru := shape.MetricRollup(ds, "status_events")
		// The slices when the file has them, as the engine takes them.
		if rows, err := db.QueryContext(ctx, "SELECT 1 FROM status_events"+shape.RollupSlicesSuffix+" LIMIT 0"); err == nil {
			rows.Close()
			ru.Slices, ru.SliceWidth = "status_events"+shape.RollupSlicesSuffix, shape.SliceWidth
		}
		o.Rollups = map[string]metric.Rollup{"status_events": ru}
	}
	if c.edges {
		o.Edges = map[string]metric.EdgeBound{"status_events": shape.MetricEdges("status_events")}
	}
	values := *o
	values.SkipKeys = true
	vru := shape.MetricValueRollup(cat, ds, "status_events")
	if rows, err := db.QueryContext(ctx, "SELECT 1 FROM status_events"+shape.RollupValueSlicesSuffix+" LIMIT 0"); err == nil {
		rows.Close()
		vru.Slices, vru.SliceWidth = "status_events"+shape.RollupValueSlicesSuffix, shape.SliceWidth
	}
	for i, ph := range metricPhases {
		r := rand.New(rand.NewPCG(c.seed+uint64(i), 77))
		steps := map[string][]time.Duration{}
		var order []string
		timed := func(name string, f func() error) error {
			t := time.Now()
			if err := f(); err != nil {
				return fmt.Errorf("%s: %s: %w", ph.name, name, err)
			}
			if _, ok := steps[name]; !ok {
				order = append(order, name)
			}
			steps[name] = append(steps[name], time.Since(t))
			return nil
		}
		var keys, hashed int
		for range c.phases {
			req, _ := drawMetric(r, cat, gen, ph.window, ph.week, c.shiftMetric)
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			var re *metric.Table
			err = errors.Join(
				timed("compiled", func() error {
					q, err := metric.Compile(cat, req, o)
					if err != nil {
						return err
					}
					_, err = q.Run(ctx, tx)
					return err
				}),
				timed("keys read (RederiveSQL)", func() error {
					var err error
					re, err = metric.RederiveSQL(ctx, tx, cat, req, o)
					return err
				}),
				timed("keys lthash-ed", func() error {
					if re != nil {
						h := lthash.Of(re.Keys...)
						_ = h.IsZero()
						keys += len(re.Keys)
					}
					return nil
				}),
				timed("values (RederiveSQL, no keys)", func() error {
					_, err := metric.RederiveSQL(ctx, tx, cat, req, &values)
					return err
				}),
			)
			if err == nil && c.values {
				vo := values
				vo.ValueRollups = map[string]metric.ValueRollup{"status_events": vru}
				err = errors.Join(
					timed("compiled from value rollups", func() error {
						q, err := metric.Compile(cat, req, &vo)
						if err != nil {
							return err
						}
						_, err = q.Run(ctx, tx)
						return err
					}),
					timed("values (RederiveValues)", func() error {
						_, err := metric.RederiveValues(ctx, tx, cat, req, &vo)
						if errors.Is(err, metric.ErrNoRollup) {
							return nil
						}
						return err
					}),
				)
			}
			if err == nil && c.rollups {
				var (
					first []string
					own   *metric.KeySummary
				)
				err = errors.Join(
					timed("summed (executor: nearest edges, top 1,000)", func() error {
						s, err := metric.RollupKeys(ctx, tx, cat, req, o, 1000, metric.EdgesNearest)
						if errors.Is(err, metric.ErrNoRollup) {
							return nil
						}
						if err == nil {
							hashed += s.Hashed
							first = s.First
						}
						return err
					}),
					timed("summed (resolver: edges added)", func() error {
						var err error
						own, err = metric.RollupKeys(ctx, tx, cat, req, o, 0, metric.EdgesAdd)
						if errors.Is(err, metric.ErrNoRollup) {
							return nil
						}
						return err
					}),
					timed("first keys checked (resolver)", func() error {
						if first == nil {
							return nil
						}
						ok, err := metric.FirstKeysHold(ctx, tx, cat, req, o, first, own)
						if err == nil && !ok {
							err = errors.New("first keys refused")
						}
						return err
					}),
				)
			}
			tx.Rollback()
			if err != nil {
				return err
			}
		}
		fmt.Fprintf(w, "phases %s (%d calls, %d keys a call on average, %d edge keys hashed a call with digests):\n", ph.name, c.phases, keys/c.phases, hashed/c.phases)
		for _, name := range order {
			d := steps[name]
			slices.Sort(d)
			fmt.Fprintf(w, "  %-32s median %8.1f ms  max %8.1f ms\n", name, ms(d[len(d)/2]), ms(d[len(d)-1]))
		}
	}
	return nil
}
