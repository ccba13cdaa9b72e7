package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/retail"
)

// The retail catalog's six tools, in the order the results list them:
// three point lookups, then the store-wide aggregate, the list and the
// window count.
var benchTools = []string{
	"get_stock_state", "get_price", "get_compliance_flag",
	"count_stores_with_condition", "list_products_in_state", "count_events_in_window",
}

// latestAsOf is, for each (store, product) of the stores and products
// tables that %[2]s selects, the latest event at or before the instant $%[3]d,
// in provenant's order: timestamp, then event id. Timestamps are
// fixed-width UTC text, so text order is time order; COLLATE "C" makes it
// byte order, as in Go. One index probe per pair (LATERAL ... LIMIT 1).
const latestAsOf = `SELECT s.store_id, p.product_id, l.state, l.compliance_flag
  FROM %[1]s.stores s CROSS JOIN %[1]s.products p
  CROSS JOIN LATERAL (SELECT e.state, e.compliance_flag FROM %[1]s.events e
    WHERE e.store_id = s.store_id AND e.product_id = p.product_id AND e.ts <= $%[3]d
    ORDER BY e.ts DESC, e.event_id DESC LIMIT 1) l
  WHERE %[2]s`

// toolSQL is each tool as parameterized SQL over %[1]s.events, equivalent
// to provenant's tool: same arguments, same answer.
var toolSQL = map[string]string{
	"get_stock_state": `SELECT state FROM %[1]s.events
  WHERE store_id = $1 AND product_id = $2 AND ts <= $3
  ORDER BY ts DESC, event_id DESC LIMIT 1`,
	"get_price": `SELECT price_cents FROM %[1]s.events
  WHERE store_id = $1 AND product_id = $2 AND ts <= $3
  ORDER BY ts DESC, event_id DESC LIMIT 1`,
	"get_compliance_flag": `SELECT compliance_flag FROM %[1]s.events
  WHERE store_id = $1 AND product_id = $2 AND ts <= $3
  ORDER BY ts DESC, event_id DESC LIMIT 1`,
	// The catalog's conditions (retail.Condition.Match), as SQL.
	"count_stores_with_condition": `SELECT count(DISTINCT store_id) AS count FROM (` + fmt.Sprintf(latestAsOf, "%[1]s", "true", 2) + `) latest
  WHERE CASE $1
    WHEN 'OUT_OF_STOCK' THEN state = 'OUT_OF_STOCK'
    WHEN 'LOW_STOCK' THEN state = 'LOW_STOCK'
    WHEN 'PRICE_MISMATCH' THEN compliance_flag = 'PRICE_MISMATCH'
    WHEN 'EXPIRED' THEN compliance_flag = 'EXPIRED_PRODUCT'
    WHEN 'NON_COMPLIANT' THEN compliance_flag IN ('PRICE_MISMATCH', 'EXPIRED_PRODUCT', 'PLANOGRAM_VIOLATION')
  END`,
	"list_products_in_state": `SELECT product_id FROM (` + fmt.Sprintf(latestAsOf, "%[1]s", "s.store_id = $1", 3) + `) latest
  WHERE state = $2 ORDER BY product_id`,
	"count_events_in_window": `SELECT count(*) AS count FROM %[1]s.events
  WHERE store_id = $1 AND state = $2 AND ts >= $3 AND ts < $4`,
}

// toolParams are each tool's parameters, in the order of its SQL's $n.
var toolParams = map[string][]string{
	"get_stock_state":             {"store_id", "product_id", "as_of"},
	"get_price":                   {"store_id", "product_id", "as_of"},
	"get_compliance_flag":         {"store_id", "product_id", "as_of"},
	"count_stores_with_condition": {"condition", "as_of"},
	"list_products_in_state":      {"store_id", "state", "as_of"},
	"count_events_in_window":      {"store_id", "state", "start", "end"},
}

// schemaDDL creates the events table and the stores and products tables
// the store file declares; indexDDL the indexes a competent PostgreSQL user
// would give these six queries.
const schemaDDL = `DROP SCHEMA IF EXISTS %[1]s CASCADE;
CREATE SCHEMA %[1]s;
CREATE TABLE %[1]s.events (
  event_id text COLLATE "C" PRIMARY KEY,
  store_id text COLLATE "C" NOT NULL,
  product_id text COLLATE "C" NOT NULL,
  ts text COLLATE "C" NOT NULL,
  state text NOT NULL,
  price_cents bigint NOT NULL,
  compliance_flag text NOT NULL
);
CREATE TABLE %[1]s.stores (store_id text COLLATE "C" PRIMARY KEY);
CREATE TABLE %[1]s.products (product_id text COLLATE "C" PRIMARY KEY);`

const indexDDL = `CREATE INDEX ON %[1]s.events (store_id, product_id, ts DESC, event_id DESC) INCLUDE (state, price_cents, compliance_flag);
CREATE INDEX ON %[1]s.events (store_id, state, ts);
VACUUM (ANALYZE) %[1]s.events;
VACUUM (ANALYZE) %[1]s.stores;
VACUUM (ANALYZE) %[1]s.products;`

// loadPostgres drops and recreates schema and copies d's events into it.
func loadPostgres(ctx context.Context, dsn, schema string, d *retail.Dataset) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect postgres: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf(schemaDDL, schema)); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	rows := make([][]any, len(d.Events))
	for i, e := range d.Events {
		rows[i] = []any{e.ID, e.StoreID, e.ProductID, e.Timestamp, string(e.State), e.PriceCents, string(e.Flag)}
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{schema, "events"},
		[]string{"event_id", "store_id", "product_id", "ts", "state", "price_cents", "compliance_flag"}, pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("copy events: %w", err)
	}
	if n != int64(len(d.Events)) {
		return fmt.Errorf("copy events: copied %d of %d", n, len(d.Events))
	}
	for _, s := range d.Stores {
		if _, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s.stores VALUES ($1)", schema), s.ID); err != nil {
			return fmt.Errorf("insert store: %w", err)
		}
	}
	for _, p := range d.Products {
		if _, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s.products VALUES ($1)", schema), p.ID); err != nil {
			return fmt.Errorf("insert product: %w", err)
		}
	}
	// One statement at a time: VACUUM refuses to run inside the implicit
	// transaction of a multi-statement string.
	for stmt := range strings.SplitSeq(fmt.Sprintf(indexDDL, schema), ";\n") {
		if _, err := conn.Exec(ctx, strings.TrimSuffix(stmt, ";")); err != nil {
			return fmt.Errorf("index events: %w", err)
		}
	}
	return nil
}

// sqlTool is one of the toolbox's tools: parameterized SQL with string
// parameters ($1, $2, ... in params' order).
type sqlTool struct {
	name, description string
	params            []string
	statement         string
}

// retailSQLTools are the six retail tools as SQL over schema, described
// as the retail catalog describes them.
func retailSQLTools(cat *catalog.Catalog, schema string) []sqlTool {
	return sqlTools(cat, schema, benchTools, toolParams, toolSQL)
}

// sqlTools are the named tools as SQL over schema (each statement's %[1]s
// or %s), with their parameters, described as cat describes them.
func sqlTools(cat *catalog.Catalog, schema string, names []string, params map[string][]string, statements map[string]string) []sqlTool {
	desc := map[string]string{}
	for _, t := range cat.Tools {
		desc[t.Name.Value] = t.Description.Value
	}
	out := make([]sqlTool, len(names))
	for i, name := range names {
		out[i] = sqlTool{name: name, description: desc[name], params: params[name], statement: fmt.Sprintf(statements[name], schema)}
	}
	return out
}

// retailWorkload is the calls of the retail tools over d, and each
// server's answer as canonical text.
func retailWorkload(d *retail.Dataset) *workload {
	return &workload{
		tools:     benchTools,
		args:      func(tool string, n int, seed uint64) []map[string]any { return callArgs(d, tool, n, seed) },
		provenant: provenantValue,
		toolbox:   toolboxValue,
	}
}

// toolsYAML is the toolbox's configuration (its flat format: one document
// per source and tool) serving tools.
func toolsYAML(host string, port int, database, user, password, appName string, tools []sqlTool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kind: source\nname: pg\ntype: postgres\nhost: %s\nport: %d\ndatabase: %s\nuser: %s\npassword: %q\nqueryParams:\n  sslmode: disable\n  application_name: %s\n",
		host, port, database, user, password, appName)
	for _, t := range tools {
		fmt.Fprintf(&b, "---\nkind: tool\nname: %s\ntype: postgres-sql\nsource: pg\ndescription: %q\nparameters:\n", t.name, t.description)
		for _, p := range t.params {
			fmt.Fprintf(&b, "  - name: %s\n    type: string\n    description: %s\n", p, p)
		}
		b.WriteString("statement: |\n")
		for line := range strings.SplitSeq(t.statement, "\n") {
			b.WriteString("  " + line + "\n")
		}
	}
	return b.String()
}

// rng is a named, seeded stream.
func rng(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// callArgs draws n argument sets for name from the dataset's ids and time
// span (plus a day on either side, so some lookups find nothing).
func callArgs(d *retail.Dataset, name string, n int, seed uint64) []map[string]any {
	r := rng(seed, "args/"+name)
	first, _ := time.Parse(retail.TimestampLayout, d.Events[0].Timestamp)
	last := first
	for _, e := range d.Events {
		t, _ := time.Parse(retail.TimestampLayout, e.Timestamp)
		if t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	lo := first.Add(-24 * time.Hour).Unix()
	span := last.Add(24*time.Hour).Unix() - lo
	instant := func() string { return time.Unix(lo+r.Int64N(span), 0).UTC().Format(retail.TimestampLayout) }
	store := func() string { return d.Stores[r.IntN(len(d.Stores))].ID }
	state := func() string { return string(retail.States[r.IntN(len(retail.States))]) }
	out := make([]map[string]any, n)
	for i := range out {
		switch name {
		case "get_stock_state", "get_price", "get_compliance_flag":
			out[i] = map[string]any{"store_id": store(), "product_id": d.Products[r.IntN(len(d.Products))].ID, "as_of": instant()}
		case "count_stores_with_condition":
			out[i] = map[string]any{"condition": string(retail.Conditions[r.IntN(len(retail.Conditions))]), "as_of": instant()}
		case "list_products_in_state":
			out[i] = map[string]any{"store_id": store(), "state": state(), "as_of": instant()}
		case "count_events_in_window":
			start := lo + r.Int64N(span)
			end := start + 3600 + r.Int64N(7*24*3600)
			out[i] = map[string]any{"store_id": store(), "state": state(),
				"start": time.Unix(start, 0).UTC().Format(retail.TimestampLayout), "end": time.Unix(end, 0).UTC().Format(retail.TimestampLayout)}
		}
	}
	return out
}

// errValue means a result did not carry a value in the expected shape.
var errValue = errors.New("unexpected result shape")

// answer is the part of a provenant answer a value check reads.
type answer struct {
	Outcome string          `json:"outcome"`
	Value   json.RawMessage `json:"value"`
}

// answerValue decodes a provenant tool result that carries a value: an
// answer, or an absence (a grounded zero: nothing observed, a zero count
// or an empty list, with its attestation).
func answerValue(structured []byte) (answer, error) {
	var a answer
	if err := json.Unmarshal(structured, &a); err != nil {
		return answer{}, fmt.Errorf("decode provenant result: %w", err)
	}
	if a.Outcome != "answered" && a.Outcome != "absence" {
		return answer{}, fmt.Errorf("%w: outcome %q", errValue, a.Outcome)
	}
	return a, nil
}

// provenantValue is the canonical text of a provenant tool result's value:
// a state, flag or price, "none" when nothing was observed, a count, or a
// comma-separated product list.
func provenantValue(name string, structured []byte) (string, error) {
	a, err := answerValue(structured)
	if err != nil {
		return "", err
	}
	switch name {
	case "get_stock_state", "get_compliance_flag", "get_price":
		if string(a.Value) == "null" {
			return "none", nil
		}
		var v any
		if err := json.Unmarshal(a.Value, &v); err != nil {
			return "", fmt.Errorf("decode provenant value: %w", err)
		}
		return fmt.Sprint(v), nil
	case "count_stores_with_condition", "count_events_in_window":
		var v struct {
			Count *int `json:"count"`
		}
		if err := json.Unmarshal(a.Value, &v); err != nil || v.Count == nil {
			return "", fmt.Errorf("%w: %s", errValue, a.Value)
		}
		return strconv.Itoa(*v.Count), nil
	case "list_products_in_state":
		var v struct {
			Products []string `json:"product_ids"`
		}
		if err := json.Unmarshal(a.Value, &v); err != nil {
			return "", fmt.Errorf("decode provenant value: %w", err)
		}
		slices.Sort(v.Products)
		return strings.Join(v.Products, ","), nil
	}
	return "", fmt.Errorf("%w: tool %s", errValue, name)
}

// toolboxValue is the canonical text of the toolbox's result for name,
// given the text of its content items: each row a JSON object, or one JSON
// array of rows; no row means nothing was observed (or an empty list).
func toolboxValue(name string, texts []string) (string, error) {
	rows, err := toolboxRows(texts)
	if err != nil {
		return "", err
	}
	column := map[string]string{
		"get_stock_state": "state", "get_price": "price_cents", "get_compliance_flag": "compliance_flag",
		"count_stores_with_condition": "count", "count_events_in_window": "count", "list_products_in_state": "product_id",
	}[name]
	var vals []string
	for _, r := range rows {
		v, ok := r[column]
		if !ok {
			return "", fmt.Errorf("%w: toolbox row without %s", errValue, column)
		}
		vals = append(vals, fmt.Sprint(v))
	}
	switch name {
	case "list_products_in_state":
		slices.Sort(vals)
		return strings.Join(vals, ","), nil
	case "count_stores_with_condition", "count_events_in_window":
		if len(vals) != 1 {
			return "", fmt.Errorf("%w: %d count rows", errValue, len(vals))
		}
		return vals[0], nil
	}
	switch len(vals) {
	case 0:
		return "none", nil
	case 1:
		return vals[0], nil
	}
	return "", fmt.Errorf("%w: %d rows for a point lookup", errValue, len(vals))
}

// toolboxRows are the rows of the toolbox's content items' text: each
// item a JSON object (a row) or a JSON array of rows; numbers are kept as
// json.Number.
func toolboxRows(texts []string) ([]map[string]any, error) {
	var rows []map[string]any
	for _, t := range texts {
		t = strings.TrimSpace(t)
		switch {
		case t == "" || t == "null" || t == "[]":
		case strings.HasPrefix(t, "["):
			var rs []map[string]any
			if err := decodeNumbers([]byte(t), &rs); err != nil {
				return nil, fmt.Errorf("decode toolbox rows: %w", err)
			}
			rows = append(rows, rs...)
		case strings.HasPrefix(t, "{"):
			var r map[string]any
			if err := decodeNumbers([]byte(t), &r); err != nil {
				return nil, fmt.Errorf("decode toolbox row: %w", err)
			}
			rows = append(rows, r)
		default:
			return nil, fmt.Errorf("%w: toolbox text %.80q", errValue, t)
		}
	}
	return rows, nil
}
