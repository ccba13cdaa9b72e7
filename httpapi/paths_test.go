package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/httpapi"
)

// TestServer_UncleanPaths: a path with an empty, "." or ".." segment is
// 404 not_found in JSON. The mux redirected it to its cleaned form (307
// with a Location header and an HTML body), which repeated the client's
// segments: GET /v1/results/<marker>//rows answered Location:
// /v1/results/<marker>/rows, and POST /v1/tools//<marker> named the tool
// that 404 unknown_tool does not echo.
func TestServer_UncleanPaths(t *testing.T) {
	srv := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()})
	srv.SetBackend(httpapi.Backend{Asker: askerFunc(func(context.Context, string) answer.Answer {
		t.Error("an unclean path reached the pipeline")
		return answer.Abstain(answer.ReasonNoTool, "unreachable")
	}), DatasetVersion: "v", Provider: "p"})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	tests := []struct {
		name, method, path string
	}{
		{"an empty segment before rows", "GET", "/v1/results/" + marker + "//rows"},
		{"a dot segment", "GET", "/v1/results/" + marker + "/./rows"},
		{"a dot-dot segment", "GET", "/v1/results/x/../" + marker + "/rows"},
		{"an empty segment before a tool", "POST", "/v1/tools//" + marker},
		{"a dot segment before ask", "POST", "/v1/./ask?q=" + marker},
		{"a doubled slash first", "GET", "//v1/tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tt.method, ts.URL+tt.path, strings.NewReader(`{"question": "hi"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			checkClientError(t, response{resp.StatusCode, resp.Header, body}, http.StatusNotFound, httpapi.CodeNotFound, marker)
			if loc := resp.Header.Get("Location"); loc != "" {
				t.Errorf("Location = %q, want none", loc)
			}
			var hdr bytes.Buffer
			resp.Header.Write(&hdr)
			if strings.Contains(hdr.String(), marker) {
				t.Errorf("headers echo the path: %s", hdr.String())
			}
		})
	}
}
