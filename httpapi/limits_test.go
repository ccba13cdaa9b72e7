package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/provenant/provenant/httpapi"
)

func TestLimitInFlight(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(2)
	h := httpapi.LimitInFlight(2, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			started.Done()
			<-release
		}
		w.WriteHeader(http.StatusOK)
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	var done sync.WaitGroup
	for i := 0; i < 2; i++ {
		done.Add(1)
		go func() {
			defer done.Done()
			resp, err := http.Get(srv.URL + "/slow")
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	started.Wait() // both slots held
	resp, err := http.Get(srv.URL + "/v1/tools")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("third request: %d (Retry-After %q), want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if resp, err := http.Get(srv.URL + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz while full: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	close(release)
	done.Wait()
	if resp, err := http.Get(srv.URL + "/v1/tools"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("after release: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}
