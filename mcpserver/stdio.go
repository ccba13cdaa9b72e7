package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio transport reads newline-delimited JSON-RPC (the MCP stdio
// transport: one message a line, no newline inside one). The SDK's
// reader ends the session at the first line it cannot decode, with an
// error that quotes a byte of it, so one malformed line would cost a
// client every later answer. filterLines stands before it: each line the
// SDK can decode goes on to it, and every other line is answered here
// with a fixed JSON-RPC error, and the session goes on.

// maxLineBytes bounds one line, as the SDK bounds one frame.
const maxLineBytes = mcp.DefaultMaxLineLength

// Fixed messages of the errors filterLines answers; none repeats the line.
const (
	msgParseError     = "parse error: a line is not one JSON value"
	msgInvalidRequest = "invalid request: not a JSON-RPC 2.0 message"
	msgTooLong        = "invalid request: the line is longer than the limit"
)

// lockedWriter serialises whole writes to w: the SDK writes each message
// in one Write, and filterLines its answers, so lines never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Close()
}

// filterLines copies the lines of r that the SDK can decode to pass, and
// answers each other line on out. It closes pass with r's error (io.EOF
// at the end of input), or returns when pass is closed (the session
// ended).
func filterLines(r io.Reader, pass *io.PipeWriter, out io.Writer) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxLineBytes)
		line = bytes.Trim(line, jsonSpace)
		if reply := checkLine(line, tooLong); reply != nil {
			if _, werr := out.Write(reply); werr != nil {
				pass.CloseWithError(werr)
				return
			}
		} else if len(line) > 0 {
			if _, werr := pass.Write(append(line, '\n')); werr != nil {
				return
			}
		}
		if err != nil {
			pass.CloseWithError(err)
			return
		}
	}
}

// readLine reads one line of br without its line ending ("\n" or
// "\r\n"). A line longer than limit is read to its end and reported
// tooLong, without its bytes. err is br's, io.EOF after the last line.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+2 { // +2: the line ending
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		return line, tooLong, err
	}
}

// jsonSpace is what JSON counts as whitespace around a value.
const jsonSpace = " \t\r\n"

// checkLine is the answer to a line (without JSON whitespace around it)
// the SDK cannot decode, or nil for a line to pass on (or a blank one,
// which the SDK skips too).
func checkLine(line []byte, tooLong bool) []byte {
	if tooLong {
		return errorLine(nil, jsonrpc.CodeInvalidRequest, msgTooLong)
	}
	if len(line) == 0 {
		return nil
	}
	if !json.Valid(line) {
		return errorLine(nil, jsonrpc.CodeParseError, msgParseError)
	}
	if line[0] == '[' {
		// A batch (protocol versions before 2025-06-18) goes on when the
		// SDK can decode each of its messages.
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return errorLine(nil, jsonrpc.CodeInvalidRequest, msgInvalidRequest)
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil || !exactID(m) {
				return errorLine(nil, jsonrpc.CodeInvalidRequest, msgInvalidRequest)
			}
		}
		return nil
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil || !exactID(line) {
		return errorLine(requestID(line), jsonrpc.CodeInvalidRequest, msgInvalidRequest)
	}
	return nil
}

// exactID reports whether a message's id, if it has one, is one the SDK
// answers under the same id: a string, or an integer that fits in 64
// bits. The SDK reads a number id as an int64, so 1.5 would be answered
// as 1, and a larger integer under another number, which a client
// waiting for its own id would never see.
func exactID(msg []byte) bool {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return false
	}
	if len(m.ID) == 0 || m.ID[0] == '"' || string(m.ID) == "null" {
		return true
	}
	_, err := strconv.ParseInt(string(m.ID), 10, 64)
	return err == nil
}

// requestID is the id of a message that is not valid JSON-RPC, when it
// has one of a valid type (a string or an integer), so that the client
// waiting for that id gets its answer; nil (null) otherwise.
func requestID(line []byte) any {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var id string
	if json.Unmarshal(m.ID, &id) == nil {
		return id
	}
	if _, err := strconv.ParseInt(string(m.ID), 10, 64); err == nil {
		return json.Number(m.ID)
	}
	return nil
}

// errorLine is a JSON-RPC error response with id (nil: null), code and a
// fixed message, as one line.
func errorLine(id any, code int, message string) []byte {
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	if err != nil { // an id from json.Unmarshal always marshals
		b = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`)
	}
	return append(b, '\n')
}
