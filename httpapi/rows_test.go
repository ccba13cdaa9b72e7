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
	"github.com/provenant/provenant/pipeline/pipelinetest"
)

func TestRows(t *testing.T) {
	s := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()})
	s.SetBackend(httpapi.Backend{Rows: pipelinetest.Pager{}, Asker: askerFunc(func(context.Context, string) answer.Answer {
		return answer.Abstain(answer.ReasonNoTool, "stub")
	})})
	tests := []struct {
		path     string
		status   int
		contains string
	}{
		{"/v1/results/res-a/rows", 200, `{"page":1}`},
		{"/v1/results/res-a/rows?page=2", 200, `{"page":2}`},
		{"/v1/results/res-a/rows?page=3", 404, "no_such_page"},
		{"/v1/results/res-a/rows?page=0", 400, "bad_page"},
		{"/v1/results/res-a/rows?page=0000", 400, "bad_page"},
		// A whole number of any length is a page: past the last, 404 (an
		// eleven-digit page was a 400 that said it wanted a whole number).
		{"/v1/results/res-a/rows?page=99999999999", 404, "no_such_page"},
		{"/v1/results/res-a/rows?page=99999999999999999999999999", 404, "no_such_page"},
		{"/v1/results/res-a/rows?page=-1", 400, "bad_page"},
		{"/v1/results/res-a/rows?page=+1", 400, "bad_page"},
		{"/v1/results/res-a/rows?page=ECHO123", 400, "bad_page"},
		{"/v1/results/res-a/rows?page=", 400, "bad_page"},
		// A malformed pair or a second page is refused, not dropped or
		// ignored into a page the client did not ask for.
		{"/v1/results/res-a/rows?page=2;ECHO=1", 400, "bad_page"},
		{"/v1/results/res-a/rows?page=%zzECHO", 400, "bad_page"},
		{"/v1/results/res-a/rows?ECHO=%zz&page=2", 400, "bad_page"},
		{"/v1/results/res-a/rows?page=2&page=1", 400, "bad_page"},
		{"/v1/results/res-a/rows?page=&page=1", 400, "bad_page"},
		{"/v1/results/res-a/rows?page=%32", 200, `{"page":2}`},
		{"/v1/results/ECHO-ID/rows", 404, "unknown_result"},
		{"/v1/results/res-old/rows", 410, "data_changed"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, tt.path, nil)
			req.Host = "localhost"
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			body, _ := io.ReadAll(w.Body)
			if w.Code != tt.status || !strings.Contains(string(body), tt.contains) {
				t.Errorf("GET %s = %d %s, want %d with %s", tt.path, w.Code, body, tt.status, tt.contains)
			}
			if strings.Contains(string(body), "ECHO") {
				t.Errorf("the reply echoes the request: %s", body)
			}
		})
	}
}
