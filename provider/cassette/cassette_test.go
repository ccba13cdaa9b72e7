package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

const secret = "sk-test-SECRET-0123456789"

func TestKey(t *testing.T) {
	base := `{"model":"m","temperature":0,"messages":[{"role":"user","content":"hi"}]}`
	baseKey, _, err := Key("POST", "/v1/chat/completions", []byte(base))
	if err != nil {
		t.Fatalf("Key(base): %v", err)
	}
	tests := []struct {
		name    string
		method  string
		path    string
		body    string
		same    bool
		wantErr error
	}{
		{"reordered and spaced", "POST", "/v1/chat/completions",
			"{ \"messages\": [ {\"content\":\"hi\", \"role\":\"user\"} ],\n \"temperature\": 0.0, \"model\": \"m\" }", true, nil},
		{"escaped differently", "POST", "/v1/chat/completions",
			`{"model":"\u006d","temperature":0,"messages":[{"role":"user","content":"h\u0069"}]}`, true, nil},
		{"other model", "POST", "/v1/chat/completions",
			`{"model":"n","temperature":0,"messages":[{"role":"user","content":"hi"}]}`, false, nil},
		{"other parameter", "POST", "/v1/chat/completions",
			`{"model":"m","temperature":0.5,"messages":[{"role":"user","content":"hi"}]}`, false, nil},
		{"other message", "POST", "/v1/chat/completions",
			`{"model":"m","temperature":0,"messages":[{"role":"user","content":"hi!"}]}`, false, nil},
		{"other path", "POST", "/chat/completions", base, false, nil},
		{"other method", "PUT", "/v1/chat/completions", base, false, nil},
		{"not JSON", "POST", "/v1/chat/completions", `model=m`, false, ErrUnkeyable},
		{"duplicate key", "POST", "/v1/chat/completions", `{"model":"m","model":"n"}`, false, ErrUnkeyable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, _, err := Key(tt.method, tt.path, []byte(tt.body))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Key error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Key: %v", err)
			}
			if got := k == baseKey; got != tt.same {
				t.Errorf("same key as base = %v, want %v", got, tt.same)
			}
			if !isKey(k) {
				t.Errorf("key %q is not 64 lowercase hex digits", k)
			}
		})
	}
	empty, _, err := Key("GET", "/x", nil)
	if err != nil {
		t.Fatalf("Key(empty body): %v", err)
	}
	null, _, _ := Key("GET", "/x", []byte(" null "))
	if empty != null {
		t.Errorf("empty body key %s differs from null body key %s", empty, null)
	}
}

// scripted is a fake upstream: it answers by request path and counts calls.
type scripted struct {
	calls atomic.Int32
	srv   *httptest.Server
}

func newScripted(t *testing.T) *scripted {
	t.Helper()
	s := &scripted{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.calls.Add(1)
		b, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Set-Cookie", "session="+secret)
			w.Header().Set("X-Request-Id", "req-1")
			w.Write([]byte(`{"echo": ` + string(b) + `, "note": "<ok> & fine"}`))
		case "/fail":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error": {"message": "overloaded"}}`))
		case "/garbage":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("\xff\xfe not json"))
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func post(t *testing.T, rt http.RoundTripper, url, body string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Api-Key", secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read response body: %v", err)
	}
	return resp, b, nil
}

func TestRecordReplay(t *testing.T) {
	tests := []struct {
		name       string
		path       string
		wantStatus int
		wantType   string
		wantBody   string // substring of the body both runs must return
	}{
		{"json", "/json", 200, "application/json", `"note": "<ok> & fine"`},
		{"server error", "/fail", 500, "application/json", "overloaded"},
		{"not json", "/garbage", 200, "text/plain", "\xff\xfe not json"},
		{"empty", "/empty", 204, "", ""},
	}
	up := newScripted(t)
	dir := t.TempDir()
	rec := &Recorder{Dir: dir, Next: up.srv.Client().Transport}
	type got struct {
		status int
		ctype  string
		body   []byte
	}
	recorded := map[string]got{}
	for _, tt := range tests {
		resp, body, err := post(t, rec, up.srv.URL+tt.path, `{"model": "m", "q": "`+tt.name+`"}`)
		if err != nil {
			t.Fatalf("record %s: %v", tt.name, err)
		}
		recorded[tt.name] = got{resp.StatusCode, resp.Header.Get("Content-Type"), body}
	}
	if n := up.calls.Load(); n != int32(len(tests)) {
		t.Fatalf("upstream saw %d calls, want %d", n, len(tests))
	}
	up.srv.Close() // replay must not need it

	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != len(tests) {
		t.Fatalf("recorded %d files (%v), want %d", len(files), files, len(tests))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, leak := range []string{secret, "Authorization", "Set-Cookie", "X-Request-Id", "Api-Key"} {
			if bytes.Contains(b, []byte(leak)) {
				t.Errorf("%s contains %q", filepath.Base(f), leak)
			}
		}
		if _, err := ReadFile(f); err != nil {
			t.Errorf("recorded file does not validate: %v", err)
		}
	}

	rep := &Replayer{Dir: dir}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Same request, different host and key order: still a hit.
			resp, body, err := post(t, rep, "http://127.0.0.1:1"+tt.path, `{"q": "`+tt.name+`", "model": "m"}`)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			r := recorded[tt.name]
			if resp.StatusCode != tt.wantStatus || r.status != tt.wantStatus {
				t.Errorf("status replay %d, record %d, want %d", resp.StatusCode, r.status, tt.wantStatus)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tt.wantType || r.ctype != tt.wantType {
				t.Errorf("content type replay %q, record %q, want %q", ct, r.ctype, tt.wantType)
			}
			if !bytes.Equal(body, r.body) {
				t.Errorf("replayed body differs from recorded body:\nreplay: %q\nrecord: %q", body, r.body)
			}
			if !bytes.Contains(body, []byte(tt.wantBody)) {
				t.Errorf("body %q does not contain %q", body, tt.wantBody)
			}
		})
	}
}

func TestReplay_Miss(t *testing.T) {
	dir := t.TempDir()
	_, _, err := post(t, &Replayer{Dir: dir}, "http://127.0.0.1:1/v1/chat/completions", `{"model":"m"}`)
	if !errors.Is(err, ErrCassetteMiss) {
		t.Fatalf("error = %v, want ErrCassetteMiss", err)
	}
	var miss *MissError
	if !errors.As(err, &miss) {
		t.Fatalf("error %T is not a *MissError", err)
	}
	wantKey, _, _ := Key("POST", "/v1/chat/completions", []byte(`{"model":"m"}`))
	if miss.Key != wantKey || miss.Dir != dir || miss.Path != "/v1/chat/completions" {
		t.Errorf("miss = %+v, want key %s dir %s", miss, wantKey, dir)
	}
	for _, want := range []string{wantKey, "--provider record", "POST /v1/chat/completions", dir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not mention %q", err, want)
		}
	}
}

func TestRecorder_Refuses(t *testing.T) {
	up := newScripted(t)
	tests := []struct {
		name    string
		rec     *Recorder
		body    string
		wantErr error
	}{
		{"no dir", &Recorder{Next: up.srv.Client().Transport}, `{}`, ErrNoDir},
		{"body not JSON", &Recorder{Dir: t.TempDir(), Next: up.srv.Client().Transport}, `q=1`, ErrUnkeyable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := up.calls.Load()
			_, _, err := post(t, tt.rec, up.srv.URL+"/json", tt.body)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error = %v, want %v", err, tt.wantErr)
			}
			if up.calls.Load() != before {
				t.Errorf("request reached the server")
			}
		})
	}
	if _, _, err := post(t, &Replayer{}, up.srv.URL+"/json", `{}`); !errors.Is(err, ErrNoDir) {
		t.Errorf("replayer without dir: error = %v, want ErrNoDir", err)
	}
}

func TestRecorder_TransportErrorRecordsNothing(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	dir := t.TempDir()
	if _, _, err := post(t, &Recorder{Dir: dir}, url+"/json", `{}`); err == nil {
		t.Fatal("post to a closed server succeeded")
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("recorded %d files after a transport error, want 0", len(files))
	}
}

func TestRecorder_Concurrent(t *testing.T) {
	up := newScripted(t)
	dir := t.TempDir()
	rec := &Recorder{Dir: dir, Next: up.srv.Client().Transport}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if _, _, err := post(t, rec, up.srv.URL+"/json", `{"n": `+string(rune('0'+i%4))+`}`); err != nil {
				t.Errorf("record: %v", err)
			}
		})
	}
	wg.Wait()
	files, _ := os.ReadDir(dir)
	if len(files) != 4 {
		t.Errorf("recorded %d files, want 4 (one per distinct request, no temporaries)", len(files))
	}
}

// validFile records one interaction and returns its path and content.
func validFile(t *testing.T) (string, []byte) {
	t.Helper()
	up := newScripted(t)
	dir := t.TempDir()
	if _, _, err := post(t, &Recorder{Dir: dir, Next: up.srv.Client().Transport}, up.srv.URL+"/json", `{"model":"m"}`); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("recorded %d files, want 1", len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return files[0], b
}

// edit decodes a cassette into generic JSON, applies f and re-encodes it.
func edit(t *testing.T, data []byte, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadFile_Malformed(t *testing.T) {
	path, good := validFile(t)
	req := func(m map[string]any) map[string]any { return m["request"].(map[string]any) }
	resp := func(m map[string]any) map[string]any { return m["response"].(map[string]any) }
	tests := []struct {
		name string
		data []byte
		want string // substring of the error
	}{
		{"not JSON", []byte("version: 1"), "not strict JSON"},
		{"empty", nil, "not strict JSON"},
		{"array", []byte(`[]`), "want an object"},
		{"trailing data", append(append([]byte{}, good...), []byte(`{}`)...), "not strict JSON"},
		{"duplicate key", bytes.Replace(good, []byte(`"version": 1,`), []byte(`"version": 1, "version": 1,`), 1), "field appears more than once"},
		{"key in another case", bytes.Replace(good, []byte(`"version": 1,`), []byte(`"VERSION": 1,`), 1), "unknown field"},
		{"invalid UTF-8", bytes.Replace(good, []byte(`"version": 1,`), []byte("\"v\xffersion\": 1,"), 1), "invalid UTF-8"},
		{"unknown field", edit(t, good, func(m map[string]any) { m["comment"] = "x" }), "unknown field"},
		{"request header smuggled", edit(t, good, func(m map[string]any) { req(m)["headers"] = map[string]any{"Authorization": "x"} }), "unknown field"},
		{"version", edit(t, good, func(m map[string]any) { m["version"] = 2 }), "version 2"},
		{"key not hex", edit(t, good, func(m map[string]any) { m["key"] = "abc" }), "64 lowercase hex"},
		{"body edited", edit(t, good, func(m map[string]any) { req(m)["body"] = map[string]any{"model": "other"} }), "does not hash"},
		{"body missing", edit(t, good, func(m map[string]any) { delete(req(m), "body") }), "request body is missing"},
		{"method lower case", edit(t, good, func(m map[string]any) { req(m)["method"] = "post" }), "HTTP method"},
		{"path relative", edit(t, good, func(m map[string]any) { req(m)["path"] = "json" }), "does not start with /"},
		{"status", edit(t, good, func(m map[string]any) { resp(m)["status"] = 99 }), "outside 100-599"},
		{"status missing", edit(t, good, func(m map[string]any) { delete(resp(m), "status") }), "outside 100-599"},
		{"extra header", edit(t, good, func(m map[string]any) {
			resp(m)["headers"] = map[string]any{"Content-Type": "application/json", "Set-Cookie": "a"}
		}), "is not one of Content-Type"},
		{"header not canonical", edit(t, good, func(m map[string]any) { resp(m)["headers"] = map[string]any{"content-type": "a"} }), "is not one of"},
		{"header newline", edit(t, good, func(m map[string]any) { resp(m)["headers"] = map[string]any{"Content-Type": "a\r\nX: y"} }), "multi-line"},
		{"both bodies", edit(t, good, func(m map[string]any) { resp(m)["body_base64"] = "AA==" }), "both body and body_base64"},
		{"bad base64", edit(t, good, func(m map[string]any) { delete(resp(m), "body"); resp(m)["body_base64"] = "!!" }), "body_base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFile(path)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error = %v, want ErrMalformed", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}

	t.Run("renamed", func(t *testing.T) {
		other := filepath.Join(filepath.Dir(path), strings.Repeat("0", 64)+".json")
		if err := os.WriteFile(other, good, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(other); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "file name") {
			t.Errorf("error = %v, want a key/file name mismatch", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := ReadFile(filepath.Join(t.TempDir(), "nope.json")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error = %v, want fs.ErrNotExist", err)
		}
	})
	t.Run("replay surfaces it", func(t *testing.T) {
		if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := post(t, &Replayer{Dir: filepath.Dir(path)}, "http://127.0.0.1:1/json", `{"model":"m"}`)
		if !errors.Is(err, ErrMalformed) || errors.Is(err, ErrCassetteMiss) || !strings.Contains(err.Error(), path) {
			t.Errorf("error = %v, want ErrMalformed naming %s", err, path)
		}
	})
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"version":1,"key":"","request":{"method":"POST","path":"/","body":null},"response":{"status":200}}`))
	f.Add([]byte(`{"version":1,"key":"` + strings.Repeat("a", 64) + `","request":{"method":"POST","path":"/","body":{}},"response":{"status":200,"body_base64":"AA=="}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := decode(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("decode error %v does not wrap ErrMalformed", err)
			}
			return
		}
		// Whatever decodes re-encodes to a file that decodes the same.
		b, err := Encode(*in)
		if err != nil {
			t.Fatalf("encode decoded cassette: %v", err)
		}
		again, err := decode(b)
		if err != nil {
			t.Fatalf("decode re-encoded cassette: %v", err)
		}
		if again.Key != in.Key || again.Response.Status != in.Response.Status {
			t.Fatalf("round trip changed the cassette: %+v -> %+v", in, again)
		}
		if _, err := in.response(nil); err != nil {
			t.Fatalf("build response from a valid cassette: %v", err)
		}
	})
}
