package tool_test

import (
	"encoding/json"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

// testCatalog is the small declared domain every wall test checks against.
func testCatalog() map[string]map[string]bool {
	return map[string]map[string]bool{
		"store":   {"st-001": true, "st-002": true},
		"product": {"pr-001": true, "pr-002": true},
	}
}

// testRegistry is the retail tools' registry every wall test checks
// against.
var testRegistry = catalogstest.Retail()

func testWall() *tool.Wall { return tool.NewWall(testRegistry, testCatalog()) }

// validParams returns a proposal's parameters that the wall accepts for the
// named registered tool.
func validParams(tb testing.TB, name string) map[string]any {
	tb.Helper()
	def, ok := testRegistry.Lookup(name)
	if !ok {
		tb.Fatalf("tool %q is not registered", name)
	}
	ps := map[string]any{}
	for _, q := range def.Params {
		switch q.Name {
		case "store_id":
			ps[q.Name] = "st-001"
		case "product_id":
			ps[q.Name] = "pr-002"
		case "as_of":
			ps[q.Name] = "2026-01-06T08:00:00Z"
		case "state":
			ps[q.Name] = "LOW_STOCK"
		case "condition":
			ps[q.Name] = "NON_COMPLIANT"
		case "start":
			ps[q.Name] = "2026-01-01T00:00:00Z"
		case "end":
			ps[q.Name] = "2026-01-07T00:00:00Z"
		default:
			tb.Fatalf("tool %s has a parameter %s this test does not know", name, q.Name)
		}
	}
	return ps
}

// propose builds a proposal for name from its valid parameters with the
// given overrides; an override to the value drop removes the parameter.
func propose(tb testing.TB, name string, kv ...any) tool.Proposal {
	tb.Helper()
	ps := validParams(tb, name)
	if len(kv)%2 != 0 {
		tb.Fatal("propose: odd number of override arguments")
	}
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		if kv[i+1] == drop {
			delete(ps, k)
			continue
		}
		ps[k] = kv[i+1]
	}
	return tool.Proposal{Tool: name, Params: ps}
}

type dropMarker struct{}

// drop, as an override value, removes the parameter from the proposal.
var drop = dropMarker{}

// knownReasons lists every Reason the wall may give, so that the set of
// messages it can produce is finite and known: a rejection whose message is
// outside that set may be echoing a value. Keep it in step with wall.go.
func knownReasons() []string {
	r := []string{
		"tool is not on the menu",
		"is missing",
		"carries query syntax",
		"must be a string",
		"is not a store id (st- and 3 digits)",
		"is not a declared store",
		"is not a product id (pr- and 3 digits)",
		"is not a declared product",
		"is not a UTC timestamp like 2026-01-06T08:00:00Z",
		"is after " + tool.LastInstant + ", the latest instant answered",
		"is before " + tool.FirstInstant + ", the earliest instant answered",
		"is not one of " + strings.Join(strs(retail.States), ", "),
		"is not one of " + strings.Join(strs(retail.Conditions), ", "),
		"has no domain",
		"is after end",
	}
	for _, d := range testRegistry.Menu() {
		r = append(r, "unexpected parameter for "+d.Name)
	}
	return r
}

// messages returns every message a rejection can carry: each kind, with
// each registered parameter name or none, and each known reason.
func messages() map[string]bool {
	params := []string{""}
	for _, d := range testRegistry.Menu() {
		for _, q := range d.Params {
			if !slices.Contains(params, q.Name) {
				params = append(params, q.Name)
			}
		}
	}
	m := map[string]bool{}
	for _, k := range []tool.RejectKind{tool.Unregistered, tool.Invalid, tool.RawQuery} {
		for _, p := range params {
			for _, r := range knownReasons() {
				m[(&tool.Rejection{Kind: k, Param: p, Reason: r}).Error()] = true
			}
		}
	}
	return m
}

// vocabulary is every message a rejection can carry, one per line. A value
// that is a substring of it may legitimately appear in a message.
var vocabulary = strings.Join(slices.Sorted(maps.Keys(messageSet)), "\n")

// messageSet is messages(), computed once.
var messageSet = messages()

// distinctive reports whether finding s in a rejection would prove the
// rejection echoed it: s is long enough and no fixed message contains it.
func distinctive(s string) bool {
	return len(s) > 3 && !strings.Contains(vocabulary, s)
}

// checkNoEcho fails if the rejection carries the offending value anywhere.
func checkNoEcho(tb testing.TB, rej *tool.Rejection, offending string) {
	tb.Helper()
	if !distinctive(offending) {
		return
	}
	for field, got := range map[string]string{
		"Error()": rej.Error(), "Kind": string(rej.Kind), "Param": rej.Param, "Reason": rej.Reason,
	} {
		if strings.Contains(got, offending) {
			tb.Errorf("rejection %s = %q echoes the offending value %q", field, got, offending)
		}
	}
}

// checkMessage fails if the rejection's message is not one of the fixed
// messages the wall can produce.
func checkMessage(tb testing.TB, rej *tool.Rejection) {
	tb.Helper()
	if !messageSet[rej.Error()] {
		tb.Errorf("rejection message %q is not one of the wall's fixed messages (a new reason must be added to knownReasons; a value must never be)", rej.Error())
	}
}

type wallCase struct {
	name      string
	p         tool.Proposal
	wantErr   bool
	wantKind  tool.RejectKind
	wantParam string
	// offending is the value the rejection must not echo ("" when the
	// offending value is not a string).
	offending string
}

// paramSlots names one tool per parameter of every kind, so each
// parameter type is exercised on some tool.
var paramSlots = []struct{ tool, param string }{
	{"get_stock_state", "store_id"},
	{"get_price", "product_id"},
	{"get_compliance_flag", "as_of"},
	{"count_stores_with_condition", "condition"},
	{"list_products_in_state", "state"},
	{"count_events_in_window", "start"},
	{"count_events_in_window", "end"},
}

// rawQueries are values that carry query syntax, each with a name.
var rawQueries = []struct{ name, value string }{
	{"single quote", "st-001'"},
	{"double quote", `"st-001"`},
	{"backquote", "`st-001`"},
	{"semicolon", "st-001;"},
	{"line comment", "st-001 -- rest"},
	{"block comment", "st-001/*x*/"},
	{"open paren", "count(st-001"},
	{"parentheses", "(st-001)"},
	{"braces", "{st-001}"},
	{"brackets", "[st-001]"},
	{"equals", "st=st-001"},
	{"less than", "<st-001"},
	{"greater than", "st-001>"},
	{"not equal", "st-001 != st-002"},
	{"concat or", "st-001 || st-002"},
	{"logical and", "st-001 && st-002"},
	{"percent wildcard", "st-%"},
	{"star wildcard", "st-*"},
	{"backslash", `st-001\`},
	{"SELECT", "SELECT state"},
	{"select lower", "select"},
	{"select mixed case", "SeLeCt st-001"},
	{"UNION", "st-001 UNION st-002"},
	{"union lower", "x union y"},
	{"DROP", "DROP events"},
	{"drop mixed case", "Drop"},
	{"OR", "st-001 OR st-002"},
	{"or lower", "st-001 or st-002"},
	{"AND", "st-001 AND st-002"},
	{"and lower", "a and b"},
	{"NOT", "NOT st-001"},
	{"not lower", "not st-001"},
	{"keyword next to a hyphen", "st-001-or-1"},
	{"tautology", "1=1"},
	{"classic injection", "st-001' OR '1'='1"},
	{"stacked statement", "x'; DROP TABLE events;--"},
	{"newline keyword", "st-001\nUNION\nst-002"},
}

// wallCases builds the rejection table.
func wallCases(t *testing.T) []wallCase {
	t.Helper()
	const (
		get   = "get_stock_state"
		price = "get_price"
		flag  = "get_compliance_flag"
		count = "count_stores_with_condition"
		list  = "list_products_in_state"
		win   = "count_events_in_window"
	)
	raw, inv, unreg := tool.RawQuery, tool.Invalid, tool.Unregistered
	cases := []wallCase{
		// Valid calls, one per tool, and boundary-valid values.
		{name: "valid get_stock_state", p: propose(t, get)},
		{name: "valid get_price", p: propose(t, price)},
		{name: "valid get_compliance_flag", p: propose(t, flag)},
		{name: "valid count_stores_with_condition", p: propose(t, count)},
		{name: "valid list_products_in_state", p: propose(t, list)},
		{name: "valid count_events_in_window", p: propose(t, win)},
		{name: "valid window start == end", p: propose(t, win, "start", "2026-01-03T00:00:00Z", "end", "2026-01-03T00:00:00Z")},
		{name: "valid window one second wide", p: propose(t, win, "start", "2026-01-03T00:00:00Z", "end", "2026-01-03T00:00:01Z")},
		{name: "valid leap day", p: propose(t, get, "as_of", "2028-02-29T23:59:59Z")},
		{name: "valid condition OUT_OF_STOCK", p: propose(t, count, "condition", "OUT_OF_STOCK")},
		{name: "valid condition EXPIRED", p: propose(t, count, "condition", "EXPIRED")},
		{name: "valid state OVERSTOCK", p: propose(t, list, "state", "OVERSTOCK")},
		{name: "valid second declared store", p: propose(t, list, "store_id", "st-002")},
		// A keyword inside a longer word is not a keyword.
		{name: "keyword inside a word is a plain token", p: propose(t, get, "store_id", "android"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: "android"},
		{name: "keyword joined by underscore is a plain token", p: propose(t, list, "state", "NOT_IN_STOCK"), wantErr: true, wantKind: inv, wantParam: "state", offending: "NOT_IN_STOCK"},
		{name: "keyword prefix is a plain token", p: propose(t, count, "condition", "ORDERLY"), wantErr: true, wantKind: inv, wantParam: "condition", offending: "ORDERLY"},

		// Unregistered names: checked first, whatever else is wrong.
		{name: "empty tool name", p: tool.Proposal{}, wantErr: true, wantKind: unreg},
		{name: "empty tool name with valid params", p: tool.Proposal{Params: validParams(t, get)}, wantErr: true, wantKind: unreg},
		{name: "near miss get_stock", p: tool.Proposal{Tool: "get_stock", Params: validParams(t, get)}, wantErr: true, wantKind: unreg, offending: "get_stock"},
		{name: "case variant GET_PRICE", p: tool.Proposal{Tool: "GET_PRICE", Params: validParams(t, price)}, wantErr: true, wantKind: unreg, offending: "GET_PRICE"},
		{name: "camel case getPrice", p: tool.Proposal{Tool: "getPrice", Params: validParams(t, price)}, wantErr: true, wantKind: unreg, offending: "getPrice"},
		{name: "padded name", p: tool.Proposal{Tool: " get_price", Params: validParams(t, price)}, wantErr: true, wantKind: unreg},
		{name: "hallucinated tool", p: tool.Proposal{Tool: "get_headcount", Params: map[string]any{"store_id": "st-001"}}, wantErr: true, wantKind: unreg, offending: "get_headcount"},
		{name: "tool name carrying sql", p: tool.Proposal{Tool: "get_price; DROP TABLE events", Params: validParams(t, price)}, wantErr: true, wantKind: unreg, offending: "get_price; DROP TABLE events"},
		{name: "unregistered beats extra param and raw query", p: tool.Proposal{Tool: "run_sql", Params: map[string]any{"sql": "SELECT * FROM events"}}, wantErr: true, wantKind: unreg, offending: "SELECT * FROM events"},

		// Parameter set.
		{name: "extra parameter", p: propose(t, price, "currency", "EUR"), wantErr: true, wantKind: inv, offending: "currency"},
		{name: "extra parameter from another tool", p: propose(t, get, "state", "IN_STOCK"), wantErr: true, wantKind: inv},
		{name: "case variant parameter name", p: propose(t, get, "store_id", drop, "Store_Id", "st-001"), wantErr: true, wantKind: inv, offending: "Store_Id"},
		{name: "extra parameter with raw query is a parameter-set error", p: propose(t, get, "filter", "1=1 OR x"), wantErr: true, wantKind: inv, offending: "1=1 OR x"},
		{name: "extra parameter beats raw query in a registered one", p: propose(t, get, "store_id", "st-001' OR 1=1", "limit", "10"), wantErr: true, wantKind: inv, offending: "st-001' OR 1=1"},
		{name: "extra parameter beats missing one", p: propose(t, get, "as_of", drop, "when", "now"), wantErr: true, wantKind: inv},
		{name: "missing store_id", p: propose(t, get, "store_id", drop), wantErr: true, wantKind: inv, wantParam: "store_id"},
		{name: "missing as_of", p: propose(t, price, "as_of", drop), wantErr: true, wantKind: inv, wantParam: "as_of"},
		{name: "missing end", p: propose(t, win, "end", drop), wantErr: true, wantKind: inv, wantParam: "end"},
		{name: "missing first in declaration order", p: propose(t, win, "state", drop, "start", drop), wantErr: true, wantKind: inv, wantParam: "state"},
		{name: "nil params", p: tool.Proposal{Tool: count}, wantErr: true, wantKind: inv, wantParam: "condition"},
		{name: "missing beats raw query", p: propose(t, get, "store_id", drop, "product_id", "pr-001'--"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: "pr-001'--"},

		// Structured values are query syntax.
		{name: "JSON object value", p: propose(t, get, "store_id", map[string]any{"$gt": "st-000"}), wantErr: true, wantKind: raw, wantParam: "store_id"},
		{name: "empty JSON object value", p: propose(t, count, "condition", map[string]any{}), wantErr: true, wantKind: raw, wantParam: "condition"},
		{name: "JSON array value", p: propose(t, list, "state", []any{"IN_STOCK", "LOW_STOCK"}), wantErr: true, wantKind: raw, wantParam: "state"},
		{name: "empty JSON array value", p: propose(t, win, "start", []any{}), wantErr: true, wantKind: raw, wantParam: "start"},

		// Non-string scalars are out of domain.
		{name: "number value", p: propose(t, get, "store_id", float64(1)), wantErr: true, wantKind: inv, wantParam: "store_id"},
		{name: "json.Number value", p: propose(t, price, "product_id", json.Number("1")), wantErr: true, wantKind: inv, wantParam: "product_id"},
		{name: "unix time value", p: propose(t, flag, "as_of", float64(1767686400)), wantErr: true, wantKind: inv, wantParam: "as_of"},
		{name: "bool value", p: propose(t, list, "state", true), wantErr: true, wantKind: inv, wantParam: "state"},
		{name: "nil value", p: propose(t, count, "condition", nil), wantErr: true, wantKind: inv, wantParam: "condition"},

		// Plain out-of-domain tokens.
		{name: "banana store", p: propose(t, get, "store_id", "banana"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: "banana"},
		{name: "the word null is a bad value, not a query", p: propose(t, get, "as_of", "null"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "null"},
		{name: "plain english words are bad values", p: propose(t, get, "store_id", "the downtown values"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: "the downtown values"},
		{name: "a boolean operator word is query syntax", p: propose(t, get, "store_id", "st-001 or st-002"), wantErr: true, wantKind: raw, wantParam: "store_id", offending: "st-001 or st-002"},
		{name: "on_fire state", p: propose(t, list, "state", "on_fire"), wantErr: true, wantKind: inv, wantParam: "state", offending: "on_fire"},
		{name: "on_fire window state", p: propose(t, win, "state", "on_fire"), wantErr: true, wantKind: inv, wantParam: "state", offending: "on_fire"},
		{name: "short store id st-1", p: propose(t, get, "store_id", "st-1"), wantErr: true, wantKind: inv, wantParam: "store_id"},
		{name: "long store id st-0001", p: propose(t, get, "store_id", "st-0001"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: "st-0001"},
		{name: "undeclared store st-999", p: propose(t, list, "store_id", "st-999"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: "st-999"},
		{name: "upper-case store id", p: propose(t, get, "store_id", "ST-001"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: "ST-001"},
		{name: "padded store id", p: propose(t, get, "store_id", " st-001"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: " st-001"},
		{name: "store id with newline", p: propose(t, get, "store_id", "st-001\n"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: "st-001\n"},
		{name: "store id in fullwidth digits", p: propose(t, get, "store_id", "st-００１"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: "st-００１"},
		{name: "empty store id", p: propose(t, get, "store_id", ""), wantErr: true, wantKind: inv, wantParam: "store_id"},
		{name: "product id in store slot", p: propose(t, get, "store_id", "pr-001"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: "pr-001"},
		{name: "non-digit product id pr-abc", p: propose(t, price, "product_id", "pr-abc"), wantErr: true, wantKind: inv, wantParam: "product_id", offending: "pr-abc"},
		{name: "undeclared product pr-999", p: propose(t, price, "product_id", "pr-999"), wantErr: true, wantKind: inv, wantParam: "product_id", offending: "pr-999"},
		{name: "lower-case state out_of_stock", p: propose(t, list, "state", "out_of_stock"), wantErr: true, wantKind: inv, wantParam: "state", offending: "out_of_stock"},
		{name: "lower-case condition out_of_stock", p: propose(t, count, "condition", "out_of_stock"), wantErr: true, wantKind: inv, wantParam: "condition", offending: "out_of_stock"},
		{name: "spaced state", p: propose(t, list, "state", "OUT OF STOCK"), wantErr: true, wantKind: inv, wantParam: "state", offending: "OUT OF STOCK"},
		{name: "flag is not a condition", p: propose(t, count, "condition", "EXPIRED_PRODUCT"), wantErr: true, wantKind: inv, wantParam: "condition", offending: "EXPIRED_PRODUCT"},
		{name: "condition is not a state", p: propose(t, list, "state", "EXPIRED"), wantErr: true, wantKind: inv, wantParam: "state", offending: "EXPIRED"},
		{name: "state-only condition name is not a window state", p: propose(t, win, "state", "NON_COMPLIANT"), wantErr: true, wantKind: inv, wantParam: "state", offending: "NON_COMPLIANT"},
		// Typographic quotes are not ASCII query syntax; the domain check
		// still refuses them.
		{name: "typographic quote", p: propose(t, get, "store_id", "st-001’"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: "st-001’"},

		// Timestamps.
		{name: "timestamp without Z", p: propose(t, flag, "as_of", "2026-01-06T08:00:00"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "2026-01-06T08:00:00"},
		{name: "timestamp with offset", p: propose(t, flag, "as_of", "2026-01-06T08:00:00+00:00"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "2026-01-06T08:00:00+00:00"},
		{name: "timestamp with non-zero offset", p: propose(t, flag, "as_of", "2026-01-06T08:00:00+02:00"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "2026-01-06T08:00:00+02:00"},
		{name: "date only", p: propose(t, flag, "as_of", "2026-01-06"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "2026-01-06"},
		{name: "impossible date 2026-02-30", p: propose(t, flag, "as_of", "2026-02-30T08:00:00Z"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "2026-02-30T08:00:00Z"},
		{name: "no leap day in 2026", p: propose(t, flag, "as_of", "2026-02-29T08:00:00Z"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "2026-02-29T08:00:00Z"},
		{name: "hour 24", p: propose(t, flag, "as_of", "2026-01-06T24:00:00Z"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "2026-01-06T24:00:00Z"},
		{name: "leap second", p: propose(t, flag, "as_of", "2026-12-31T23:59:60Z"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "2026-12-31T23:59:60Z"},
		{name: "fractional seconds", p: propose(t, flag, "as_of", "2026-01-06T08:00:00.5Z"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "2026-01-06T08:00:00.5Z"},
		{name: "lower-case t and z", p: propose(t, flag, "as_of", "2026-01-06t08:00:00z"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "2026-01-06t08:00:00z"},
		{name: "space separator", p: propose(t, flag, "as_of", "2026-01-06 08:00:00Z"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "2026-01-06 08:00:00Z"},
		{name: "no seconds", p: propose(t, flag, "as_of", "2026-01-06T08:00Z"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "2026-01-06T08:00Z"},
		{name: "relative time", p: propose(t, flag, "as_of", "yesterday"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "yesterday"},
		// Past the engines' open-end mark (9999-12-31 00:00:00): refused,
		// not answered against the mark as a failed verification.
		{name: "as_of at the open-end mark", p: propose(t, flag, "as_of", "9999-12-31T00:00:00Z"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "9999-12-31T00:00:00Z"},
		{name: "as_of on the last day of 9999", p: propose(t, flag, "as_of", "9999-12-31T23:59:59Z"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "9999-12-31T23:59:59Z"},
		{name: "window end on the last day of 9999", p: propose(t, win, "end", "9999-12-31T12:00:00Z"), wantErr: true, wantKind: inv, wantParam: "end", offending: "9999-12-31T12:00:00Z"},
		// Before year 1: PostgreSQL reads no year 0 ("0000-01-01 00:00:00"
		// is out of range there), so the call was an internal error (500).
		{name: "as_of in year 0000", p: propose(t, flag, "as_of", "0000-01-01T00:00:00Z"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "0000-01-01T00:00:00Z"},
		{name: "as_of on the last second of year 0000", p: propose(t, flag, "as_of", "0000-12-31T23:59:59Z"), wantErr: true, wantKind: inv, wantParam: "as_of", offending: "0000-12-31T23:59:59Z"},
		{name: "window start in year 0000", p: propose(t, win, "start", "0000-06-01T00:00:00Z"), wantErr: true, wantKind: inv, wantParam: "start", offending: "0000-06-01T00:00:00Z"},
		{name: "bad window start", p: propose(t, win, "start", "2026-01-01"), wantErr: true, wantKind: inv, wantParam: "start", offending: "2026-01-01"},
		{name: "bad window end", p: propose(t, win, "end", "2026-13-01T00:00:00Z"), wantErr: true, wantKind: inv, wantParam: "end", offending: "2026-13-01T00:00:00Z"},

		// Window order.
		{name: "window start after end", p: propose(t, win, "start", "2026-01-07T00:00:00Z", "end", "2026-01-01T00:00:00Z"), wantErr: true, wantKind: inv, wantParam: "start"},
		{name: "window start one second after end", p: propose(t, win, "start", "2026-01-03T00:00:01Z", "end", "2026-01-03T00:00:00Z"), wantErr: true, wantKind: inv, wantParam: "start"},

		// Precedence between checks.
		{name: "raw query and out of domain is raw query", p: propose(t, get, "store_id", "banana' OR 1=1"), wantErr: true, wantKind: raw, wantParam: "store_id", offending: "banana' OR 1=1"},
		{name: "raw query in a later param beats out of domain in an earlier one", p: propose(t, get, "store_id", "banana", "as_of", "now()"), wantErr: true, wantKind: raw, wantParam: "as_of", offending: "now()"},
		{name: "raw query beats non-string", p: propose(t, get, "store_id", float64(7), "product_id", "pr-001;"), wantErr: true, wantKind: raw, wantParam: "product_id", offending: "pr-001;"},
		{name: "raw query beats reversed window", p: propose(t, win, "start", "2026-01-07T00:00:00Z", "end", "2026-01-01T00:00:00Z' --"), wantErr: true, wantKind: raw, wantParam: "end", offending: "2026-01-01T00:00:00Z' --"},
		{name: "first raw query in declaration order", p: propose(t, win, "store_id", "st-001;", "end", "x OR y"), wantErr: true, wantKind: raw, wantParam: "store_id", offending: "st-001;"},
		{name: "first out of domain in declaration order", p: propose(t, get, "store_id", "st-999", "product_id", "pr-999"), wantErr: true, wantKind: inv, wantParam: "store_id", offending: "st-999"},
		{name: "non-string before out of domain", p: propose(t, get, "store_id", true, "as_of", "tomorrow"), wantErr: true, wantKind: inv, wantParam: "store_id"},
		{name: "out of domain beats reversed window", p: propose(t, win, "state", "on_fire", "start", "2026-01-07T00:00:00Z", "end", "2026-01-01T00:00:00Z"), wantErr: true, wantKind: inv, wantParam: "state", offending: "on_fire"},
		{name: "bad end beats reversed window", p: propose(t, win, "start", "2026-01-07T00:00:00Z", "end", "2026-01-01"), wantErr: true, wantKind: inv, wantParam: "end", offending: "2026-01-01"},
	}
	// Every raw-query payload, in every parameter type.
	for _, rq := range rawQueries {
		for _, s := range paramSlots {
			cases = append(cases, wallCase{
				name:      "raw query " + rq.name + " in " + s.tool + "." + s.param,
				p:         propose(t, s.tool, s.param, rq.value),
				wantErr:   true,
				wantKind:  raw,
				wantParam: s.param,
				offending: rq.value,
			})
		}
	}
	return cases
}

func TestWall_Check(t *testing.T) {
	w := testWall()
	for _, tt := range wallCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			params := maps.Clone(tt.p.Params)
			call, err := w.Check(tt.p)
			if !maps.EqualFunc(params, tt.p.Params, func(a, b any) bool { return sameValue(a, b) }) {
				t.Errorf("Check() modified the proposal's params")
			}
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("Check() error = %v, want a valid call", err)
				}
				if call.Tool() != tt.p.Tool || call.Def().Name != tt.p.Tool {
					t.Errorf("Check() call tool = %q (def %q), want %q", call.Tool(), call.Def().Name, tt.p.Tool)
				}
				want := map[string]string{}
				for k, v := range tt.p.Params {
					want[k] = v.(string)
				}
				if got := call.Args(); !maps.Equal(got, want) {
					t.Errorf("Check() call args = %v, want %v", got, want)
				}
				for k, v := range want {
					if got := call.Arg(k); got != v {
						t.Errorf("call.Arg(%q) = %q, want %q", k, got, v)
					}
				}
				return
			}
			if err == nil {
				t.Fatalf("Check() accepted %+v, want a %s rejection", tt.p, tt.wantKind)
			}
			rej, ok := tool.IsRejection(err)
			if !ok {
				t.Fatalf("Check() error = %T %v, want *tool.Rejection", err, err)
			}
			if rej.Kind != tt.wantKind || rej.Param != tt.wantParam {
				t.Errorf("Check() rejection = (%s, param %q), want (%s, param %q): %v", rej.Kind, rej.Param, tt.wantKind, tt.wantParam, err)
			}
			if call.Tool() != "" || len(call.Args()) != 0 {
				t.Errorf("Check() returned a non-zero call %q %v with a rejection", call.Tool(), call.Args())
			}
			checkMessage(t, rej)
			checkNoEcho(t, rej, tt.offending)
		})
	}
}

// sameValue compares two proposal values, including the uncomparable
// structured ones.
func sameValue(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// TestWall_AcceptsEveryDomainValue checks that no declared id, enum value
// or well-formed timestamp is mistaken for query syntax: the wall accepts
// each in its parameter.
func TestWall_AcceptsEveryDomainValue(t *testing.T) {
	w := testWall()
	var cases []struct {
		name string
		p    tool.Proposal
	}
	add := func(name string, p tool.Proposal) {
		cases = append(cases, struct {
			name string
			p    tool.Proposal
		}{name, p})
	}
	for id := range testCatalog()["store"] {
		add("store "+id, propose(t, "get_stock_state", "store_id", id))
	}
	for id := range testCatalog()["product"] {
		add("product "+id, propose(t, "get_price", "product_id", id))
	}
	for _, s := range retail.States {
		add("state "+string(s), propose(t, "list_products_in_state", "state", string(s)))
		add("window state "+string(s), propose(t, "count_events_in_window", "state", string(s)))
	}
	for _, c := range retail.Conditions {
		add("condition "+string(c), propose(t, "count_stores_with_condition", "condition", string(c)))
	}
	for _, ts := range []string{tool.FirstInstant, "1970-01-01T00:00:00Z", "2026-01-01T00:00:00Z", tool.LastInstant} {
		add("as_of "+ts, propose(t, "get_compliance_flag", "as_of", ts))
		add("window at "+ts, propose(t, "count_events_in_window", "start", ts, "end", ts))
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := w.Check(tt.p); err != nil {
				t.Errorf("Check() error = %v, want a valid call", err)
			}
		})
	}
}

// TestWall_EmptyCatalog checks that ids are judged against the catalog, not
// only their format: with nothing declared, no id passes.
func TestWall_EmptyCatalog(t *testing.T) {
	w := tool.NewWall(testRegistry, map[string]map[string]bool{"store": {}, "product": {}})
	tests := []struct {
		name      string
		p         tool.Proposal
		wantParam string
	}{
		{"store", propose(t, "get_stock_state"), "store_id"},
		{"product", tool.Proposal{Tool: "get_price", Params: map[string]any{"store_id": "st-001", "product_id": "pr-001", "as_of": "2026-01-01T00:00:00Z"}}, "store_id"},
		{"condition needs no id", propose(t, "count_stores_with_condition"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.Check(tt.p)
			if tt.wantParam == "" {
				if err != nil {
					t.Fatalf("Check() error = %v, want a valid call", err)
				}
				return
			}
			rej, ok := tool.IsRejection(err)
			if !ok || rej.Kind != tool.Invalid || rej.Param != tt.wantParam {
				t.Errorf("Check() error = %v, want invalid %s", err, tt.wantParam)
			}
		})
	}
}

// TestWall_DeclaredIDs checks each entity-id parameter against its own
// entity's declared ids: a well-formed store or product id that the data
// does not declare is invalid, and names the parameter.
func TestWall_DeclaredIDs(t *testing.T) {
	w := tool.NewWall(testRegistry, map[string]map[string]bool{"store": {"st-004": true}, "product": {"pr-009": true}})
	price := func(store, product string) tool.Proposal {
		return tool.Proposal{Tool: "get_price", Params: map[string]any{"store_id": store, "product_id": product, "as_of": "2026-01-01T00:00:00Z"}}
	}
	if _, err := w.Check(price("st-004", "pr-009")); err != nil {
		t.Errorf("Check() error = %v, want a valid call", err)
	}
	for _, tt := range []struct {
		name      string
		p         tool.Proposal
		wantParam string
	}{
		{"undeclared store", price("st-001", "pr-009"), "store_id"},
		{"undeclared product", price("st-004", "pr-001"), "product_id"},
	} {
		_, err := w.Check(tt.p)
		if rej, isRej := tool.IsRejection(err); !isRej || rej.Kind != tool.Invalid || rej.Param != tt.wantParam {
			t.Errorf("%s: Check() error = %v, want invalid %s", tt.name, err, tt.wantParam)
		}
	}
}
