package reply

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestOneLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "The price is 299 cents.", "The price is 299 cents."},
		{"whitespace runs", " a \n\t b\r\nc  ", "a b c"},
		{"control characters", "a\x1b[31mb\x00c", "a[31mbc"},
		{"format characters", "a\u200bb\u202ec", "abc"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
		{"only space", " \n ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OneLine(tt.in); got != tt.want {
				t.Errorf("OneLine(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

type bodyTransport []byte

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: io.NopCloser(bytes.NewReader(b)), Request: r}, nil
}

type nilBody struct{}

func (nilBody) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 204, Request: r}, nil
}

func TestLimitTransport(t *testing.T) {
	tests := []struct {
		name    string
		next    http.RoundTripper
		wantLen int
		wantErr error
	}{
		{"under the cap", bodyTransport(strings.Repeat("x", 9)), 9, nil},
		{"at the cap", bodyTransport(strings.Repeat("x", 10)), 10, nil},
		{"past the cap", bodyTransport(strings.Repeat("x", 11)), 10, ErrTooLarge},
		{"no body", nilBody{}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/", nil)
			resp, err := LimitTransport(tt.next, 10).RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if !errors.Is(err, tt.wantErr) || len(b) != tt.wantLen {
				t.Errorf("read %d bytes, %v; want %d, %v", len(b), err, tt.wantLen, tt.wantErr)
			}
		})
	}
}
