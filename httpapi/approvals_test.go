package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
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

// Deny refuses a denial of a tool the session holds (fake: "get_price")
// as not pending.
func (f *fakeApprovals) Deny(_ context.Context, approver string, req httpapi.DenialRequest) (eventlog.ElevationDecided, error) {
	for _, t := range req.Tools {
		switch {
		case strings.ContainsAny(t, "*?"):
			return eventlog.ElevationDecided{}, autonomy.ErrWildcard
		case t == "get_price":
			return eventlog.ElevationDecided{}, fmt.Errorf("deny: %w", autonomy.ErrNotPending)
		case t == "no_such_tool":
			return eventlog.ElevationDecided{}, fmt.Errorf("deny: %w", autonomy.ErrUnknownTool)
		}
	}
	f.mu.Lock()
	f.approvers = append(f.approvers, approver)
	f.mu.Unlock()
	return eventlog.ElevationDecided{Session: req.Session, Decision: "denied", GrantID: "d-1", Tools: req.Tools,
		Tier: req.Tier, Approver: approver, MaxQuestions: 1, MaxAge: 1}, nil
}

// Revoke knows one live grant, g-1; "g-broken" is the server's own
// failure.
func (f *fakeApprovals) Revoke(_ context.Context, approver string, req httpapi.RevocationRequest) (eventlog.ElevationExpired, error) {
	switch req.GrantID {
	case "g-1":
	case "g-broken":
		return eventlog.ElevationExpired{}, errors.New("ledger: connection refused")
	default:
		return eventlog.ElevationExpired{}, fmt.Errorf("revoke: %w", autonomy.ErrNoGrant)
	}
	f.mu.Lock()
	f.approvers = append(f.approvers, approver)
	f.mu.Unlock()
	return eventlog.ElevationExpired{Session: req.Session, GrantID: req.GrantID, Tools: []string{"open_restock_task"}, Reason: "revoked", TierRestored: "L1"}, nil
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
	return postDecision(t, srv, "/v1/approvals", token, body)
}

func postDecision(t *testing.T, srv *httptest.Server, path, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+path, strings.NewReader(body))
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

// TestDenialsAndRevocations: POST /v1/denials and /v1/revocations take
// an authenticated approver's decision only, name the approver from the
// token, read the body strictly, answer a refusal with a typed 4xx (403
// not an approver, 404 nothing pending or no such grant, 400 invalid)
// and never repeat a value the body sent.
func TestDenialsAndRevocations(t *testing.T) {
	const probe = "zz-probe-7f3a"
	deny := `{"session":"ops","tools":["open_restock_task"],"tier":"L3"}`
	revoke := `{"session":"ops","grant_id":"g-1"}`
	tests := []struct {
		name, path, token, body string
		status                  int
		code                    string
	}{
		{"deny: no token", "/v1/denials", "", deny, http.StatusUnauthorized, "unauthorized"},
		{"deny: not an approver", "/v1/denials", opsToken, deny, http.StatusForbidden, httpapi.CodeNotApprover},
		{"deny: approver named in the body", "/v1/denials", aliceToken, `{"session":"ops","tools":["open_restock_task"],"tier":"L3","approver":"` + probe + `"}`, http.StatusBadRequest, httpapi.CodeUnknownField},
		{"deny: limits are not a denial's", "/v1/denials", aliceToken, `{"session":"ops","tools":["open_restock_task"],"tier":"L3","questions":2}`, http.StatusBadRequest, httpapi.CodeUnknownField},
		{"deny: field twice", "/v1/denials", aliceToken, `{"session":"ops","session":"` + probe + `","tools":["open_restock_task"],"tier":"L3"}`, http.StatusBadRequest, httpapi.CodeDuplicateField},
		{"deny: wildcard", "/v1/denials", aliceToken, `{"session":"ops","tools":["open_*` + probe + `"],"tier":"L3"}`, http.StatusBadRequest, httpapi.CodeInvalidDenial},
		{"deny: undeclared tool", "/v1/denials", aliceToken, `{"session":"ops","tools":["no_such_tool"],"tier":"L3"}`, http.StatusBadRequest, httpapi.CodeInvalidDenial},
		{"deny: nothing pending", "/v1/denials", aliceToken, `{"session":"ops","tools":["get_price"],"tier":"L3"}`, http.StatusNotFound, httpapi.CodeUnknownRequest},
		{"deny: wrong content type", "/v1/denials", aliceToken, "", http.StatusUnsupportedMediaType, httpapi.CodeUnsupportedMediaType},
		{"deny: approver", "/v1/denials", aliceToken, deny, http.StatusOK, ""},
		{"revoke: no token", "/v1/revocations", "", revoke, http.StatusUnauthorized, "unauthorized"},
		{"revoke: not an approver", "/v1/revocations", opsToken, revoke, http.StatusForbidden, httpapi.CodeNotApprover},
		{"revoke: unknown field", "/v1/revocations", aliceToken, `{"session":"ops","grant_id":"g-1","` + probe + `":1}`, http.StatusBadRequest, httpapi.CodeUnknownField},
		{"revoke: not a string", "/v1/revocations", aliceToken, `{"session":"ops","grant_id":17}`, http.StatusBadRequest, ""},
		{"revoke: unknown grant", "/v1/revocations", aliceToken, `{"session":"ops","grant_id":"` + probe + `"}`, http.StatusNotFound, httpapi.CodeUnknownGrant},
		{"revoke: the server's failure", "/v1/revocations", aliceToken, `{"session":"ops","grant_id":"g-broken"}`, http.StatusInternalServerError, httpapi.CodeInternal},
		{"revoke: approver", "/v1/revocations", aliceToken, revoke, http.StatusOK, ""},
	}
	fa := &fakeApprovals{}
	srv := approvalServer(t, true, fa)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var status int
			var got string
			if tt.status == http.StatusUnsupportedMediaType {
				req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+tt.path, strings.NewReader(revoke))
				req.Header.Set("Content-Type", "text/plain")
				req.Header.Set("Authorization", "Bearer "+tt.token)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				status, got = resp.StatusCode, string(b)
			} else {
				status, got = postDecision(t, srv, tt.path, tt.token, tt.body)
			}
			if status != tt.status {
				t.Fatalf("status = %d (%s); want %d", status, got, tt.status)
			}
			if tt.code != "" && !strings.Contains(got, `"code":"`+tt.code+`"`) {
				t.Errorf("body = %s; want code %s", got, tt.code)
			}
			if strings.Contains(got, probe) || strings.Contains(got, "connection refused") {
				t.Errorf("the reply repeats a value or an internal error: %s", got)
			}
		})
	}
	if want := []string{"alice", "alice"}; !slices.Equal(fa.approvers, want) {
		t.Errorf("approvers = %v; want %v, named from the token", fa.approvers, want)
	}
	var dec eventlog.ElevationDecided
	if _, got := postDecision(t, srv, "/v1/denials", aliceToken, deny); json.Unmarshal([]byte(got), &dec) != nil || dec.Decision != "denied" || dec.Approver != "alice" {
		t.Errorf("denial = %s", got)
	}
	var exp eventlog.ElevationExpired
	if _, got := postDecision(t, srv, "/v1/revocations", aliceToken, revoke); json.Unmarshal([]byte(got), &exp) != nil || exp.Reason != "revoked" {
		t.Errorf("revocation = %s", got)
	}
}

// TestApprovals_Unauthenticated: a server that authenticates no one
// takes no approvals, whatever the request says.
func TestApprovals_Unauthenticated(t *testing.T) {
	fa := &fakeApprovals{}
	srv := approvalServer(t, false, fa)
	for path, body := range map[string]string{
		"/v1/approvals":   `{"session":"local","tools":["open_restock_task"],"tier":"L3","questions":2}`,
		"/v1/denials":     `{"session":"local","tools":["open_restock_task"],"tier":"L3"}`,
		"/v1/revocations": `{"session":"local","grant_id":"g-1"}`,
	} {
		status, got := postDecision(t, srv, path, "", body)
		if status != http.StatusForbidden || !strings.Contains(got, httpapi.CodeNotApprover) {
			t.Errorf("%s: status = %d %s; want 403 not_approver", path, status, got)
		}
	}
	if len(fa.approvers) != 0 {
		t.Errorf("approvers = %v; want none", fa.approvers)
	}
}

// TestApprovals_OpenAPI: the document lists POST /v1/approvals,
// /v1/denials and /v1/revocations when the server takes approvals, and
// not otherwise.
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
		for _, path := range []string{"/v1/approvals", "/v1/denials", "/v1/revocations"} {
			if _, ok := doc.Paths[path]; ok != on {
				t.Errorf("approvals %t: %s listed %t", on, path, ok)
			}
		}
	}
}
