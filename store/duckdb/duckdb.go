// Package duckdb implements retail.EventStore on an embedded, in-memory
// DuckDB database loaded once at start. The resolver re-derives every
// answer through it with SQL, a path independent of the executor's index.
//
// Layout: one row per event with next_ts, the timestamp of the pair's next
// scan (a far-future sentinel for the last one), so "the latest event at or
// before T" is the interval test ts <= T < next_ts and needs no window
// function per question. Two physical orders serve the two query shapes:
// events is clustered by (store, product, ts), so per-store and per-pair
// questions read only the row groups of that store; events_by_time is
// clustered by ts, so a global as-of question reads only the row groups
// whose time range can hold an interval containing T.
package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/internal/deadline"
	"github.com/provenant/provenant/retail"
)

var _ retail.EventStore = (*Store)(nil)

// Store is a loaded DuckDB database. Safe for concurrent use.
type Store struct {
	connector *duckdb.Connector
	db        *sql.DB
	info      retail.Info
}

const schema = `
CREATE TABLE stores (store_id VARCHAR PRIMARY KEY, name VARCHAR NOT NULL);
CREATE TABLE products (product_id VARCHAR PRIMARY KEY, name VARCHAR NOT NULL, category VARCHAR NOT NULL);
CREATE TABLE raw_events (
	event_id VARCHAR NOT NULL, store_id VARCHAR NOT NULL, product_id VARCHAR NOT NULL,
	ts TIMESTAMP NOT NULL, state VARCHAR NOT NULL, price_cents BIGINT NOT NULL, flag VARCHAR NOT NULL);
`

const derive = `
-- next_ts defaults to a far-future sentinel so the interval test needs no NULL handling.
CREATE TABLE events AS
	SELECT *, coalesce(lead(ts) OVER (PARTITION BY store_id, product_id ORDER BY ts, event_id), TIMESTAMP '9999-12-31 23:59:59') AS next_ts
	FROM raw_events ORDER BY store_id, product_id, ts, event_id;
CREATE TABLE events_by_time AS SELECT * FROM events ORDER BY ts, event_id;
CREATE UNIQUE INDEX events_id ON events (event_id);
DROP TABLE raw_events;
`

// Open loads d into a new in-memory database.
func Open(ctx context.Context, d *retail.Dataset) (*Store, error) {
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	s := &Store{connector: connector, db: sql.OpenDB(connector), info: d.Info()}
	if err := s.load(ctx, d); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) load(ctx context.Context, d *retail.Dataset) error {
	if _, err := s.db.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	conn, err := s.connector.Connect(ctx)
	if err != nil {
		return fmt.Errorf("connect duckdb: %w", err)
	}
	defer conn.Close()
	appendAll := func(table string, n int, row func(i int) []driver.Value) error {
		a, err := duckdb.NewAppenderFromConn(conn, "", table)
		if err != nil {
			return fmt.Errorf("append %s: %w", table, err)
		}
		for i := 0; i < n; i++ {
			if err := deadline.Check(ctx, i); err != nil {
				a.Close()
				return fmt.Errorf("append %s: %w", table, err)
			}
			if err := a.AppendRow(row(i)...); err != nil {
				a.Close()
				return fmt.Errorf("append %s: %w", table, err)
			}
		}
		if err := a.Close(); err != nil {
			return fmt.Errorf("append %s: %w", table, err)
		}
		return nil
	}
	if err := appendAll("stores", len(d.Stores), func(i int) []driver.Value {
		return []driver.Value{d.Stores[i].ID, d.Stores[i].Name}
	}); err != nil {
		return err
	}
	if err := appendAll("products", len(d.Products), func(i int) []driver.Value {
		p := d.Products[i]
		return []driver.Value{p.ID, p.Name, p.Category}
	}); err != nil {
		return err
	}
	var parseErr error
	if err := appendAll("raw_events", len(d.Events), func(i int) []driver.Value {
		e := d.Events[i]
		ts, err := time.Parse(retail.TimestampLayout, e.Timestamp)
		if err != nil && parseErr == nil {
			parseErr = fmt.Errorf("load event %s: %w", e.ID, err)
		}
		return []driver.Value{e.ID, e.StoreID, e.ProductID, ts, string(e.State), e.PriceCents, string(e.Flag)}
	}); err != nil {
		return err
	}
	if parseErr != nil {
		return parseErr
	}
	if _, err := s.db.ExecContext(ctx, derive); err != nil {
		return fmt.Errorf("derive tables: %w", err)
	}
	return nil
}

// Close releases the database.
func (s *Store) Close() error {
	return errors.Join(s.db.Close(), s.connector.Close())
}

const columns = `event_id, store_id, product_id, ts, state, price_cents, flag`

// Select enumerates the events of sel, sorted by event id.
func (s *Store) Select(ctx context.Context, sel retail.Selection) ([]retail.Event, error) {
	var (
		where []string
		args  []any
	)
	add := func(cond string, vals ...any) {
		where = append(where, cond)
		args = append(args, vals...)
	}
	table := "events"
	if sel.Latest {
		asOf, err := time.Parse(retail.TimestampLayout, sel.AsOf)
		if err != nil {
			return nil, fmt.Errorf("select events: as_of: %w", err)
		}
		add("ts <= ? AND next_ts > ?", asOf, asOf)
		if sel.StoreID == "" {
			table = "events_by_time"
		}
	} else {
		start, err1 := time.Parse(retail.TimestampLayout, sel.Start)
		end, err2 := time.Parse(retail.TimestampLayout, sel.End)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("select events: window: %w", err)
		}
		add("ts >= ? AND ts < ?", start, end)
	}
	if sel.StoreID != "" {
		add("store_id = ?", sel.StoreID)
	}
	switch {
	case sel.Stores == nil:
	case len(sel.Stores) == 0:
		add("FALSE")
	default:
		add("store_id IN ("+placeholders(len(sel.Stores))+")", anySlice(sel.Stores)...)
	}
	if sel.ProductID != "" {
		add("product_id = ?", sel.ProductID)
	}
	if len(sel.Match.States) > 0 {
		add("state IN ("+placeholders(len(sel.Match.States))+")", anySlice(sel.Match.States)...)
	}
	if len(sel.Match.Flags) > 0 {
		add("flag IN ("+placeholders(len(sel.Match.Flags))+")", anySlice(sel.Match.Flags)...)
	}
	q := "SELECT " + columns + " FROM " + table + " WHERE " + strings.Join(where, " AND ") + " ORDER BY event_id"
	return s.query(ctx, q, args...)
}

// Lookup returns those of ids that exist, sorted by event id.
func (s *Store) Lookup(ctx context.Context, ids []string) ([]retail.Event, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	q := "SELECT " + columns + " FROM events WHERE event_id IN (" + placeholders(len(ids)) + ") ORDER BY event_id"
	return s.query(ctx, q, anySlice(ids)...)
}

// Intervals returns every event with its pair's next scan time, derived by
// SQL (a LEAD window function over the pair's scans in time and id order).
// A resolver's in-memory snapshot is built from this relation.
func (s *Store) Intervals(ctx context.Context) ([]retail.Interval, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+columns+`, next_ts FROM events ORDER BY event_id`)
	if err != nil {
		return nil, fmt.Errorf("query intervals: %w", err)
	}
	defer rows.Close()
	out := make([]retail.Interval, 0, s.info.Events)
	for rows.Next() {
		if err := deadline.Check(ctx, len(out)); err != nil {
			return nil, fmt.Errorf("query intervals: %w", err)
		}
		var (
			iv          retail.Interval
			ts, next    time.Time
			state, flag string
		)
		if err := rows.Scan(&iv.ID, &iv.StoreID, &iv.ProductID, &ts, &state, &iv.PriceCents, &flag, &next); err != nil {
			return nil, fmt.Errorf("scan interval: %w", err)
		}
		iv.Timestamp = ts.UTC().Format(retail.TimestampLayout)
		iv.State, iv.Flag = retail.State(state), retail.Flag(flag)
		if next.Year() < 9999 {
			iv.Until = next.UTC().Format(retail.TimestampLayout)
		}
		out = append(out, iv)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query intervals: %w", err)
	}
	return out, nil
}

// Info summarises the stored dataset, counted from the tables.
func (s *Store) Info(ctx context.Context) (retail.Info, error) {
	in := retail.Info{Version: s.info.Version}
	var first, last sql.NullTime
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM stores), (SELECT count(*) FROM products),
		(SELECT count(*) FROM events), (SELECT min(ts) FROM events), (SELECT max(ts) FROM events)`).
		Scan(&in.Stores, &in.Products, &in.Events, &first, &last)
	if err != nil {
		return retail.Info{}, fmt.Errorf("query info: %w", err)
	}
	if first.Valid {
		in.First = first.Time.UTC().Format(retail.TimestampLayout)
		in.Last = last.Time.UTC().Format(retail.TimestampLayout)
	}
	return in, nil
}

func (s *Store) query(ctx context.Context, q string, args ...any) ([]retail.Event, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("query events: %w", err)
	}
	defer rows.Close()
	var out []retail.Event
	for rows.Next() {
		if err := deadline.Check(ctx, len(out)); err != nil {
			return nil, fmt.Errorf("query events: %w", err)
		}
		var (
			e     retail.Event
			ts    time.Time
			state string
			flag  string
		)
		if err := rows.Scan(&e.ID, &e.StoreID, &e.ProductID, &ts, &state, &e.PriceCents, &flag); err != nil {
			return nil, fmt.Errorf("scan event: %w", err)
		}
		e.Timestamp = ts.UTC().Format(retail.TimestampLayout)
		e.State, e.Flag = retail.State(state), retail.Flag(flag)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query events: %w", err)
	}
	return out, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// anySlice converts string-kinded values to plain strings for binding.
func anySlice[T ~string](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
