package main

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestServe_RefusesBadFlags: serve refuses limits and hosts it cannot
// honour before it listens, naming the flag.
func TestServe_RefusesBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"allowed host with a scheme", []string{"--allowed-hosts", "localhost,http://api.example.com"}, "invalid allowed host"},
		{"zero in flight", []string{"--max-in-flight", "0"}, "max-in-flight"},
		{"body budget over read timeout", []string{"--body-read-timeout", "1m"}, "body-read-timeout"},
		{"per-client readers over all", []string{"--max-body-readers", "4", "--max-body-readers-per-client", "5"}, "max-body-readers-per-client"},
		{"no tokens on a network address", []string{"--addr", "0.0.0.0:0"}, "non-loopback"},
		// A negative shutdown timeout was taken for the default; the
		// other durations were refused.
		{"negative shutdown timeout", []string{"--shutdown-timeout", "-1s"}, "shutdown-timeout"},
		{"shutdown timeout over an hour", []string{"--shutdown-timeout", "2h"}, "shutdown-timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"serve"}
			if !slices.Contains(tt.args, "--addr") { // a flag is given once
				args = append(args, "--addr", "127.0.0.1:0")
			}
			_, stderr, err := runCLI(t, append(args, tt.args...)...)
			if err == nil {
				t.Fatal("serve started")
			}
			if msg := err.Error() + stderr; !strings.Contains(msg, tt.want) {
				t.Errorf("serve: %v %s, want a message naming %q", err, stderr, tt.want)
			}
		})
	}
}

// TestServe_CatalogScopes: the principals' scopes are checked against the
// catalog's scope entity before serve listens (the retail demo's without
// --catalog); an id of another entity is refused, naming the principal
// and the item, not the value.
func TestServe_CatalogScopes(t *testing.T) {
	t.Setenv("PROVENANT_TEST_TOKEN", "test-token-0123456789abcdef")
	tests := []struct {
		name, scope string
		args        []string
		want        string
	}{
		{"store where zones are wanted", "stores: [st-001]", []string{"--catalog", "warehouse"}, "principal east: scope item 0 is not a zone id"},
		{"zone where stores are wanted", "scope: [zone-01]", nil, "principal east: scope item 0 is not a store id"},
		{"short store id", "stores: [st-001, st-1]", nil, "principal east: scope item 1 is not a store id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			principals := writeFile(t, t.TempDir(), "principals.yaml",
				"principals:\n  - name: east\n    token_env: PROVENANT_TEST_TOKEN\n    "+tt.scope+"\n")
			args := append([]string{"serve", "--addr", "127.0.0.1:0", "--principals", principals}, tt.args...)
			_, stderr, err := runCLI(t, args...)
			if err == nil {
				t.Fatal("serve started")
			}
			msg := err.Error() + stderr
			if !strings.Contains(msg, tt.want) || strings.Contains(msg, "st-001") || strings.Contains(msg, "zone-01") {
				t.Errorf("serve: %s", msg)
			}
		})
	}
}

// TestServe_MemoryAgents: with --memory, the writer and reader of every
// request is --memory-agent or a principal's name, so each must be a
// memory agent id (printable, no spaces) before serve listens. Else the
// server started and refused every remember and recall as the client's
// mistake (400 invalid_record "agent: holds a space").
func TestServe_MemoryAgents(t *testing.T) {
	t.Setenv("PROVENANT_TEST_TOKEN", "test-token-0123456789abcdef")
	dir := t.TempDir()
	principals := writeFile(t, dir, "principals.yaml",
		"principals:\n  - name: east ops\n    token_env: PROVENANT_TEST_TOKEN\n    stores: all\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"serve, an agent with a space", []string{"serve", "--addr", "127.0.0.1:0", "--memory", "--memory-agent", "stock bot"}, "--memory-agent"},
		{"serve, an agent with a control character", []string{"serve", "--addr", "127.0.0.1:0", "--memory", "--memory-agent", "bot\x01"}, "--memory-agent"},
		{"mcp, an agent with a space", []string{"mcp", "--memory", "--memory-agent", "stock bot"}, "--memory-agent"},
		{"serve, a principal named with a space", []string{"serve", "--addr", "127.0.0.1:0", "--memory", "--principals", principals}, "principal east ops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			var stdout, stderr bytes.Buffer
			args := append(tt.args, "--journal", filepath.Join(t.TempDir(), "j.duckdb"), "--log-level", "error")
			err := Run(ctx, args, &stdout, &stderr)
			if err == nil || ctx.Err() != nil {
				t.Fatalf("%s started (%v)", tt.args[0], err)
			}
			if msg := err.Error() + stderr.String(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "stock bot") {
				t.Errorf("%s: %s, want a message naming %q and not the value", tt.args[0], msg, tt.want)
			}
		})
	}
}
