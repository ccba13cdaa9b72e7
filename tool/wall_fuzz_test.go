package tool_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

// inDomain is the test's own statement of a parameter's domain, written
// without the wall's code: a declared id, a valid timestamp, an enum value.
func inDomain(c map[string]map[string]bool, q tool.Param, v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	switch q.Name {
	case "store_id":
		return c["store"][s]
	case "product_id":
		return c["product"][s]
	case "as_of", "start", "end":
		return retail.IsTimestamp(s)
	case "state":
		return retail.State(s).Valid()
	case "condition":
		return retail.Condition(s).Valid()
	}
	return false
}

// FuzzWall proposes fuzzed tool names and parameter values and checks the
// wall against an oracle: it accepts exactly the proposals naming a
// registered tool with exactly its parameters, every value in its domain
// and start <= end; a rejection names the right kind and parameter and
// never echoes a value.
//
// values fill the tool's parameters in declaration order (an unregistered
// name gets store_id, product_id, as_of, state); bit i of drop removes the
// i-th, and bit 4 adds the parameter extra with value v0.
func FuzzWall(f *testing.F) {
	for _, d := range testRegistry.Menu() {
		var vs [4]string
		for i, q := range d.Params {
			vs[i] = validParams(f, d.Name)[q.Name].(string)
		}
		f.Add(d.Name, vs[0], vs[1], vs[2], vs[3], "", uint8(0))
		f.Add(d.Name, vs[0], vs[1], vs[2], vs[3], "limit", uint8(0x10))
		f.Add(d.Name, vs[0], vs[1], vs[2], vs[3], "", uint8(0x02))
		f.Add(d.Name, "banana", vs[1], vs[2], vs[3], "", uint8(0))
		f.Add(d.Name, vs[0], "x' OR '1'='1", vs[2], vs[3], "", uint8(0))
	}
	f.Add("count_events_in_window", "st-002", "OUT_OF_STOCK", "2026-01-07T00:00:00Z", "2026-01-01T00:00:00Z", "", uint8(0))
	f.Add("count_events_in_window", "st-002", "OUT_OF_STOCK", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "", uint8(0))
	f.Add("count_stores_with_condition", "out_of_stock", "2026-02-30T00:00:00Z", "", "", "", uint8(0))
	f.Add("list_products_in_state", "st-999", "on_fire", "2026-01-01T00:00:00+01:00", "", "", uint8(0))
	f.Add("get_price", "st-001", "pr-abc", "2026-01-01", "", "", uint8(0))
	f.Add("get_stock_state", "st-001", "pr-001", "SELECT 1; DROP TABLE events --", "", "", uint8(0))
	f.Add("get_stock", "st-001", "pr-001", "2026-01-01T00:00:00Z", "", "", uint8(0))
	f.Add("GET_PRICE", "st-001", "pr-001", "2026-01-01T00:00:00Z", "", "", uint8(0))
	f.Add("", "", "", "", "", "", uint8(0xff))

	w := testWall()
	catalog := testCatalog()
	f.Fuzz(func(t *testing.T, name, v0, v1, v2, v3, extra string, drop uint8) {
		values := []string{v0, v1, v2, v3}
		def, registered := testRegistry.Lookup(name)
		names := []string{"store_id", "product_id", "as_of", "state"}
		if registered {
			names = names[:0]
			for _, q := range def.Params {
				names = append(names, q.Name)
			}
		}
		params := map[string]any{}
		for i, n := range names {
			if drop&(1<<i) == 0 {
				params[n] = values[i]
			}
		}
		if drop&0x10 != 0 {
			params[extra] = v0
		}
		p := tool.Proposal{Tool: name, Params: maps.Clone(params)}

		// The oracle.
		var extraParam bool
		for n := range params {
			extraParam = extraParam || !slices.Contains(names, n)
		}
		firstMissing := ""
		for _, n := range names {
			if _, ok := params[n]; !ok && firstMissing == "" {
				firstMissing = n
			}
		}
		firstOut := ""
		outOfDomain := map[string]bool{}
		for _, q := range def.Params {
			if !inDomain(catalog, q, params[q.Name]) {
				outOfDomain[q.Name] = true
				if firstOut == "" {
					firstOut = q.Name
				}
			}
		}
		reversed := registered && def.Name == "count_events_in_window" && firstOut == "" &&
			params["start"].(string) > params["end"].(string)
		wantValid := registered && !extraParam && firstMissing == "" && firstOut == "" && !reversed

		call, err := w.Check(p)
		if !maps.Equal(p.Params, params) {
			t.Errorf("Check() modified the proposal's params")
		}
		if err == nil {
			if !wantValid {
				t.Fatalf("Check() accepted %q %q: registered %v, extra %v, missing %q, out of domain %v, reversed %v",
					name, params, registered, extraParam, firstMissing, outOfDomain, reversed)
			}
			if call.Tool() != name || call.Def().Name != name {
				t.Errorf("call tool = %q (def %q), want %q", call.Tool(), call.Def().Name, name)
			}
			args := call.Args()
			if got, want := slices.Sorted(maps.Keys(args)), slices.Sorted(slices.Values(names)); !slices.Equal(got, want) {
				t.Errorf("call params = %q, want exactly %q", got, want)
			}
			for _, q := range def.Params {
				if args[q.Name] != params[q.Name] {
					t.Errorf("call arg %s = %q, want the proposed %q", q.Name, args[q.Name], params[q.Name])
				}
				if !inDomain(catalog, q, args[q.Name]) {
					t.Errorf("call arg %s = %q is out of domain", q.Name, args[q.Name])
				}
			}
			if args["start"] > args["end"] {
				t.Errorf("call window [%q, %q) is reversed", args["start"], args["end"])
			}
			return
		}

		rej, ok := tool.IsRejection(err)
		if !ok {
			t.Fatalf("Check() error = %T %v, want *tool.Rejection", err, err)
		}
		if wantValid {
			t.Fatalf("Check() rejected a valid proposal %q %q: %v", name, params, err)
		}
		if call.Tool() != "" || len(call.Args()) != 0 {
			t.Errorf("Check() returned a non-zero call %q %v with a rejection", call.Tool(), call.Args())
		}
		checkMessage(t, rej)
		for _, s := range append([]string{name, extra}, values...) {
			checkNoEcho(t, rej, s)
		}

		switch {
		case !registered:
			if rej.Kind != tool.Unregistered || rej.Param != "" {
				t.Errorf("unregistered %q: rejection (%s, %q), want (unregistered, \"\")", name, rej.Kind, rej.Param)
			}
		case extraParam:
			if rej.Kind != tool.Invalid || rej.Param != "" {
				t.Errorf("extra parameter: rejection (%s, %q), want (invalid, \"\")", rej.Kind, rej.Param)
			}
		case firstMissing != "":
			if rej.Kind != tool.Invalid || rej.Param != firstMissing {
				t.Errorf("missing parameter: rejection (%s, %q), want (invalid, %q)", rej.Kind, rej.Param, firstMissing)
			}
		case firstOut != "":
			// A raw query may be reported on any out-of-domain value (query
			// syntax is judged on all values first); an out-of-domain one
			// only on the first in declaration order. An in-domain value is
			// never query syntax.
			switch rej.Kind {
			case tool.RawQuery:
				if !outOfDomain[rej.Param] {
					t.Errorf("raw query reported on %s = %q, which is in its domain", rej.Param, params[rej.Param])
				}
			case tool.Invalid:
				if rej.Param != firstOut {
					t.Errorf("out of domain: rejection param %q, want %q", rej.Param, firstOut)
				}
			default:
				t.Errorf("out of domain: rejection kind %s, want raw_query or invalid", rej.Kind)
			}
		case reversed:
			if rej.Kind != tool.Invalid || rej.Param != "start" {
				t.Errorf("reversed window: rejection (%s, %q), want (invalid, start)", rej.Kind, rej.Param)
			}
		}
		if v, _ := params[rej.Param].(string); rej.Kind == tool.RawQuery && isWord(v) && !isKeyword(v) {
			t.Errorf("raw query reported on %s = %q, a plain word that is no SQL keyword", rej.Param, v)
		}
	})
}

// isWord reports whether s is one ASCII letters-digits-underscore word: such
// a value carries no symbol, so it can only be a raw query by being a SQL
// keyword.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// isKeyword reports whether s is one of the SQL keywords the wall treats as
// query syntax (keep in step with wall.go's sqlWords).
func isKeyword(s string) bool {
	switch strings.ToLower(s) {
	case "select", "insert", "update", "delete", "drop", "union", "from", "where", "and", "or", "not",
		"xor", "like", "between", "exists", "join", "exec", "execute", "truncate", "alter", "create",
		"grant", "having", "pragma", "attach":
		return true
	}
	return false
}
