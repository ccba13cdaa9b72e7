package principal_test

import (
	"errors"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/provenant/provenant/principal"
)

const (
	eastToken    = "east-ops-token-0123456789"
	auditorToken = "auditor-token-abcdefghijk"
)

var env = map[string]string{
	"EAST": eastToken, "SHORT": "abc", "DUP": auditorToken, "EMPTY": "",
	"PADDED": " " + eastToken + "\n", "INNER": "east-ops token-0123456789", "BADCHAR": "east-ops-token-012345678é",
}

var files = map[string]string{
	"/run/secrets/auditor": auditorToken + "\n",
	"/run/secrets/crlf":    eastToken + "\r\n",
	"/run/secrets/padded":  "  " + eastToken + "  \n",
	"/run/secrets/twice":   eastToken + "\n\n",
	"/run/secrets/empty":   "",
}

var sources = principal.Sources{
	LookupEnv: func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	},
	ReadFile: func(name string) ([]byte, error) {
		if v, ok := files[name]; ok {
			return []byte(v), nil
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
		{"unset variable", "principals:\n  - name: a\n    token_env: UNSET\n", "(a): token_env UNSET: the variable is unset"},
		{"empty variable", "principals:\n  - name: a\n    token_env: EMPTY\n", "(a): token_env EMPTY: the token is empty"},
		{"white space around (env)", "principals:\n  - name: a\n    token_env: PADDED\n", "(a): token_env PADDED: the token has white space around it"},
		{"white space inside", "principals:\n  - name: a\n    token_env: INNER\n", "(a): token_env INNER: the token has white space inside it"},
		{"not a bearer token", "principals:\n  - name: a\n    token_env: BADCHAR\n", "(a): token_env BADCHAR: the token holds a character"},
		{"white space around (file)", "principals:\n  - name: a\n    token_file: /run/secrets/padded\n", "(a): token_file /run/secrets/padded: the token has white space around it"},
		{"two line ends", "principals:\n  - name: a\n    token_file: /run/secrets/twice\n", "white space around it"},
		{"empty file", "principals:\n  - name: a\n    token_file: /run/secrets/empty\n", "(a): token_file /run/secrets/empty: the token is empty"},
		{"unreadable file", "principals:\n  - name: a\n    token_file: /nope\n", "(a): token_file /nope: file does not exist"},
		{"bad store", "principals:\n  - name: a\n    token_env: EAST\n    stores: ['st 1']\n", "item 0"},
		{"bad stores word", "principals:\n  - name: a\n    token_env: EAST\n    stores: some\n", `"all"`},
		{"stores and scope", "principals:\n  - name: a\n    token_env: EAST\n    stores: all\n    scope: all\n", "at most one of stores and scope"},
		{"bad scope item", "principals:\n  - name: a\n    token_env: EAST\n    scope: [zone-01, 'a b']\n", "item 1"},
		{"bad scope word", "principals:\n  - name: a\n    token_env: EAST\n    scope: some\n", `"all"`},
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
	tests := []struct {
		name    string
		src     principal.Source
		wantErr string
	}{
		{"env", principal.Source{Env: "EAST"}, ""},
		{"file with a line end", principal.Source{File: "/run/secrets/auditor"}, ""},
		{"file with CRLF", principal.Source{File: "/run/secrets/crlf"}, ""},
		{"short", principal.Source{Env: "SHORT"}, "token_env SHORT: the token is shorter than 16 bytes"},
		{"unset", principal.Source{Env: "UNSET"}, "token_env UNSET: the variable is unset"},
		{"padded env", principal.Source{Env: "PADDED"}, "white space around it"},
		{"inner space", principal.Source{Env: "INNER"}, "white space inside it"},
		{"missing file", principal.Source{File: "/nope"}, "token_file /nope: file does not exist"},
		{"both", principal.Source{Env: "EAST", File: "/nope"}, "exactly one"},
		{"neither", principal.Source{}, "exactly one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := principal.Single("default", tt.src, sources)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Single() error = %v, want %q", err, tt.wantErr)
				}
				for _, secret := range []string{eastToken, auditorToken, "east-ops token"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("error reveals the token: %v", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			token := strings.TrimSpace(env[tt.src.Env] + files[tt.src.File])
			if p, ok := set.Authenticate(token); !ok || !p.Scope.All() {
				t.Errorf("Single principal = %+v, %t", p, ok)
			}
		})
	}
}

// TestBearer: the one parser of the Authorization header.
func TestBearer(t *testing.T) {
	tests := []struct {
		header, want string
		ok           bool
	}{
		{"Bearer " + eastToken, eastToken, true},
		{"bearer " + eastToken, eastToken, true},
		{"BEARER   " + eastToken, eastToken, true},
		{"Bearer abc+/~._-XYZ==", "abc+/~._-XYZ==", true},
		{"", "", false},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Bearer a b", "", false},
		{"Bearer\t" + eastToken, "", false},
		{"Basic " + eastToken, "", false},
		{"Bearer a=b", "", false},
		{"Bearer é", "", false},
		{"Bearer a,b", "", false},
		{"Bearer " + eastToken + " ", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			got, ok := principal.Bearer(tt.header)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Bearer(%q) = %q, %t; want %q, %t", tt.header, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzBearer(f *testing.F) {
	for _, s := range []string{"Bearer " + eastToken, "bearer a b", "Bearer", "Basic x", "Bearer a=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		token, ok := principal.Bearer(header)
		if !ok {
			return
		}
		// A token the parser returns is one principal would accept in a
		// configuration (but for its length), and round-trips.
		if err := principal.CheckToken(token); err != nil && !errors.Is(err, principal.ErrTokenShort) {
			t.Errorf("Bearer(%q) = %q, which CheckToken refuses: %v", header, token, err)
		}
		if again, ok := principal.Bearer("Bearer " + token); !ok || again != token {
			t.Errorf("round trip of %q: %q, %t", token, again, ok)
		}
	})
}

// TestParse_Scope: a catalog engine's principals list its scope entity's
// values under scope:, checked against the catalog's pattern by
// CheckScopes, which names the principal and the item, never the value.
func TestParse_Scope(t *testing.T) {
	set, err := principal.Parse(strings.NewReader("principals:\n  - name: east\n    token_env: EAST\n    scope: [zone-01, zone-02]\n"+
		"  - name: all\n    token_file: /run/secrets/auditor\n    scope: all\n"), sources)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := set.Authenticate(eastToken)
	if !ok || !p.Scope.Allows("zone-02") || p.Scope.Allows("zone-03") {
		t.Errorf("east: %+v %v", p, ok)
	}
	if p, ok := set.Authenticate(auditorToken); !ok || !p.Scope.All() {
		t.Errorf("all: %+v %v", p, ok)
	}
	if err := set.CheckScopes(regexp.MustCompile(`^zone-[0-9]{2}$`), "zone"); err != nil {
		t.Errorf("CheckScopes(zones) = %v", err)
	}
	err = set.CheckScopes(regexp.MustCompile(`^st-[0-9]{3}$`), "store")
	if !errors.Is(err, principal.ErrInvalid) || !strings.Contains(err.Error(), "principal east: scope item 0 is not a store id") ||
		strings.Contains(err.Error(), "zone-01") {
		t.Errorf("CheckScopes(stores) = %v", err)
	}
}
