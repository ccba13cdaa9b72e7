package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNewProtocolMeta_Kept: the answer kept for a _meta accepted once is
// the check's own, every time: the same bytes under another version, and
// bytes that differ in anything, are checked again and refused; a _meta
// too long to keep is checked on every call.
func TestNewProtocolMeta_Kept(t *testing.T) {
	const v = "2026-07-28"
	ok := `{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	long := `{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"` + strings.Repeat("c", maxKeptMeta) + `","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	tests := []struct {
		name, meta, version string
		want                bool
	}{
		{"accepted", ok, v, true},
		{"accepted again", ok, v, true},
		{"another version", ok, "2026-08-01", false},
		{"an extra member", strings.Replace(ok, `{"io.`, `{"x":1,"io.`, 1), v, false},
		{"capabilities not an object", strings.Replace(ok, `{"roots":{"listChanged":true}}`, `[]`, 1), v, false},
		{"no capabilities", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`, v, false},
		{"too long to keep", long, v, true},
		{"too long to keep, another version", long, "2026-08-01", false},
	}
	for range 2 {
		for _, tt := range tests {
			if got := newProtocolMeta(json.RawMessage(tt.meta), tt.version); got != tt.want {
				t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
			}
			if got := checkProtocolMeta(json.RawMessage(tt.meta), tt.version); got != tt.want {
				t.Errorf("%s: the check itself: got %v, want %v", tt.name, got, tt.want)
			}
		}
	}
}
