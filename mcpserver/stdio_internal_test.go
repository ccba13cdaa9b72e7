package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// filter runs filterLines over in and returns the lines it passed on and
// the answers it wrote.
func filter(t testing.TB, in []byte) (passed, answers []string) {
	pr, pw := io.Pipe()
	var out bytes.Buffer
	go filterLines(bytes.NewReader(in), pw, &lockedWriter{w: nopClose{&out}})
	got, err := io.ReadAll(pr)
	if err != nil {
		t.Fatalf("read the passed lines: %v", err)
	}
	return lines(got), lines(out.Bytes())
}

func lines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReaderSize(strings.NewReader(s), 16) }

type nopClose struct{ io.Writer }

func (nopClose) Close() error { return nil }

func TestReadLine_TooLong(t *testing.T) {
	long := strings.Repeat("x", 200)
	passed, answers := filter(t, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+long+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	if len(passed) != 2 || len(answers) != 1 || !strings.Contains(answers[0], "-32700") {
		t.Fatalf("passed %q, answered %q; want both pings passed and one parse error", passed, answers)
	}
	// A line over the limit is answered without its bytes, and the next
	// line still read.
	br := bufioReader(long + "\nnext\n")
	line, tooLong, err := readLine(br, 100)
	if !tooLong || line != nil || err != nil {
		t.Fatalf("readLine = %q, %v, %v; want nil, too long", line, tooLong, err)
	}
	if line, tooLong, _ := readLine(br, 100); string(line) != "next" || tooLong {
		t.Errorf("next line = %q, %v", line, tooLong)
	}
}

// FuzzFilterLines: whatever the input, every non-blank line is either
// passed on, decodable by the SDK, or answered with one JSON-RPC error
// of a fixed message; nothing else is written.
func FuzzFilterLines(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]",
		`{"jsonrpc":"1.0","id":"a","method":"x"}`, `{"id":{}}`, `[]`, "\xff\xfe", `{"a":1}{"b":2}`, `"\u2028"`,
		"\u00a0{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		passed, answers := filter(t, in)
		nonBlank := 0
		for _, l := range strings.Split(string(in), "\n") {
			if len(bytes.Trim([]byte(l), jsonSpace)) > 0 {
				nonBlank++
			}
		}
		if len(passed)+len(answers) != nonBlank {
			t.Fatalf("%d passed and %d answered of %d non-blank lines", len(passed), len(answers), nonBlank)
		}
		for _, p := range passed {
			if p[0] == '[' {
				continue
			}
			if _, err := jsonrpc.DecodeMessage([]byte(p)); err != nil {
				t.Fatalf("passed a line the SDK cannot decode: %q: %v", p, err)
			}
		}
		for _, a := range answers {
			var resp struct {
				JSONRPC string `json:"jsonrpc"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(a), &resp); err != nil || resp.JSONRPC != "2.0" {
				t.Fatalf("answer %q is not a JSON-RPC message: %v", a, err)
			}
			switch resp.Error.Message {
			case msgParseError, msgInvalidRequest, msgTooLong:
			default:
				t.Fatalf("answer %q has no fixed message", a)
			}
		}
	})
}
