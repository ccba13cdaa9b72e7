package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// keyedRecords holds rows by key, as a catalog whose key column is any
// text would.
type keyedRecords struct{ keys map[string]bool }

func (r keyedRecords) Record(_ context.Context, key string, _ tool.Scope) (shape.Record, bool, error) {
	if strings.IndexByte(key, 0) >= 0 {
		// As PostgreSQL answers a text parameter holding a NUL.
		return shape.Record{}, false, errors.New("invalid byte sequence for encoding \"UTF8\": 0x00")
	}
	if !r.keys[key] {
		return shape.Record{}, false, nil
	}
	return shape.Record{Dataset: "orders", Key: key, Fields: []shape.Field{{Name: "order_id", Value: key}}}, true, nil
}

func (keyedRecords) Summary(context.Context, tool.Scope) (shape.Summary, error) {
	return shape.Summary{}, nil
}

// TestEventResource_AnyKey: a key is one percent-encoded path segment of
// the event URI, so a catalog key with "/", "?", "#", "%", a space or
// non-ASCII letters is read through the official client, and a malformed
// escape names nothing. The demo's keys read as they are.
func TestEventResource_AnyKey(t *testing.T) {
	keys := []string{"evt-002357", "order/7", "a b", "50%", "q?x#y", "ünï", "a%2Fb"}
	recs := keyedRecords{keys: map[string]bool{}}
	for _, k := range keys {
		recs.keys[k] = true
	}
	cs := connectServer(t, mcpserver.New(deadlineRecorder{}, recs, nil))
	for _, key := range keys {
		t.Run(key, func(t *testing.T) {
			uri := "provenant://events/" + url.PathEscape(key)
			res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				t.Fatalf("read %s: %v", uri, err)
			}
			if got := res.Contents[0].URI; got != uri {
				t.Errorf("contents URI %q, want %q", got, uri)
			}
			var env struct {
				Data struct {
					OrderID string `json:"order_id"`
				}
			}
			if err := json.Unmarshal([]byte(res.Contents[0].Text), &env); err != nil {
				t.Fatal(err)
			}
			if env.Data.OrderID != key {
				t.Errorf("read key %q, want %q", env.Data.OrderID, key)
			}
		})
	}
	if got := "provenant://events/" + url.PathEscape("evt-002357"); got != "provenant://events/evt-002357" {
		t.Errorf("demo key's URI %q changed", got)
	}
	for _, bad := range []string{"%zz", "a%2", "order/7", "%00" + strings.Repeat("x", 1024), "%ff", "a%00b", "a\x00b"} {
		t.Run("refused "+bad[:min(len(bad), 8)], func(t *testing.T) {
			_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "provenant://events/" + bad})
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), "resource not found") {
				t.Fatalf("read = %v, want resource not found", err)
			}
			if strings.Contains(err.Error(), bad) {
				t.Errorf("error repeats the URI")
			}
		})
	}
}
