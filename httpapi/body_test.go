package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/memory/memapi"
	"github.com/provenant/provenant/memory/memstore"
	"github.com/provenant/provenant/principal"
)

// bodyRoutes is every route that reads a JSON body, with a body it
// serves.
var bodyRoutes = []struct{ path, body string }{
	{"/v1/ask", `{"question":"q"}`},
	{"/v1/tools/ask", `{"question":"q"}`},
	{"/v1/tools/get_price", `{}`},
	{"/v1/ground", `{"text":"1","ledger":{"numerals":[]}}`},
	{"/v1/memory/remember", `{"text":"t","subject":"s"}`},
	{"/v1/memory/annotate", `{"kind":"confirm","target":"m-1"}`},
	{"/v1/memory/recall", `{"subject":"s"}`},
	{"/v1/approvals", `{"session":"s","tools":["t"],"tier":"L3","questions":1}`},
	{"/v1/denials", `{"session":"s","tools":["t"]}`},
	{"/v1/revocations", `{"session":"s","grant":"g"}`},
}

// bodyServer serves every body route: a stub engine, a memory journal,
// approvals, and /mcp as a stub that reads its body; alice (aliceToken)
// is an authenticated approver.
func bodyServer(t *testing.T, limits *httpapi.LimitOptions) *httptest.Server {
	t.Helper()
	set, err := principal.Parse(strings.NewReader(`principals:
  - name: alice
    token_env: ALICE
    stores: all
    approver: true
`), principal.Sources{LookupEnv: func(k string) (string, bool) {
		return aliceToken, k == "ALICE"
	}})
	if err != nil {
		t.Fatal(err)
	}
	readAll := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	})
	api := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Auth: set, Approvals: true, Limits: limits,
		Memory: &httpapi.MemoryOptions{Service: &memapi.Service{Journal: memstore.New()}}})
	api.SetBackend(httpapi.Backend{MCP: readAll, Approvals: &fakeApprovals{},
		Asker: askerFunc(func(context.Context, string) answer.Answer { return answer.Abstain(answer.ReasonNoTool, "stub") })})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return srv
}

// TestBody_NotAnObject: on every JSON body route a body that is one JSON
// value but not an object (null included) is 400 not_an_object, as on
// /v1/ask; a memory route once took null for {} and answered
// invalid_record or invalid_recall.
func TestBody_NotAnObject(t *testing.T) {
	srv := bodyServer(t, nil)
	for _, rt := range bodyRoutes {
		for _, tc := range []struct{ name, body string }{
			{"null", `null`}, {"null in white space", " \n null\t "}, {"empty array", `[]`}, {"array of an object", `[{"text":"t"}]`},
			{"string", `"s"`}, {"number", `1`}, {"true", `true`}, {"false", `false`},
		} {
			body := tc.body
			t.Run(rt.path+"/"+tc.name, func(t *testing.T) {
				r := doWith(t, "POST", srv.URL+rt.path, []byte(body), map[string]string{
					"Content-Type": "application/json", "Authorization": "Bearer " + aliceToken})
				checkClientError(t, r, http.StatusBadRequest, httpapi.CodeNotAnObject)
			})
		}
	}
}
