package rules_test

import (
	"errors"
	"maps"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/phrase"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/tool"
)

// clock is the clock the natural-language tests run at: Wednesday
// 2026-01-07 12:00:00 UTC (its ISO week began Monday 2026-01-05).
var clock = time.Date(2026, 1, 7, 12, 0, 0, 0, time.UTC)

// retailMenu is the retail menu with the demo store's declared names.
func retailMenu(t testing.TB) []tool.Def {
	t.Helper()
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]map[string]string{"store": {}, "product": {}}
	for _, s := range d.Stores {
		names["store"][s.ID] = s.Name
	}
	for _, p := range d.Products {
		names["product"][p.ID] = p.Name
	}
	return catalogstest.Retail().WithNames(names).Menu()
}

type want struct {
	tool   string
	params map[string]string
	asked  string
	// An abstention: its wire form.
	reason string
}

func call(tool string, kv ...string) want {
	w := want{tool: tool, params: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		w.params[kv[i]] = kv[i+1]
	}
	return w
}

func (w want) yes(v string) want { w.asked = v; return w }

func abstain(reason string) want { return want{reason: reason} }

// checkParse parses q at clock and compares with w.
func checkParse(t *testing.T, menu []tool.Def, q string, w want) {
	t.Helper()
	got, err := rules.Parse(q, menu, clock)
	if w.reason != "" {
		a, ok := errors.AsType[*provider.Abstention](err)
		if !ok {
			t.Fatalf("Parse(%q) = %v, %v; want abstention %q", q, got, err, w.reason)
		}
		if r := string(a.Kind) + ": " + a.Detail; !strings.HasPrefix(r, w.reason) {
			t.Errorf("Parse(%q) abstained %q, want %q", q, r, w.reason)
		}
		return
	}
	if err != nil {
		t.Fatalf("Parse(%q) = %v, want %s %v", q, err, w.tool, w.params)
	}
	if got.Tool != w.tool || !maps.Equal(got.Params, w.params) || got.Asked != w.asked {
		t.Errorf("Parse(%q)\n got  %s\n want %s %v asked=%q", q, got, w.tool, w.params, w.asked)
	}
}

const nowTS = "2026-01-07T12:00:00Z"

func TestParse_Retail(t *testing.T) {
	menu := retailMenu(t)
	state := func(p, s, at string) want {
		return call("get_stock_state", "product_id", p, "store_id", s, "as_of", at)
	}
	price := func(p, s, at string) want { return call("get_price", "product_id", p, "store_id", s, "as_of", at) }
	flag := func(p, s, at string) want {
		return call("get_compliance_flag", "product_id", p, "store_id", s, "as_of", at)
	}
	stores := func(c, at string) want { return call("count_stores_with_condition", "condition", c, "as_of", at) }
	list := func(s, st, at string) want {
		return call("list_products_in_state", "store_id", s, "state", st, "as_of", at)
	}
	window := func(s, st, a, b string) want {
		return call("count_events_in_window", "store_id", s, "state", st, "start", a, "end", b)
	}
	tests := []struct {
		q string
		w want
	}{
		// The ten questions and phrasings.
		{"is pr-007 in stock at st-003?", state("pr-007", "st-003", nowTS).yes("IN_STOCK")},
		{"what's the price of pr-007 at st-003 right now", price("pr-007", "st-003", nowTS)},
		{"which stores are out of stock?", stores("OUT_OF_STOCK", nowTS)},
		{"how many products are low at st-003 today", list("st-003", "LOW_STOCK", nowTS)},
		{"how many times was st-003 out of stock between 2026-01-01 and 2026-01-07?",
			window("st-003", "OUT_OF_STOCK", "2026-01-01T00:00:00Z", "2026-01-08T00:00:00Z")},
		{"do we have pr-007 on the shelf at ST-003", state("pr-007", "st-003", nowTS).yes("IN_STOCK")},
		{"tell me the shelf price for pr-007 in st-003", price("pr-007", "st-003", nowTS)},
		{"what did pr-007 cost at st-003 on 2026-01-05", price("pr-007", "st-003", "2026-01-05T23:59:59Z")},
		{"is pr-007 out of stock at st-003", state("pr-007", "st-003", nowTS).yes("OUT_OF_STOCK")},
		// Order, politeness, filler, contractions, punctuation, case.
		{"At ST-003, is PR-007 in stock, please?", state("pr-007", "st-003", nowTS).yes("IN_STOCK")},
		{"Could you tell me what pr-007 costs at st-003?", price("pr-007", "st-003", nowTS)},
		{"isn't pr-007 sold out at st-003?", state("pr-007", "st-003", nowTS).yes("OUT_OF_STOCK")},
		{"don't we have pr-003 on the shelf at st-008?", state("pr-003", "st-008", nowTS).yes("IN_STOCK")},
		{"is pr-007 not in stock at st-003?", abstain("not_understood")},
		{"st-003: price of pr-007?", price("pr-007", "st-003", nowTS)},
		{"how much is pr-007 at st-003", price("pr-007", "st-003", nowTS)},
		{"what's the compliance status of pr-007 at st-003", flag("pr-007", "st-003", nowTS)},
		{"is pr-007 mispriced at st-003?", flag("pr-007", "st-003", nowTS).yes("PRICE_MISMATCH")},
		{"Is pr-007 expired at st-003 yesterday?", flag("pr-007", "st-003", "2026-01-06T23:59:59Z").yes("EXPIRED_PRODUCT")},
		// Names, "store 3", ids in any case.
		{"is whole milk 1l in stock at riverside", state("pr-007", "st-003", nowTS).yes("IN_STOCK")},
		{"is Whole Milk 1L in stock at Riverside?", state("pr-007", "st-003", nowTS).yes("IN_STOCK")},
		{"price of product 7 at store 3", price("pr-007", "st-003", nowTS)},
		{"price of product 7 at shop #3", price("pr-007", "st-003", nowTS)},
		{"price of pr-007 at downtown 2", price("pr-007", "st-013", nowTS)},
		{"price of pr-007 at Downtown", price("pr-007", "st-001", nowTS)},
		{"is sourdough loaf in stock at st-001", state("pr-002", "st-001", nowTS).yes("IN_STOCK")},
		{"is sourdough in stock at st-001", abstain("ambiguous: product (the question could name pr-002, pr-026)")},
		{"is milk in stock at st-001", abstain("ambiguous: product (the question could name pr-001, pr-007)")},
		{"is kumquat in stock at st-001", abstain("unknown_name: product (the question names no declared product)")},
		{"price of pr-007 at store 99", abstain("unknown_name: store (the question names no declared store)")},
		{"price of pr-007 at Springfield", abstain("unknown_name: store (the question names no declared store)")},
		// Synonyms of states and conditions.
		{"is pr-007 available at st-003", state("pr-007", "st-003", nowTS).yes("IN_STOCK")},
		{"is pr-007 running low at st-003", state("pr-007", "st-003", nowTS).yes("LOW_STOCK")},
		{"is pr-007 overstocked at st-003", state("pr-007", "st-003", nowTS).yes("OVERSTOCK")},
		{"is pr-007 missing from the shelf at st-003", state("pr-007", "st-003", nowTS).yes("OUT_OF_STOCK")},
		{"which stores have expired products", stores("EXPIRED", nowTS)},
		{"how many stores have compliance issues?", stores("NON_COMPLIANT", nowTS)},
		{"which stores are not compliant as of 2026-01-05", stores("NON_COMPLIANT", "2026-01-05T23:59:59Z")},
		{"which stores have wrong prices", stores("PRICE_MISMATCH", nowTS)},
		{"which stores have empty shelves", stores("OUT_OF_STOCK", nowTS)},
		{"which products are sold out at riverside", list("st-003", "OUT_OF_STOCK", nowTS)},
		{"list the products with too much stock at st-003", list("st-003", "OVERSTOCK", nowTS)},
		// Instants.
		{"is pr-007 in stock at st-003 currently", state("pr-007", "st-003", nowTS).yes("IN_STOCK")},
		{"is pr-007 in stock at st-003 at the moment", state("pr-007", "st-003", nowTS).yes("IN_STOCK")},
		{"price of pr-007 at st-003 now", price("pr-007", "st-003", nowTS)},
		{"price of pr-007 at st-003 on January 5", price("pr-007", "st-003", "2026-01-05T23:59:59Z")},
		{"price of pr-007 at st-003 on 5 Jan 2026", price("pr-007", "st-003", "2026-01-05T23:59:59Z")},
		{"price of pr-007 at st-003 on Jan 5th, 2026", price("pr-007", "st-003", "2026-01-05T23:59:59Z")},
		{"price of pr-007 at st-003 yesterday", price("pr-007", "st-003", "2026-01-06T23:59:59Z")},
		{"price of pr-007 at st-003 at 2026-01-06 08:00", price("pr-007", "st-003", "2026-01-06T08:00:00Z")},
		{"price of pr-007 at st-003 as of 2026-01-06T08:00:00Z", price("pr-007", "st-003", "2026-01-06T08:00:00Z")},
		{"price of pr-007 at st-003 on 2026-02-30", abstain("not_understood")},
		// Windows.
		{"how many times was st-003 out of stock today",
			window("st-003", "OUT_OF_STOCK", "2026-01-07T00:00:00Z", nowTS)},
		{"how many times was st-003 out of stock yesterday",
			window("st-003", "OUT_OF_STOCK", "2026-01-06T00:00:00Z", "2026-01-07T00:00:00Z")},
		{"how often was st-003 low this week", window("st-003", "LOW_STOCK", "2026-01-05T00:00:00Z", nowTS)},
		{"how often was st-003 low last week",
			window("st-003", "LOW_STOCK", "2025-12-29T00:00:00Z", "2026-01-05T00:00:00Z")},
		{"how many out of stock scans at st-003 in the last 3 days",
			window("st-003", "OUT_OF_STOCK", "2026-01-04T12:00:00Z", nowTS)},
		{"how many out of stock scans at st-003 over the past 24 hours",
			window("st-003", "OUT_OF_STOCK", "2026-01-06T12:00:00Z", nowTS)},
		{"how many out of stock events at st-003 from 2026-01-02 to 2026-01-03",
			window("st-003", "OUT_OF_STOCK", "2026-01-02T00:00:00Z", "2026-01-04T00:00:00Z")},
		{"how many out of stock events at st-003 between 2026-01-02T06:00:00Z and 2026-01-02T18:00:00Z",
			window("st-003", "OUT_OF_STOCK", "2026-01-02T06:00:00Z", "2026-01-02T18:00:00Z")},
		{"how many out of stock events at st-003 on 2026-01-02",
			window("st-003", "OUT_OF_STOCK", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z")},
		{"how many out of stock events at st-003 since 2026-01-05",
			window("st-003", "OUT_OF_STOCK", "2026-01-05T00:00:00Z", nowTS)},
		// Weekdays in windows (README, "Time as people say it"; the clock
		// is a Wednesday).
		{"how many out of stock events at st-003 since Monday",
			window("st-003", "OUT_OF_STOCK", "2026-01-05T00:00:00Z", nowTS)},
		{"how many out of stock events at st-003 since last Monday",
			window("st-003", "OUT_OF_STOCK", "2026-01-05T00:00:00Z", nowTS)},
		{"how many out of stock events at st-003 since Wednesday",
			window("st-003", "OUT_OF_STOCK", "2025-12-31T00:00:00Z", nowTS)},
		{"how many out of stock events at st-003 from Monday to Wednesday",
			window("st-003", "OUT_OF_STOCK", "2026-01-05T00:00:00Z", "2026-01-08T00:00:00Z")},
		{"how many out of stock events at st-003 between Monday and Wednesday",
			window("st-003", "OUT_OF_STOCK", "2026-01-05T00:00:00Z", "2026-01-08T00:00:00Z")},
		{"how many out of stock events at st-003 from Friday to Monday",
			window("st-003", "OUT_OF_STOCK", "2026-01-02T00:00:00Z", "2026-01-06T00:00:00Z")},
		{"how many out of stock events at st-003 from Monday to Friday",
			window("st-003", "OUT_OF_STOCK", "2026-01-05T00:00:00Z", "2026-01-10T00:00:00Z")},
		{"how many out of stock events at st-003 from Monday to 2026-01-07", abstain("not_understood")},
		{"is pr-007 in stock at st-003 since Monday", abstain("not_understood")},
		// The declared phrasings: a capture naming one declared value is
		// that value, a relative time is resolved against the clock, and
		// anything else goes as written.
		{"What is the price of Whole Milk 1L at Riverside as of 2026-01-06?", price("pr-007", "st-003", "2026-01-06T23:59:59Z")},
		{"What is the price of PR-007 at store 3 as of 2026-01-06 08:00?", price("pr-007", "st-003", "2026-01-06T08:00:00Z")},
		{"How many stores have condition sold out as of 2026-01-06T08:00:00Z?", stores("OUT_OF_STOCK", "2026-01-06T08:00:00Z")},
		{"How many LOW_STOCK scans were recorded at st-008 between 2026-01-02 and 2026-01-05?",
			window("st-008", "LOW_STOCK", "2026-01-02T00:00:00Z", "2026-01-06T00:00:00Z")},
		{"How many LOW_STOCK scans were recorded at st-008 between Friday and Monday?",
			window("st-008", "LOW_STOCK", "2026-01-02T00:00:00Z", "2026-01-06T00:00:00Z")},
		{"How many OUT_OF_STOCK events were recorded for st-003 in [2026-01-01, 2026-01-07)?",
			window("st-003", "OUT_OF_STOCK", "2026-01-01T00:00:00Z", "2026-01-07T00:00:00Z")},
		{"What is the compliance flag of pr-007 at st-003 as of yesterday?", flag("pr-007", "st-003", "2026-01-06T23:59:59Z")},
		{"What is the compliance flag of pr-007 at st-003 as of now?", flag("pr-007", "st-003", nowTS)},
		{"What is the compliance flag of pr-007 at st-003 as of 2026-01-06T25:00:00Z?", flag("pr-007", "st-003", "2026-01-06T25:00:00Z")},
		{"What is the price of pr-007' OR 1=1 at st-003 as of 2026-01-06T08:00:00Z?", price("pr-007' OR 1=1", "st-003", "2026-01-06T08:00:00Z")},
		{"What is the price of sourdough at st-003 as of 2026-01-06T08:00:00Z?", price("sourdough", "st-003", "2026-01-06T08:00:00Z")},
		// Abstentions with true reasons.
		{"what's the price of pr-007?", abstain("missing_slot: store (the question names no store)")},
		{"how many times was st-003 out of stock?", abstain("missing_slot: window")},
		{"which products are at st-003?", abstain("missing_slot: state (the question names no state)")},
		{"How many employees work at st-003?", abstain("no_tool")},
		{"Why was pr-007 out of stock at st-003 on 2026-01-06?", abstain("not_understood")},
		{"What is the average price of pr-007 across all stores?", abstain("not_understood")},
		{"Set the price of pr-007 at st-003 to 199 cents.", abstain("not_understood")},
		{"is pr-007 in stock at st-003 and st-004", abstain("not_understood")},
		{"price of pr-007 at st-003 last week", abstain("not_understood")},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) { checkParse(t, menu, tt.q, tt.w) })
	}
}

// TestParse_NoClock: without a clock, a question that needs one abstains
// naming the time slot; one that names its time does not need it.
func TestParse_NoClock(t *testing.T) {
	menu := retailMenu(t)
	if _, err := rules.Parse("is pr-007 in stock at st-003", menu, time.Time{}); !strings.Contains(errString(err), "missing_slot: as_of") {
		t.Errorf("no clock: %v, want missing_slot: as_of", err)
	}
	got, err := rules.Parse("is pr-007 in stock at st-003 on 2026-01-05", menu, time.Time{})
	if err != nil || got.Params["as_of"] != "2026-01-05T23:59:59Z" {
		t.Errorf("no clock, a date: %v, %v", got, err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestParse_Warehouse: the same mechanisms over the warehouse catalog,
// whose entities declare no names (ids by pattern, "device 12").
func TestParse_Warehouse(t *testing.T) {
	menu := catalogstest.Warehouse().Menu()
	status := func(d, at string) want { return call("get_device_status", "device_id", d, "as_of", at) }
	tests := []struct {
		q string
		w want
	}{
		{"is dev-0012 faulted?", status("dev-0012", nowTS).yes("FAULT")},
		{"Is DEV-0012 running right now", status("dev-0012", nowTS).yes("RUNNING")},
		{"what's device 12 doing", status("dev-0012", nowTS)},
		{"is machine 7 under maintenance yesterday", status("dev-0007", "2026-01-06T23:59:59Z").yes("MAINTENANCE")},
		{"how hot is dev-0003 at 2026-01-06 08:00", call("get_temperature", "device_id", "dev-0003", "as_of", "2026-01-06T08:00:00Z")},
		{"battery level of device 3?", call("get_battery_level", "device_id", "dev-0003", "as_of", nowTS)},
		{"which devices need attention", call("count_devices_with_condition", "condition", "NEEDS_ATTENTION", "as_of", nowTS)},
		{"how many devices have low battery on 2026-01-05", call("count_devices_with_condition", "condition", "LOW_BATTERY", "as_of", "2026-01-05T23:59:59Z")},
		{"which devices are stuck in zone 3", call("list_devices_in_status", "zone_id", "zone-03", "status", "BLOCKED", "as_of", nowTS)},
		{"how many times was zone-02 faulty last week",
			call("count_status_events_in_window", "zone_id", "zone-02", "status", "FAULT", "start", "2025-12-29T00:00:00Z", "end", "2026-01-05T00:00:00Z")},
		{"what's the temperature?", abstain("missing_slot: device (the question names no device)")},
		{"which devices are idle?", abstain("missing_slot: zone")},
		{"what's the temperature of the forklift", abstain("unknown_name: device")},
		{"how many pallets were moved today", abstain("no_tool")},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) { checkParse(t, menu, tt.q, tt.w) })
	}
}

// BenchmarkParse is the parse of one question (the retail menu with the
// demo store's names; the compiled parser cached, as in serving).
func BenchmarkParse(b *testing.B) {
	menu := retailMenu(b)
	questions := benchQuestions
	for _, q := range questions {
		if _, err := rules.Parse(q, menu, clock); err != nil {
			b.Fatalf("Parse(%q) = %v", q, err)
		}
	}
	b.ReportAllocs()
	cpu := cpuTime()
	for i := 0; b.Loop(); i++ {
		rules.Parse(questions[i%len(questions)], menu, clock)
	}
	reportCPU(b, cpu)
}

// cpuTime is the process's CPU time so far (user and system, every
// thread): on a machine shared with other work, the CPU a benchmark
// spent per operation says what the wall time per operation cannot.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	if used := cpuTime() - start; start > 0 && b.N > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkParser is BenchmarkParse without the provider's cache lookup:
// the compiled parser alone.
func BenchmarkParser(b *testing.B) {
	p, err := phrase.NewParser(tool.Vocabulary(retailMenu(b)))
	if err != nil {
		b.Fatal(err)
	}
	questions := benchQuestions
	b.ReportAllocs()
	cpu := cpuTime()
	for i := 0; b.Loop(); i++ {
		p.Parse(questions[i%len(questions)], clock)
	}
	reportCPU(b, cpu)
}

var benchQuestions = []string{
	"is pr-007 in stock at st-003?",
	"how many times was Riverside out of stock between 2026-01-01 and 2026-01-07?",
	"tell me the shelf price for product 7 in store 3 yesterday",
	"how many products are low at st-003 today",
	"What is the stock state of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
}
