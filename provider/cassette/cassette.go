package cassette

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gowebpki/jcs"

	"github.com/provenant/provenant/internal/strictjson"
)

// Version is the cassette file format version this package reads and writes.
const Version = 1

// MaxBodySize bounds a request or response body the seam will hold in
// memory, and MaxFileSize a cassette file it will read.
const (
	MaxBodySize = 16 << 20
	MaxFileSize = 2*MaxBodySize + 1<<20
)

var (
	// ErrCassetteMiss is matched by every *MissError: replay found no
	// cassette for a request.
	ErrCassetteMiss = errors.New("cassette miss")
	// ErrMalformed is wrapped by every error about a cassette file that
	// cannot be trusted (bad JSON, unknown fields, key mismatch, ...).
	ErrMalformed = errors.New("malformed cassette")
	// ErrUnkeyable is wrapped when a request cannot be keyed: its body is
	// not JSON, or is too large.
	ErrUnkeyable = errors.New("request cannot be keyed")
	// ErrNoDir is returned by a Recorder or Replayer without a directory.
	ErrNoDir = errors.New("no cassette directory")
)

// MissError reports that replay has no cassette for a request.
type MissError struct {
	Key    string // the request's key; the missing file is Key + ".json"
	Dir    string // the cassette directory searched
	Method string
	Path   string
}

func (e *MissError) Error() string {
	return fmt.Sprintf("replay model call: no cassette for %s %s (key %s, file %s.json) in %s; re-run with --provider record to record it",
		e.Method, e.Path, e.Key, e.Key, e.Dir)
}

// Is reports whether target is ErrCassetteMiss.
func (e *MissError) Is(target error) bool { return target == ErrCassetteMiss }

// Interaction is one recorded exchange, the content of one cassette file.
type Interaction struct {
	Version  int      `json:"version"`
	Key      string   `json:"key"`
	Request  Request  `json:"request"`
	Response Response `json:"response"`
}

// Request is the keyed part of a request: no headers, no host, no query.
type Request struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Body   json.RawMessage `json:"body"`
}

// Response is a recorded response. At most one of Body and BodyBase64 is
// set; neither means an empty body.
type Response struct {
	Status     int               `json:"status"`
	Headers    map[string]string `json:"headers,omitempty"`
	Body       json.RawMessage   `json:"body,omitempty"`
	BodyBase64 string            `json:"body_base64,omitempty"`
}

// keptHeaders are the only response headers a cassette stores.
var keptHeaders = []string{"Content-Type"}

// Key returns the key of a request and its canonical (RFC 8785) body. An
// empty body is keyed as JSON null.
func Key(method, path string, body []byte) (key string, canonicalBody []byte, err error) {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("null")
	}
	canonicalBody, err = jcs.Transform(body)
	if err != nil {
		return "", nil, fmt.Errorf("canonicalise request body: %w: %w", ErrUnkeyable, err)
	}
	doc, err := json.Marshal(Request{Method: method, Path: path, Body: canonicalBody})
	if err != nil {
		return "", nil, fmt.Errorf("encode request: %w: %w", ErrUnkeyable, err)
	}
	canonical, err := jcs.Transform(doc)
	if err != nil {
		return "", nil, fmt.Errorf("canonicalise request: %w: %w", ErrUnkeyable, err)
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:]), canonicalBody, nil
}

// readRequest reads and closes req's body and keys the request.
func readRequest(req *http.Request) (key string, body, canonicalBody []byte, err error) {
	if req.Body != nil {
		body, err = readLimited(req.Body, MaxBodySize)
		req.Body.Close()
		if err != nil {
			return "", nil, nil, fmt.Errorf("read request body: %w: %w", ErrUnkeyable, err)
		}
	}
	key, canonicalBody, err = Key(req.Method, req.URL.Path, body)
	return key, body, canonicalBody, err
}

// readLimited reads r to its end, failing if it holds more than max bytes.
func readLimited(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("body exceeds %d bytes", max)
	}
	return b, nil
}

// Recorder is an http.RoundTripper that forwards each request to Next and
// saves the exchange as a cassette file in Dir (created if missing). Only
// exchanges that produced a response are recorded, whatever its status; a
// transport error is returned and nothing is saved. It is safe for
// concurrent use.
type Recorder struct {
	Dir  string
	Next http.RoundTripper // nil means http.DefaultTransport
}

var _ http.RoundTripper = (*Recorder)(nil)

// RoundTrip implements http.RoundTripper.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if r.Dir == "" {
		closeBody(req)
		return nil, fmt.Errorf("record model call: %w", ErrNoDir)
	}
	key, body, canonicalBody, err := readRequest(req)
	if err != nil {
		return nil, fmt.Errorf("record model call: %w", err)
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	next := r.Next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	respBody, err := readLimited(resp.Body, MaxBodySize)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("record model call: read response body: %w", err)
	}
	in := Interaction{
		Version:  Version,
		Key:      key,
		Request:  Request{Method: req.Method, Path: req.URL.Path, Body: canonicalBody},
		Response: Response{Status: resp.StatusCode},
	}
	for _, h := range keptHeaders {
		if v := resp.Header.Get(h); v != "" {
			if in.Response.Headers == nil {
				in.Response.Headers = map[string]string{}
			}
			in.Response.Headers[h] = v
		}
	}
	switch {
	case len(respBody) == 0:
	case utf8.Valid(respBody) && json.Valid(respBody):
		in.Response.Body = respBody
	default:
		in.Response.BodyBase64 = base64.StdEncoding.EncodeToString(respBody)
	}
	data, err := Encode(in)
	if err != nil {
		return nil, fmt.Errorf("record model call: %w", err)
	}
	// Read back what was written, so the caller sees what replay will serve.
	saved, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("record model call: re-read cassette %s: %w", key, err)
	}
	if err := writeFile(r.Dir, key+".json", data); err != nil {
		return nil, fmt.Errorf("record model call: %w", err)
	}
	return saved.response(req)
}

// Encode returns the file content of an interaction: indented JSON with
// HTML characters left unescaped, and a trailing newline.
func Encode(in Interaction) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(in); err != nil {
		return nil, fmt.Errorf("encode cassette: %w", err)
	}
	return buf.Bytes(), nil
}

// writeFile writes data to dir/name atomically (temporary file, rename).
func writeFile(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create cassette directory: %w", err)
	}
	f, err := os.CreateTemp(dir, ".cassette-*.tmp")
	if err != nil {
		return fmt.Errorf("create cassette: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write cassette %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// Replayer is an http.RoundTripper that serves recorded exchanges from Dir
// and never touches the network. A request with no cassette gets a
// *MissError. It is safe for concurrent use.
type Replayer struct {
	Dir string
}

var _ http.RoundTripper = (*Replayer)(nil)

// RoundTrip implements http.RoundTripper.
func (r *Replayer) RoundTrip(req *http.Request) (*http.Response, error) {
	if r.Dir == "" {
		closeBody(req)
		return nil, fmt.Errorf("replay model call: %w", ErrNoDir)
	}
	key, _, canonicalBody, err := readRequest(req)
	if err != nil {
		return nil, fmt.Errorf("replay model call: %w", err)
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	path := filepath.Join(r.Dir, key+".json")
	in, err := ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MissError{Key: key, Dir: r.Dir, Method: req.Method, Path: req.URL.Path}
	}
	if err != nil {
		return nil, fmt.Errorf("replay model call: %w", err)
	}
	if in.Request.Method != req.Method || in.Request.Path != req.URL.Path {
		return nil, fmt.Errorf("replay model call: read cassette %s: %w: recorded for %s %s, not %s %s",
			path, ErrMalformed, in.Request.Method, in.Request.Path, req.Method, req.URL.Path)
	}
	if stored, err := jcs.Transform(in.Request.Body); err != nil || !bytes.Equal(stored, canonicalBody) {
		return nil, fmt.Errorf("replay model call: read cassette %s: %w: recorded body differs from the request", path, ErrMalformed)
	}
	return in.response(req)
}

// ReadFile reads and strictly validates one cassette file. The key must
// match the file name. A missing file gives an error matching
// fs.ErrNotExist; any other problem wraps ErrMalformed and names the file.
func ReadFile(path string) (*Interaction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read cassette: %w", err)
	}
	defer f.Close()
	data, err := readLimited(f, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("read cassette %s: %w: %w", path, ErrMalformed, err)
	}
	in, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("read cassette %s: %w", path, err)
	}
	if want := strings.TrimSuffix(filepath.Base(path), ".json"); in.Key != want {
		return nil, fmt.Errorf("read cassette %s: %w: key %q does not match the file name", path, ErrMalformed, in.Key)
	}
	return in, nil
}

// malformed returns an error wrapping ErrMalformed.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// decode parses and validates cassette content.
func decode(data []byte) (*Interaction, error) {
	// The one strict decoder (package strictjson) rejects what
	// encoding/json would let pass: duplicate keys (it keeps the last),
	// keys in another case (it folds them), invalid UTF-8, trailing data.
	var in Interaction
	if err := strictjson.Decode(data, &in, nil); err != nil {
		return nil, malformed("not strict JSON: %v", err)
	}
	if in.Version != Version {
		return nil, malformed("version %d, want %d", in.Version, Version)
	}
	if !isKey(in.Key) {
		return nil, malformed("key is not 64 lowercase hex digits")
	}
	if !isToken(in.Request.Method) {
		return nil, malformed("request method %q is not an upper-case HTTP method", in.Request.Method)
	}
	if !strings.HasPrefix(in.Request.Path, "/") {
		return nil, malformed("request path %q does not start with /", in.Request.Path)
	}
	if in.Request.Body == nil {
		return nil, malformed("request body is missing (use null for none)")
	}
	key, _, err := Key(in.Request.Method, in.Request.Path, in.Request.Body)
	if err != nil {
		return nil, malformed("request: %v", err)
	}
	if key != in.Key {
		return nil, malformed("key does not hash the stored request (edited by hand? re-record it)")
	}
	r := in.Response
	if r.Status < 100 || r.Status > 599 {
		return nil, malformed("response status %d is outside 100-599", r.Status)
	}
	for h, v := range r.Headers {
		if h != http.CanonicalHeaderKey(h) || !kept(h) {
			return nil, malformed("response header %q is not one of %s", h, strings.Join(keptHeaders, ", "))
		}
		if v == "" || strings.ContainsAny(v, "\r\n\x00") {
			return nil, malformed("response header %s has an empty or multi-line value", h)
		}
	}
	if r.Body != nil && r.BodyBase64 != "" {
		return nil, malformed("response has both body and body_base64")
	}
	if r.BodyBase64 != "" {
		if _, err := base64.StdEncoding.Strict().DecodeString(r.BodyBase64); err != nil {
			return nil, malformed("response body_base64: %v", err)
		}
	}
	return &in, nil
}

func kept(h string) bool {
	for _, k := range keptHeaders {
		if h == k {
			return true
		}
	}
	return false
}

func isKey(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func isToken(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	for _, c := range []byte(s) {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

// response builds the http.Response a validated interaction serves.
func (in *Interaction) response(req *http.Request) (*http.Response, error) {
	var body []byte
	switch {
	case in.Response.BodyBase64 != "":
		b, err := base64.StdEncoding.Strict().DecodeString(in.Response.BodyBase64)
		if err != nil {
			return nil, fmt.Errorf("decode cassette %s body: %w: %w", in.Key, ErrMalformed, err)
		}
		body = b
	default:
		body = in.Response.Body
	}
	h := http.Header{}
	for k, v := range in.Response.Headers {
		h.Set(k, v)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", in.Response.Status, http.StatusText(in.Response.Status)),
		StatusCode:    in.Response.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}
