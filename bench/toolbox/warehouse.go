package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/warehouse/demo"
)

// The warehouse catalog's six tools, in the order the results list them:
// the three latest_value lookups, then count_entities_where,
// list_entities_in_state and count_rows_in_window.
var warehouseTools = []string{
	"get_device_status", "get_battery_level", "get_temperature",
	"count_devices_with_condition", "list_devices_in_status", "count_status_events_in_window",
}

// warehouseTable is the table `provenant import` creates for the
// status_events dataset (catalogs/warehouse.yaml), in the bench's schema.
const warehouseTable = "status_events"

// latestRows is every device's latest event at or before the instant
// $%[2]d, in provenant's order (time, then event id): DISTINCT ON, the
// plain PostgreSQL way to take the first row of each group. It reads
// every event up to the instant; no index avoids that without a list of
// the devices.
const latestRows = `SELECT DISTINCT ON (device_id) device_id, zone_id, status, battery_pct, temperature_c, fault_code
    FROM %[1]s.status_events
    WHERE ts <= CAST($%[2]d AS timestamp)
    ORDER BY device_id, ts DESC, event_id DESC`

// latestOne is one device's latest event at or before the instant: one
// backward probe of the (device_id, ts, event_id) index import creates.
const latestOne = `SELECT %[2]s FROM %[1]s.status_events
  WHERE device_id = $1 AND ts <= CAST($2 AS timestamp)
  ORDER BY ts DESC, event_id DESC LIMIT 1`

// warehouseSQL is each warehouse tool as the parameterized SQL a
// PostgreSQL user would write for it, over the table import created
// (%[1]s is the schema), equivalent to the catalog's tool: same
// arguments, same answer. The timestamps are RFC 3339 text in UTC; the
// cast to timestamp (without time zone, the column's type) drops the Z.
//
// count_devices_with_condition is one tool whose WHERE is a CASE over the
// condition's name, each branch the catalog's condition as SQL (one tool
// per condition would give the client six tools where provenant has one).
// It returns the count and the devices, as provenant's answer does.
// list_devices_in_status filters zone and status after taking each
// device's latest event, as the catalog defines it (a device's latest
// event is in the zone), not before.
var warehouseSQL = map[string]string{
	"get_device_status": fmt.Sprintf(latestOne, "%[1]s", "status"),
	"get_battery_level": fmt.Sprintf(latestOne, "%[1]s", "battery_pct"),
	"get_temperature":   fmt.Sprintf(latestOne, "%[1]s", "temperature_c"),
	"count_devices_with_condition": `SELECT count(*) AS count, string_agg(device_id, ',' ORDER BY device_id) AS device_ids
  FROM (` + fmt.Sprintf(latestRows, "%[1]s", 2) + `) latest
  WHERE CASE $1
    WHEN 'FAULTED' THEN status = 'FAULT'
    WHEN 'BLOCKED' THEN status = 'BLOCKED'
    WHEN 'LOW_BATTERY' THEN battery_pct < 20
    WHEN 'OVERHEATING' THEN temperature_c >= 60
    WHEN 'NEEDS_ATTENTION' THEN status IN ('FAULT', 'BLOCKED') OR battery_pct < 20 OR temperature_c >= 60
    WHEN 'BATTERY_FAULT' THEN status = 'FAULT' AND fault_code = 'E-BATTERY'
  END`,
	"list_devices_in_status": `SELECT device_id FROM (` + fmt.Sprintf(latestRows, "%[1]s", 3) + `) latest
  WHERE zone_id = $1 AND status = $2 ORDER BY device_id`,
	"count_status_events_in_window": `SELECT count(*) AS count FROM %[1]s.status_events
  WHERE zone_id = $1 AND status = $2 AND ts >= CAST($3 AS timestamp) AND ts < CAST($4 AS timestamp)`,
}

// warehouseParams are each tool's parameters, in the order of its SQL's
// $n, named as the catalog's tool names them.
var warehouseParams = map[string][]string{
	"get_device_status":             {"device_id", "as_of"},
	"get_battery_level":             {"device_id", "as_of"},
	"get_temperature":               {"device_id", "as_of"},
	"count_devices_with_condition":  {"condition", "as_of"},
	"list_devices_in_status":        {"zone_id", "status", "as_of"},
	"count_status_events_in_window": {"zone_id", "status", "start", "end"},
}

// warehouseConditions are count_devices_with_condition's conditions, as
// the CASE above spells them.
var warehouseConditions = []string{"FAULTED", "BLOCKED", "LOW_BATTERY", "OVERHEATING", "NEEDS_ATTENTION", "BATTERY_FAULT"}

// warehouseSQLTools are the toolbox's tools for the warehouse catalog,
// described as the catalog describes them.
func warehouseSQLTools(cat *catalog.Catalog, schema string) []sqlTool {
	return sqlTools(cat, schema, warehouseTools, warehouseParams, warehouseSQL)
}

// whData is the warehouse data set a run generated and imported.
type whData struct {
	opts    demo.Options
	zones   []demo.Zone
	devices []demo.Device
}

// warehouseWorkload is the calls of the warehouse tools over w's ids and
// period, and each server's answer as canonical text.
func warehouseWorkload(w *whData) *workload {
	return &workload{
		tools:     warehouseTools,
		args:      func(tool string, n int, seed uint64) []map[string]any { return w.callArgs(tool, n, seed) },
		provenant: warehouseProvenantValue,
		toolbox:   warehouseToolboxValue,
	}
}

// callArgs draws n argument sets for tool from the data's ids and period
// (plus a day on either side, so some lookups find nothing).
func (w *whData) callArgs(tool string, n int, seed uint64) []map[string]any {
	r := rng(seed, "warehouse/"+tool)
	lo := w.opts.Start.Add(-24 * time.Hour).Unix()
	span := int64(w.opts.Days+2) * 24 * 3600
	at := func(s int64) string { return time.Unix(s, 0).UTC().Format(time.RFC3339) }
	instant := func() string { return at(lo + r.Int64N(span)) }
	zone := func() string { return w.zones[r.IntN(len(w.zones))].ID }
	status := func() string { return string(demo.Statuses[r.IntN(len(demo.Statuses))]) }
	out := make([]map[string]any, n)
	for i := range out {
		switch tool {
		case "get_device_status", "get_battery_level", "get_temperature":
			out[i] = map[string]any{"device_id": w.devices[r.IntN(len(w.devices))].ID, "as_of": instant()}
		case "count_devices_with_condition":
			out[i] = map[string]any{"condition": warehouseConditions[r.IntN(len(warehouseConditions))], "as_of": instant()}
		case "list_devices_in_status":
			out[i] = map[string]any{"zone_id": zone(), "status": status(), "as_of": instant()}
		case "count_status_events_in_window":
			start := lo + r.Int64N(span)
			end := start + 3600 + r.Int64N(7*24*3600)
			out[i] = map[string]any{"zone_id": zone(), "status": status(), "start": at(start), "end": at(end)}
		}
	}
	return out
}

// canonicalNumber writes a JSON number one way whatever its spelling
// (60, 60.0, 6e1 are "60").
func canonicalNumber(n json.Number) (string, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return "", fmt.Errorf("%w: not a number", errValue)
	}
	return strconv.FormatFloat(f, 'g', -1, 64), nil
}

// decodeNumbers decodes JSON keeping numbers as json.Number.
func decodeNumbers(b []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	return dec.Decode(v)
}

// scalarText is a scalar's canonical text: "none" for null, a number
// canonically, a string as itself.
func scalarText(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "none", nil
	case json.Number:
		return canonicalNumber(x)
	case string:
		return x, nil
	}
	return "", fmt.Errorf("%w: scalar of type %T", errValue, v)
}

// warehouseProvenantValue is the canonical text of a provenant answer's
// value: a status or reading ("none" when nothing was observed), a count
// with its devices ("3:dev-0001,dev-0007,dev-0012"), a device list, or a
// row count.
func warehouseProvenantValue(tool string, structured []byte) (string, error) {
	a, err := answerValue(structured)
	if err != nil {
		return "", err
	}
	switch tool {
	case "get_device_status", "get_battery_level", "get_temperature":
		var v any
		if err := decodeNumbers(a.Value, &v); err != nil {
			return "", fmt.Errorf("decode provenant value: %w", err)
		}
		return scalarText(v)
	case "count_devices_with_condition", "list_devices_in_status":
		var v struct {
			Count *int     `json:"count"`
			IDs   []string `json:"device_ids"`
		}
		if err := json.Unmarshal(a.Value, &v); err != nil || v.IDs == nil {
			return "", fmt.Errorf("%w: no device_ids", errValue)
		}
		slices.Sort(v.IDs)
		ids := strings.Join(v.IDs, ",")
		if tool == "list_devices_in_status" {
			return ids, nil
		}
		if v.Count == nil {
			return "", fmt.Errorf("%w: no count", errValue)
		}
		return strconv.Itoa(*v.Count) + ":" + ids, nil
	case "count_status_events_in_window":
		var v struct {
			Count *int `json:"count"`
		}
		if err := json.Unmarshal(a.Value, &v); err != nil || v.Count == nil {
			return "", fmt.Errorf("%w: no count", errValue)
		}
		return strconv.Itoa(*v.Count), nil
	}
	return "", fmt.Errorf("%w: tool %s", errValue, tool)
}

// warehouseToolboxValue is the canonical text of the toolbox's answer to
// tool, given its content items' text (rows, as toolboxRows reads them),
// in warehouseProvenantValue's form.
func warehouseToolboxValue(tool string, texts []string) (string, error) {
	rows, err := toolboxRows(texts)
	if err != nil {
		return "", err
	}
	get := func(r map[string]any, column string) (any, error) {
		v, ok := r[column]
		if !ok {
			return nil, fmt.Errorf("%w: toolbox row without %s", errValue, column)
		}
		return v, nil
	}
	switch tool {
	case "get_device_status", "get_battery_level", "get_temperature":
		column := map[string]string{"get_device_status": "status", "get_battery_level": "battery_pct", "get_temperature": "temperature_c"}[tool]
		switch len(rows) {
		case 0:
			return "none", nil
		case 1:
			v, err := get(rows[0], column)
			if err != nil {
				return "", err
			}
			return scalarText(v)
		}
		return "", fmt.Errorf("%w: %d rows for a point lookup", errValue, len(rows))
	case "list_devices_in_status":
		ids := make([]string, len(rows))
		for i, r := range rows {
			v, err := get(r, "device_id")
			if err != nil {
				return "", err
			}
			ids[i] = fmt.Sprint(v)
		}
		slices.Sort(ids)
		return strings.Join(ids, ","), nil
	case "count_devices_with_condition", "count_status_events_in_window":
		if len(rows) != 1 {
			return "", fmt.Errorf("%w: %d count rows", errValue, len(rows))
		}
		c, err := get(rows[0], "count")
		if err != nil {
			return "", err
		}
		count, err := scalarText(c)
		if err != nil {
			return "", err
		}
		if tool == "count_status_events_in_window" {
			return count, nil
		}
		ids, err := get(rows[0], "device_ids")
		if err != nil {
			return "", err
		}
		if ids == nil { // string_agg of no rows
			ids = ""
		}
		list := strings.Split(fmt.Sprint(ids), ",")
		slices.Sort(list)
		return count + ":" + strings.Join(list, ","), nil
	}
	return "", fmt.Errorf("%w: tool %s", errValue, tool)
}

// warehouseDSN is dsn with the connections' search_path set to schema,
// where import creates its tables and serve reads them, and their
// application_name set to app, which finds their backends.
func warehouseDSN(dsn, schema, app string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("parse dsn: %w", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// importWarehouse generates the warehouse demo of o as CSV under dir,
// drops and recreates schema, and imports the file with `provenant
// import` (which rebuilds the derived structures, shape.Derive, in its
// transaction), then vacuums and analyzes the schema's tables, as
// autovacuum would in time, so both servers' plans see statistics. It
// returns the time the import took.
func importWarehouse(ctx context.Context, bin, catalogFile, dir, dsn, schema string, o demo.Options) (time.Duration, int64, error) {
	path := filepath.Join(dir, "status_events.csv")
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, fmt.Errorf("create events file: %w", err)
	}
	if err := demo.WriteCSV(ctx, f, o); err != nil {
		f.Close()
		return 0, 0, err
	}
	if err := f.Close(); err != nil {
		return 0, 0, fmt.Errorf("write events file: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, 0, fmt.Errorf("stat events file: %w", err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, 0, fmt.Errorf("connect postgres: %w", err)
	}
	defer conn.Close(ctx)
	id := pgx.Identifier{schema}.Sanitize()
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+id+" CASCADE; CREATE SCHEMA "+id); err != nil {
		return 0, 0, fmt.Errorf("create schema: %w", err)
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, bin, "import", "--catalog", catalogFile, "--dataset", "status_events", "--postgres", dsn, path)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("import events: %w", err)
	}
	took := time.Since(start)
	rows, err := conn.Query(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename", schema)
	if err != nil {
		return 0, 0, fmt.Errorf("list tables: %w", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, 0, fmt.Errorf("list tables: %w", err)
	}
	for _, t := range tables {
		if _, err := conn.Exec(ctx, "VACUUM (ANALYZE) "+pgx.Identifier{schema, t}.Sanitize()); err != nil {
			return 0, 0, fmt.Errorf("vacuum %s: %w", t, err)
		}
	}
	return took, fi.Size(), nil
}

// tableStats is the size of the imported table and its indexes.
func tableStats(ctx context.Context, dsn, schema string) (rows int64, tableMB, indexMB float64, err error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("connect postgres: %w", err)
	}
	defer conn.Close(ctx)
	rel := pgx.Identifier{schema, warehouseTable}.Sanitize()
	var tb, ib int64
	err = conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM "+rel+"), pg_table_size($1::regclass), pg_indexes_size($1::regclass)", rel).Scan(&rows, &tb, &ib)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("measure table: %w", err)
	}
	return rows, round(float64(tb)/(1<<20), 1), round(float64(ib)/(1<<20), 1), nil
}

// warehouseCatalog is the embedded warehouse catalog, which `serve
// --catalog warehouse` serves.
func warehouseCatalog() (*catalog.Catalog, error) { return catalogs.Load("warehouse") }

// tableIndexes are the definitions of the imported table's indexes, which
// both servers' queries use.
func tableIndexes(ctx context.Context, dsn, schema string) ([]string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname", schema, warehouseTable)
	if err != nil {
		return nil, fmt.Errorf("list indexes: %w", err)
	}
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list indexes: %w", err)
	}
	for i, d := range defs {
		defs[i] = strings.ReplaceAll(d, pgx.Identifier{schema}.Sanitize()+".", "")
		defs[i] = strings.ReplaceAll(defs[i], schema+".", "")
	}
	return defs, nil
}

// postgresSettings are the PostgreSQL server's version and the settings
// that bound the queries' memory, as SHOW gives them.
func postgresSettings(ctx context.Context, dsn string) (map[string]string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	defer conn.Close(ctx)
	out := map[string]string{}
	for _, name := range []string{"server_version", "shared_buffers", "work_mem", "max_parallel_workers_per_gather", "jit"} {
		var v string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
			return nil, fmt.Errorf("read setting %s: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}
