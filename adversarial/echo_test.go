package adversarial_test

import (
	"net/http"
	"strings"
	"testing"
)

// probe is planted in client input; no reply may contain it, in any
// letter case, in its body or headers.
const probe = "zqxprobe"

// echoCase is one request carrying the probe somewhere.
type echoCase struct {
	name, method, path, body string
	header                   map[string]string
}

func echoCases() []echoCase {
	p, P := probe, strings.ToUpper(probe)
	ask := `{"question":"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"}`
	cases := []echoCase{
		// Bodies.
		{"unknown field", "POST", "/v1/ask", `{"` + p + `":1}`, nil},
		{"unknown field beside question", "POST", "/v1/ask", `{"question":"q","` + p + `":"` + p + `"}`, nil},
		{"question not a string", "POST", "/v1/ask", `{"question":{"` + p + `":1}}`, nil},
		{"duplicate question", "POST", "/v1/ask", `{"question":"` + p + `","question":"` + p + `"}`, nil},
		{"truncated JSON", "POST", "/v1/ask", `{"question":"` + p, nil},
		{"bad JSON token", "POST", "/v1/ask", `{"question":` + p + `}`, nil},
		{"trailing data", "POST", "/v1/ask", ask + p, nil},
		{"not an object", "POST", "/v1/ask", `["` + p + `"]`, nil},
		{"question in scope of nothing", "POST", "/v1/ask", `{"question":"What is the price of ` + p + ` at st-003 as of 2026-01-06T08:00:00Z?"}`, nil},
		{"injection in a question", "POST", "/v1/ask", `{"question":"What is the price of pr-007 at st-003' OR '` + p + `'='x as of 2026-01-06T08:00:00Z?"}`, nil},
		{"unknown argument", "POST", "/v1/tools/get_price", `{"store_id":"st-003","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z","` + p + `":1}`, nil},
		{"bad argument value", "POST", "/v1/tools/get_price", `{"store_id":"` + p + `","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}`, nil},
		{"bad timestamp", "POST", "/v1/tools/get_price", `{"store_id":"st-003","product_id":"pr-007","as_of":"` + p + `"}`, nil},
		{"argument of another type", "POST", "/v1/tools/get_price", `{"store_id":["` + p + `"],"product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}`, nil},
		{"ask tool", "POST", "/v1/tools/ask", `{"question":"` + p + `?"}`, nil},
		{"ground text", "POST", "/v1/ground", `{"text":"` + p + ` 14 stores","ledger":{"numerals":[{"value":13,"unit":"count"}]}}`, nil},
		{"ground policy", "POST", "/v1/ground", `{"text":"13","ledger":{"numerals":[]},"policy":"` + p + `"}`, nil},
		{"ground unit", "POST", "/v1/ground", `{"text":"13","ledger":{"numerals":[{"value":13,"unit":"` + p + `"}]}}`, nil},
		{"ground unknown key", "POST", "/v1/ground", `{"text":"13","ledger":{"numerals":[]},"` + p + `":1}`, nil},
		{"ground unknown numeral key", "POST", "/v1/ground", `{"text":"13","ledger":{"numerals":[{"value":13,"` + p + `":1}]}}`, nil},
		{"metric name", "POST", "/v1/tools/query_metric", `{"metric":"` + p + `","start":"2026-01-05T00:00:00Z","end":"2026-01-06T00:00:00Z"}`, nil},
		{"metric dimension", "POST", "/v1/tools/query_metric", `{"metric":"scan_count","dimensions":["` + p + `"],"start":"2026-01-05T00:00:00Z","end":"2026-01-06T00:00:00Z"}`, nil},
		{"metric filter value", "POST", "/v1/tools/query_metric", `{"metric":"scan_count","filters":[{"dimension":"store","op":"eq","values":["` + p + `"]}],"start":"2026-01-05T00:00:00Z","end":"2026-01-06T00:00:00Z"}`, nil},
		{"ground unknown allowance", "POST", "/v1/ground", `{"text":"13","ledger":{"numerals":[]},"policy":{"match_rel_tol":0.005,"allow":{"` + p + `":true}}}`, nil},
		{"oversized body", "POST", "/v1/ask", `{"question":"` + strings.Repeat(p, 10000) + `"}`, nil},
		// Headers.
		{"content type", "POST", "/v1/ask", ask, map[string]string{"Content-Type": "application/" + p}},
		{"content type charset", "POST", "/v1/ask", ask, map[string]string{"Content-Type": "application/json; charset=" + p}},
		{"accept", "GET", "/v1/tools", "", map[string]string{"Accept": p}},
		{"odd header", "POST", "/v1/ask", ask, map[string]string{"X-" + p: p, "User-Agent": p, "Cookie": p + "=" + p}},
		{"bad token", "POST", "/v1/ask", ask, map[string]string{"Authorization": "Bearer " + p + "-0123456789abcdef"}},
		{"other scheme", "POST", "/v1/ask", ask, map[string]string{"Authorization": p + " " + p}},
		{"host", "GET", "/v1/tools", "", map[string]string{"Host": p + ".example"}},
		{"origin", "GET", "/v1/tools", "", map[string]string{"Origin": "http://" + p + ".example"}},
		{"content encoding", "POST", "/v1/ask", ask, map[string]string{"Content-Encoding": "gzip, " + p}},
		// Paths.
		{"unknown path", "GET", "/" + p, "", nil},
		{"unknown tool", "POST", "/v1/tools/" + p, `{}`, nil},
		{"unknown tool, upper case", "POST", "/v1/tools/" + P, `{}`, nil},
		{"path below ask", "POST", "/v1/ask/" + p, ask, nil},
		{"escaped path", "GET", "/v1/%7B" + p + "%7D", "", nil},
		{"wrong method", "DELETE", "/v1/tools/" + p, "", nil},
		{"empty segment before rows", "GET", "/v1/results/" + p + "//rows", "", nil},
		{"empty segment before a tool", "POST", "/v1/tools//" + p, `{}`, nil},
		{"dot-dot segment", "GET", "/v1/results/x/../" + p + "/rows", "", nil},
		{"result id", "GET", "/v1/results/" + p + "/rows?page=1", "", nil},
		{"page", "GET", "/v1/results/res-0/rows?page=" + p, "", nil},
		// Query strings.
		{"query on ask", "POST", "/v1/ask?" + p + "=" + p, ask, nil},
		{"query on tools", "GET", "/v1/tools?q=" + p, "", nil},
		{"query on a bad call", "POST", "/v1/tools/get_price?store_id=" + p, `{}`, nil},
		{"query on metrics", "GET", "/metrics?" + p, "", nil},
	}
	return cases
}

// pendingEcho are cases that still echo on this branch and are fixed on
// another branch of the same issue; the lead removes them on merge.
var pendingEcho = map[string]bool{}

// TestEcho_REST: no REST reply repeats the probe, whether the request is
// refused at the host check, authentication, the limits, the decoder or
// the wall, or served.
func TestEcho_REST(t *testing.T) {
	for _, withTokens := range []bool{false, true} {
		t.Run(map[bool]string{false: "no tokens", true: "tokens"}[withTokens], func(t *testing.T) {
			s := start(t, config{withTokens: withTokens})
			for _, c := range echoCases() {
				t.Run(c.name, func(t *testing.T) {
					if pendingEcho[c.name] {
						t.Skip("a known echo fixed by the strict-decoder part of issue 7 (grounding's ledger parser); drop this skip when it lands")
					}
					h := map[string]string{}
					if withTokens {
						h["Authorization"] = "Bearer " + adminToken
					}
					for k, v := range c.header {
						h[k] = v
					}
					r := s.do(t, c.method, c.path, c.body, h)
					if strings.Contains(strings.ToLower(r.body), probe) {
						t.Errorf("%s %s: %d, the body repeats the probe: %s", c.method, c.path, r.status, r.body)
					}
					for k, vs := range r.header {
						for _, v := range vs {
							if strings.Contains(strings.ToLower(k+": "+v), probe) {
								t.Errorf("%s %s: header %s: %s repeats the probe", c.method, c.path, k, v)
							}
						}
					}
					if r.status >= 500 && r.status != http.StatusServiceUnavailable {
						t.Errorf("%s %s: %d for a client's request: %s", c.method, c.path, r.status, r.body)
					}
				})
			}
		})
	}
}
