package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/principal"
)

// fakeApprovals records who approved what.
type fakeApprovals struct {
	mu        sync.Mutex
	approvers []string
}

func (f *fakeApprovals) Approve(_ context.Context, approver string, req httpapi.ApprovalRequest) (eventlog.ElevationDecided, error) {
	for _, t := range req.Tools {
		if strings.ContainsAny(t, "*?") {
			return eventlog.ElevationDecided{}, autonomy.ErrWildcard
		}
	}
	f.mu.Lock()
	f.approvers = append(f.approvers, approver)
	f.mu.Unlock()
	return eventlog.ElevationDecided{Session: req.Session, Decision: "granted", GrantID: "g-1", Tools: req.Tools,
		Tier: req.Tier, Approver: approver, MaxQuestions: req.Questions, MaxAge: 1000}, nil
}

const (
	aliceToken = "alice-approver-token-0123"
	opsToken   = "ops-not-approver-token-01"
)

func approvalServer(t *testing.T, auth bool, fa *fakeApprovals) *httptest.Server {
	t.Helper()
	opts := &httpapi.Options{Registry: catalogstest.Retail(), Approvals: auth}
	if auth {
		set, err := principal.Parse(strings.NewReader(`principals:
  - name: alice
    token_env: ALICE
    stores: all
    approver: true
  - name: ops
    token_env: OPS
    stores: all
`), principal.Sources{LookupEnv: func(k string) (string, bool) {
			v, ok := map[string]string{"ALICE": aliceToken, "OPS": opsToken}[k]
			return v, ok
		}})
		if err != nil {
			t.Fatal(err)
		}
		opts.Auth = set
	}
	api := httpapi.New(opts)
	api.SetBackend(httpapi.Backend{Asker: askerFunc(func(context.Context, string) answer.Answer { return answer.Abstain(answer.ReasonNoTool, "") }), Approvals: fa})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return srv
}

func postApproval(t *testing.T, srv *httptest.Server, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/v1/approvals", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestApprovals: only an authenticated principal marked approver may
// approve, the approver is named from its identity (a body naming one
// is refused), and a wildcard is refused.
func TestApprovals(t *testing.T) {
	fa := &fakeApprovals{}
	srv := approvalServer(t, true, fa)
	const body = `{"session":"ops","tools":["open_restock_task"],"tier":"L3","questions":2}`
	tests := []struct {
		name, token, body string
		status            int
		code              string
	}{
		{"no token", "", body, http.StatusUnauthorized, "unauthorized"},
		{"not an approver", opsToken, body, http.StatusForbidden, httpapi.CodeNotApprover},
		{"approver named in the body", aliceToken, `{"session":"ops","tools":["open_restock_task"],"tier":"L3","questions":2,"approver":"mallory"}`, http.StatusBadRequest, httpapi.CodeUnknownField},
		{"wildcard", aliceToken, `{"session":"ops","tools":["open_*"],"tier":"L3","questions":2}`, http.StatusBadRequest, httpapi.CodeInvalidApproval},
		{"approver", aliceToken, body, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, got := postApproval(t, srv, tt.token, tt.body)
			if status != tt.status {
				t.Fatalf("status = %d (%s); want %d", status, got, tt.status)
			}
			if tt.code != "" && !strings.Contains(got, `"code":"`+tt.code+`"`) {
				t.Errorf("body = %s; want code %s", got, tt.code)
			}
			if strings.Contains(got, "mallory") {
				t.Errorf("the body's value is echoed: %s", got)
			}
		})
	}
	if len(fa.approvers) != 1 || fa.approvers[0] != "alice" {
		t.Errorf("approvers = %v; want [alice], named from the token", fa.approvers)
	}
	var dec eventlog.ElevationDecided
	_, got := postApproval(t, srv, aliceToken, body)
	if err := json.Unmarshal([]byte(got), &dec); err != nil || dec.Approver != "alice" {
		t.Errorf("decision = %s, %v", got, err)
	}
}

// TestApprovals_Unauthenticated: a server that authenticates no one
// takes no approvals, whatever the request says.
func TestApprovals_Unauthenticated(t *testing.T) {
	fa := &fakeApprovals{}
	srv := approvalServer(t, false, fa)
	status, got := postApproval(t, srv, "", `{"session":"local","tools":["open_restock_task"],"tier":"L3","questions":2}`)
	if status != http.StatusForbidden || !strings.Contains(got, httpapi.CodeNotApprover) {
		t.Errorf("status = %d %s; want 403 not_approver", status, got)
	}
	if len(fa.approvers) != 0 {
		t.Errorf("approvers = %v; want none", fa.approvers)
	}
}

// TestApprovals_OpenAPI: the document lists POST /v1/approvals when the
// server takes approvals, and not otherwise.
func TestApprovals_OpenAPI(t *testing.T) {
	for _, on := range []bool{true, false} {
		srv := approvalServer(t, on, &fakeApprovals{})
		req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/openapi.json", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Paths map[string]any `json:"paths"`
		}
		err = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := doc.Paths["/v1/approvals"]; ok != on {
			t.Errorf("approvals %t: /v1/approvals listed %t", on, ok)
		}
	}
}
