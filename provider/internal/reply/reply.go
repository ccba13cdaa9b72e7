// Package reply is how the model providers (provider/openai,
// provider/anthropic) hold a model server's reply: a cap on every
// response body, and model text reduced to one displayable line.
package reply

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode"
)

// ErrTooLarge is returned when reading a response body past its cap.
var ErrTooLarge = errors.New("response body exceeds its size limit")

// LimitTransport returns a transport that caps every response body next
// returns at max bytes: reading past it fails with ErrTooLarge.
func LimitTransport(next http.RoundTripper, max int64) http.RoundTripper {
	return limitTransport{next: next, max: max}
}

type limitTransport struct {
	next http.RoundTripper
	max  int64
}

func (t limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.Body == nil {
		resp.Body = http.NoBody
	}
	resp.Body = &limitedBody{rc: resp.Body, left: t.max}
	return resp, nil
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, ErrTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// OneLine makes model text safe to display on one line: valid UTF-8,
// whitespace runs collapsed to one space, control and format characters
// removed.
func OneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
}
