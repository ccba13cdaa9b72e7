package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAuthFlags(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	os.WriteFile(tokenFile, []byte("file-token-0123456789abc\n"), 0o600)
	t.Setenv("PROVENANT_TEST_TOKEN", "env-token-0123456789abcd")
	t.Setenv("PROVENANT_TEST_PADDED", "env-token-0123456789abcd ")
	tests := []struct {
		name    string
		flags   authFlags
		addr    string
		wantNil bool
		wantErr string
	}{
		{"loopback, local mode", authFlags{}, "127.0.0.1:8080", true, ""},
		{"localhost, local mode", authFlags{}, "localhost:8080", true, ""},
		{"ipv6 loopback, local mode", authFlags{}, "[::1]:8080", true, ""},
		{"all interfaces need tokens", authFlags{}, ":8080", false, "non-loopback"},
		{"public address needs tokens", authFlags{}, "0.0.0.0:8080", false, "non-loopback"},
		{"token from env", authFlags{tokenEnv: "PROVENANT_TEST_TOKEN"}, "0.0.0.0:8080", false, ""},
		{"token from file", authFlags{tokenFile: tokenFile}, "0.0.0.0:8080", false, ""},
		{"unset env", authFlags{tokenEnv: "PROVENANT_TEST_UNSET"}, "0.0.0.0:8080", false, "token_env PROVENANT_TEST_UNSET: the variable is unset"},
		{"padded env", authFlags{tokenEnv: "PROVENANT_TEST_PADDED"}, "0.0.0.0:8080", false, "token_env PROVENANT_TEST_PADDED: the token has white space around it"},
		{"missing token file", authFlags{tokenFile: filepath.Join(dir, "absent")}, "0.0.0.0:8080", false, filepath.Join(dir, "absent")},
		{"two sources", authFlags{tokenEnv: "PROVENANT_TEST_TOKEN", tokenFile: tokenFile}, "127.0.0.1:8080", false, "one of"},
		{"tokens on loopback too", authFlags{tokenFile: tokenFile}, "127.0.0.1:8080", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := tt.flags.load(t.Context(), tt.addr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("load() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (set == nil) != tt.wantNil {
				t.Errorf("load() = %v, want nil %t", set, tt.wantNil)
			}
		})
	}
}
