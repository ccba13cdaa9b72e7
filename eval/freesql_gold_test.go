package eval_test

// This file is the free SQL suites' source. With -update it regenerates
// retail-freesql-v1.gold.yaml and warehouse-freesql-v1.gold.yaml: each
// item's question and scripted statement are written below, and its
// expected table is computed by a plain Go loop over the demo data (the
// retail demo store's records, the warehouse generator's events), sharing
// nothing with the statement or DuckDB. Without -update it checks that the
// committed files are exactly what the loops compute now.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/eval"
	retaildemo "github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/warehouse/demo"
)

// freeItem is one source item: the question, the statement, and the Go
// computation of the table it must give.
type freeItem struct {
	id, question, sql, note string
	columns                 []string
	rows                    func() [][]any
}

func retailFreeItems(t *testing.T) (version string, items []freeItem) {
	d, err := retaildemo.Load()
	if err != nil {
		t.Fatal(err)
	}
	ev := d.Events
	return d.Version, []freeItem{
		{id: "max-price", question: "What is the highest shelf price ever scanned?",
			sql:     "SELECT max(price_cents) AS max_price_cents FROM events",
			columns: []string{"max_price_cents"},
			rows: func() [][]any {
				var m int64
				for _, e := range ev {
					m = max(m, e.PriceCents)
				}
				return [][]any{{m}}
			}},
		{id: "first-scan", question: "When was the very first shelf scan recorded?",
			sql:     `SELECT min("timestamp") AS first_scan FROM events`,
			columns: []string{"first_scan"},
			rows: func() [][]any {
				first := ev[0].Timestamp
				for _, e := range ev {
					first = min(first, e.Timestamp)
				}
				return [][]any{{first}}
			}},
		{id: "products-per-category", question: "How many products does the catalogue list in each category?",
			sql:     "SELECT category, count(*) AS products FROM products GROUP BY category ORDER BY category",
			columns: []string{"category", "products"},
			rows: func() [][]any {
				n := map[string]int{}
				for _, p := range d.Products {
					n[p.Category]++
				}
				var out [][]any
				for _, c := range slices.Sorted(mapsKeys(n)) {
					out = append(out, []any{c, n[c]})
				}
				return out
			}},
		{id: "distinct-prices-pr-001", question: "How many different shelf prices were ever recorded for pr-001?",
			sql:     "SELECT count(DISTINCT price_cents) AS prices FROM events WHERE product_id = 'pr-001'",
			columns: []string{"prices"},
			rows: func() [][]any {
				seen := map[int64]bool{}
				for _, e := range ev {
					if e.ProductID == "pr-001" {
						seen[e.PriceCents] = true
					}
				}
				return [][]any{{len(seen)}}
			}},
		{id: "never-out-of-stock", question: "How many products were never once scanned out of stock?",
			sql:     "SELECT count(*) AS products FROM products WHERE product_id NOT IN (SELECT product_id FROM events WHERE state = 'OUT_OF_STOCK')",
			columns: []string{"products"},
			rows: func() [][]any {
				out := map[string]bool{}
				for _, e := range ev {
					if e.State == "OUT_OF_STOCK" {
						out[e.ProductID] = true
					}
				}
				n := 0
				for _, p := range d.Products {
					if !out[p.ID] {
						n++
					}
				}
				return [][]any{{n}}
			}},
		{id: "latest-scan-store", question: "Which store sent the most recent shelf scan, and when?",
			sql:     `SELECT store_id, "timestamp" AS scanned_at FROM events ORDER BY "timestamp" DESC, event_id DESC LIMIT 1`,
			columns: []string{"store_id", "scanned_at"},
			rows: func() [][]any {
				last := ev[0]
				for _, e := range ev {
					if e.Timestamp > last.Timestamp || e.Timestamp == last.Timestamp && e.ID > last.ID {
						last = e
					}
				}
				return [][]any{{last.StoreID, last.Timestamp}}
			}},
	}
}

// whRow is what the warehouse computations read of a generated event.
type whRow struct {
	device, zone, typ, fault string
	tenths, battery          int
	unix                     int64
}

func warehouseFreeItems(t *testing.T) (version string, items []freeItem) {
	o := demo.DefaultOptions()
	var rows []whRow
	err := demo.Generate(context.Background(), o, func(e *demo.Event) error {
		rows = append(rows, whRow{device: e.Device.ID, zone: e.Device.ZoneID, typ: string(e.Device.Type),
			fault: string(e.FaultCode), tenths: e.TemperatureTenths, battery: e.BatteryPct, unix: e.Unix})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	celsius := func(tenths int) float64 { return float64(tenths) / 10 }
	return o.DatasetVersion(), []freeItem{
		{id: "max-temperature", question: "What is the highest temperature any device has reported?",
			sql:     "SELECT max(temperature_c) AS max_temperature_c FROM status_events",
			columns: []string{"max_temperature_c"},
			rows: func() [][]any {
				m := rows[0].tenths
				for _, r := range rows {
					m = max(m, r.tenths)
				}
				return [][]any{{celsius(m)}}
			}},
		{id: "hottest-device", question: "Which device ran hottest, and how hot did it get?",
			sql:     "SELECT device_id, max(temperature_c) AS max_temperature_c FROM status_events GROUP BY device_id ORDER BY max_temperature_c DESC, device_id LIMIT 1",
			columns: []string{"device_id", "max_temperature_c"},
			rows: func() [][]any {
				best, m := "", 0
				for _, r := range rows {
					if best == "" || r.tenths > m || r.tenths == m && r.device < best {
						best, m = r.device, r.tenths
					}
				}
				return [][]any{{best, celsius(m)}}
			}},
		{id: "faults-by-code", question: "How many fault reports carried each fault code?",
			sql:     "SELECT fault_code, count(*) AS events FROM status_events WHERE fault_code IS NOT NULL GROUP BY fault_code ORDER BY fault_code",
			columns: []string{"fault_code", "events"},
			rows: func() [][]any {
				n := map[string]int{}
				for _, r := range rows {
					if r.fault != "" {
						n[r.fault]++
					}
				}
				var out [][]any
				for _, c := range slices.Sorted(mapsKeys(n)) {
					out = append(out, []any{c, n[c]})
				}
				return out
			}},
		{id: "min-battery-by-zone", question: "What is the lowest battery charge ever reported in each zone?",
			sql:     "SELECT zone_id, min(battery_pct) AS min_battery_pct FROM status_events GROUP BY zone_id ORDER BY zone_id",
			columns: []string{"zone_id", "min_battery_pct"},
			rows: func() [][]any {
				m := map[string]int{}
				for _, r := range rows {
					if v, ok := m[r.zone]; !ok || r.battery < v {
						m[r.zone] = r.battery
					}
				}
				var out [][]any
				for _, z := range slices.Sorted(mapsKeys(m)) {
					out = append(out, []any{z, m[z]})
				}
				return out
			}},
		{id: "devices-by-type", question: "How many distinct devices of each type have reported in?",
			sql:     "SELECT device_type, count(DISTINCT device_id) AS devices FROM status_events GROUP BY device_type ORDER BY device_type",
			columns: []string{"device_type", "devices"},
			rows: func() [][]any {
				seen := map[string]map[string]bool{}
				for _, r := range rows {
					if seen[r.typ] == nil {
						seen[r.typ] = map[string]bool{}
					}
					seen[r.typ][r.device] = true
				}
				var out [][]any
				for _, ty := range slices.Sorted(mapsKeys(seen)) {
					out = append(out, []any{ty, len(seen[ty])})
				}
				return out
			}},
		{id: "last-event", question: "When did the last status report arrive?",
			sql:     "SELECT max(ts) AS last_report FROM status_events",
			columns: []string{"last_report"},
			rows: func() [][]any {
				var m int64
				for _, r := range rows {
					m = max(m, r.unix)
				}
				return [][]any{{time.Unix(m, 0).UTC().Format(time.RFC3339)}}
			}},
	}
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// writeFreeSuite renders a suite as YAML: strings double-quoted (JSON
// escapes, which YAML reads), numbers as Go writes them.
func writeFreeSuite(catalog, version string, items []freeItem) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `# Free SQL suite for the %s demo (%s): questions no governed tool or
# metric covers, with the statement the scripted instrument
# (provider/scripted) proposes for each.
#
# GENERATED: do not edit. The questions, statements and Go computations
# of the expected tables live in eval/freesql_gold_test.go; every
# expectation is a plain loop over the demo data that shares nothing with
# the statement or DuckDB. Regenerate with:
#
#   go test ./eval -run TestFreeSQLSuiteFiles -update
#
# Run it: provenant eval --free-sql%s
`, catalog, version, map[bool]string{true: "", false: " --catalog " + catalog}[catalog == "retail"])
	fmt.Fprintf(&b, "suite_version: %q\ncatalog: %q\ndataset_version: %q\nitems:\n", catalog+"-freesql-v1.1", catalog, version)
	for _, it := range items {
		fmt.Fprintf(&b, "  - id: %q\n    question: %q\n    sql: %q\n", it.id, it.question, it.sql)
		if it.note != "" {
			fmt.Fprintf(&b, "    note: %q\n", it.note)
		}
		fmt.Fprintf(&b, "    expect:\n      columns: [%s]\n      rows:\n", quoted(it.columns))
		for _, row := range it.rows() {
			cells := make([]string, len(row))
			for i, c := range row {
				switch x := c.(type) {
				case string:
					cells[i] = strconv.Quote(x)
				case float64:
					cells[i] = strconv.FormatFloat(x, 'f', -1, 64)
				default:
					cells[i] = fmt.Sprint(x)
				}
			}
			fmt.Fprintf(&b, "        - [%s]\n", strings.Join(cells, ", "))
		}
	}
	return b.Bytes()
}

func quoted(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return strings.Join(out, ", ")
}

// TestFreeSQLSuiteFiles: the committed suites are what the Go loops
// compute now, and each parses.
func TestFreeSQLSuiteFiles(t *testing.T) {
	for _, tt := range []struct {
		catalog string
		items   func(*testing.T) (string, []freeItem)
	}{
		{"retail", retailFreeItems},
		{"warehouse", warehouseFreeItems},
	} {
		t.Run(tt.catalog, func(t *testing.T) {
			version, items := tt.items(t)
			want := writeFreeSuite(tt.catalog, version, items)
			path := tt.catalog + "-freesql-v1.gold.yaml"
			if *update {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is not what the Go loops compute; regenerate with -update", path)
			}
			s, err := eval.LoadFreeSQLSuite(tt.catalog)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Items) != len(items) || s.DatasetVersion != version {
				t.Errorf("suite has %d items for %s, want %d for %s", len(s.Items), s.DatasetVersion, len(items), version)
			}
		})
	}
}
