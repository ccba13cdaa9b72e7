package principal_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/provenant/provenant/principal"
)

const (
	eastToken    = "east-ops-token-0123456789"
	auditorToken = "auditor-token-abcdefghijk"
)

var sources = principal.Sources{
	Getenv: func(k string) string {
		return map[string]string{"EAST": eastToken, "SHORT": "abc", "DUP": auditorToken}[k]
	},
	ReadFile: func(name string) ([]byte, error) {
		if name == "/run/secrets/auditor" {
			return []byte(auditorToken + "\n"), nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	},
}

const valid = `principals:
  - name: east-ops
    token_env: EAST
    stores: [st-001, st-002]
  - name: auditor
    token_file: /run/secrets/auditor
    stores: all
`

func TestParse(t *testing.T) {
	set, err := principal.Parse(strings.NewReader(valid), sources)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		token     string
		name      string
		allows    []string
		forbids   []string
		wantFound bool
	}{
		{eastToken, "east-ops", []string{"st-001", "st-002"}, []string{"st-003"}, true},
		{auditorToken, "auditor", []string{"st-001", "st-999"}, nil, true},
		{eastToken + "x", "", nil, nil, false},
		{"", "", nil, nil, false},
	}
	for _, tt := range tests {
		p, ok := set.Authenticate(tt.token)
		if ok != tt.wantFound || p.Name != tt.name {
			t.Errorf("Authenticate(%q) = %q, %t", tt.token, p.Name, ok)
		}
		for _, s := range tt.allows {
			if !p.Scope.Allows(s) {
				t.Errorf("%s cannot see %s", p.Name, s)
			}
		}
		for _, s := range tt.forbids {
			if p.Scope.Allows(s) {
				t.Errorf("%s can see %s", p.Name, s)
			}
		}
	}
}

func TestParse_NoStoresSeesNothing(t *testing.T) {
	set, err := principal.Parse(strings.NewReader("principals:\n  - name: new\n    token_env: EAST\n"), sources)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := set.Authenticate(eastToken)
	if !ok || p.Scope.All() || p.Scope.Allows("st-001") {
		t.Errorf("principal without stores: %+v", p)
	}
}

func TestParse_Rejects(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"unknown key with position", "principals:\n  - name: a\n    token_env: EAST\n    password: hunter2\n", "[4:5]"},
		{"duplicate key", "principals:\n  - name: a\n    name: b\n    token_env: EAST\n", "already defined"},
		{"no principals", "principals: []\n", "no principals"},
		{"both token sources", "principals:\n  - name: a\n    token_env: EAST\n    token_file: /x\n", "exactly one"},
		{"short token", "principals:\n  - name: a\n    token_env: SHORT\n", "shorter than 16"},
		{"unset variable", "principals:\n  - name: a\n    token_env: UNSET\n", "missing"},
		{"unreadable file", "principals:\n  - name: a\n    token_file: /nope\n", "read token_file"},
		{"bad store", "principals:\n  - name: a\n    token_env: EAST\n    stores: [st-1]\n", "item 0"},
		{"bad stores word", "principals:\n  - name: a\n    token_env: EAST\n    stores: some\n", `"all"`},
		{"duplicate name", "principals:\n  - name: a\n    token_env: EAST\n  - name: a\n    token_file: /run/secrets/auditor\n", "duplicate name"},
		{"shared token", "principals:\n  - name: a\n    token_env: DUP\n  - name: b\n    token_file: /run/secrets/auditor\n", "another principal's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := principal.Parse(strings.NewReader(tt.input), sources)
			if !errors.Is(err, principal.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse() error = %v, want ErrInvalid mentioning %q", err, tt.want)
			}
			for _, secret := range []string{eastToken, auditorToken, "hunter2"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error reveals %q: %v", secret, err)
				}
			}
		})
	}
}

func TestSingle(t *testing.T) {
	if _, err := principal.Single("default", "short"); err == nil {
		t.Error("Single accepted a short token")
	}
	set, err := principal.Single("default", eastToken)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := set.Authenticate(eastToken); !ok || !p.Scope.All() {
		t.Errorf("Single principal = %+v, %t", p, ok)
	}
}
