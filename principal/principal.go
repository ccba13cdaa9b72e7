// Package principal holds who may call the engine's network surfaces: named
// principals, each with a bearer token and a scope (the stores it may
// see), loaded from a YAML file whose tokens live in environment variables
// or files, never in the file itself.
//
//	principals:
//	  - name: east-ops
//	    token_env: EAST_OPS_TOKEN      # or token_file: /run/secrets/east-ops
//	    stores: [st-001, st-002]
//	  - name: auditor
//	    token_file: /run/secrets/auditor
//	    stores: all
//	  - name: alice
//	    token_file: /run/secrets/alice
//	    stores: all
//	    approver: true                 # may approve elevations (POST /v1/approvals)
//
// A principal lists the values of the catalog's scope entity under
// scope: (scope: [zone-01] for the warehouse catalog); stores: is the
// same list under the retail demo's name for it. Either is checked
// against the scope entity's id pattern when the engine starts
// (CheckScopes).
//
// A principal without stores sees nothing: access fails closed. A token
// no client could present (see CheckToken) is refused when the file is
// read, with an error naming the principal and the source, never the
// token. Bearer is the one parser of the Authorization header.
// Tokens are compared as SHA-256 digests in constant time, against every
// principal, so the time taken does not say which token came close.
package principal

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode"

	"github.com/goccy/go-yaml"

	"github.com/provenant/provenant/tool"
)

// MinTokenBytes is the shortest token accepted.
const MinTokenBytes = 16

// Principal is an authenticated caller.
type Principal struct {
	Name  string
	Scope tool.Scope
	// Approver: the principal is a human operator who may approve an
	// elevation of a session's autonomy tier (approver: true in the
	// file; off unless written). Its name then matches ApproverName.
	Approver bool
}

// ApproverName is what an approver's name matches: it is the name the
// grant and the decision record carry.
var ApproverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$`)

type entry struct {
	digest [sha256.Size]byte
	p      Principal
}

// Set is the principals a server accepts. Safe for concurrent use.
type Set struct {
	entries []entry
}

// Authenticate returns the principal whose token this is.
func (s *Set) Authenticate(token string) (Principal, bool) {
	d := sha256.Sum256([]byte(token))
	var (
		found Principal
		ok    int
	)
	for _, e := range s.entries { // every entry, whatever matched
		if subtle.ConstantTimeCompare(d[:], e.digest[:]) == 1 {
			found, ok = e.p, 1
		}
	}
	return found, ok == 1
}

// Len reports how many principals the set holds.
func (s *Set) Len() int { return len(s.entries) }

// Names returns the principals' names, in the file's order.
func (s *Set) Names() []string {
	out := make([]string, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.p.Name
	}
	return out
}

// Single is a set of one principal that may see every store: the
// configuration for one shared token, read from src.
func Single(name string, src Source, from Sources) (*Set, error) {
	token, err := from.token(src)
	if err != nil {
		return nil, fmt.Errorf("configure token: %w", err)
	}
	return &Set{entries: []entry{{sha256.Sum256([]byte(token)), Principal{Name: name, Scope: tool.AllStores()}}}}, nil
}

// Source is where one token is: exactly one of an environment variable
// and a file.
type Source struct {
	Env  string // the variable's name
	File string // the file's path
}

// Sources are where tokens are read from; OS is the real one, tests
// supply their own.
type Sources struct {
	LookupEnv func(string) (string, bool)
	ReadFile  func(string) ([]byte, error)
}

// OS reads tokens from the process environment and the file system.
func OS() Sources { return Sources{LookupEnv: os.LookupEnv, ReadFile: os.ReadFile} }

// token reads the token src names and checks that a client could ever
// present it. A file's one final line end ("\n" or "\r\n") is not part of
// the token; nothing else is trimmed, from a file or a variable, so a
// token that could never match is an error here rather than a silent
// 401 later. Errors name the source, never the token.
func (from Sources) token(src Source) (string, error) {
	var token string
	switch {
	case (src.Env == "") == (src.File == ""):
		return "", errors.New("give exactly one of token_env and token_file")
	case src.Env != "":
		v, ok := from.LookupEnv(src.Env)
		if !ok {
			return "", fmt.Errorf("token_env %s: the variable is unset", src.Env)
		}
		token = v
		if err := CheckToken(token); err != nil {
			return "", fmt.Errorf("token_env %s: %w", src.Env, err)
		}
	default:
		b, err := from.ReadFile(src.File)
		if err != nil {
			if u := errors.Unwrap(err); u != nil {
				err = u // the path is named once, below
			}
			return "", fmt.Errorf("token_file %s: %w", src.File, err)
		}
		token = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		if err := CheckToken(token); err != nil {
			return "", fmt.Errorf("token_file %s: %w", src.File, err)
		}
	}
	return token, nil
}

// Errors of CheckToken.
var (
	ErrTokenEmpty  = errors.New("the token is empty")
	ErrTokenPadded = errors.New("the token has white space around it")
	ErrTokenSpace  = errors.New("the token has white space inside it")
	ErrTokenSyntax = errors.New("the token holds a character a bearer token cannot carry (letters, digits, -._~+/ and a trailing =)")
	ErrTokenShort  = fmt.Errorf("the token is shorter than %d bytes", MinTokenBytes)
)

// CheckToken reports why a configured token could never be presented in
// an Authorization header, or is too short to be a secret.
func CheckToken(token string) error {
	switch {
	case token == "":
		return ErrTokenEmpty
	case strings.TrimSpace(token) != token:
		return ErrTokenPadded
	case strings.ContainsFunc(token, unicode.IsSpace):
		return ErrTokenSpace
	case !isB64Token(token):
		return ErrTokenSyntax
	case len(token) < MinTokenBytes:
		return ErrTokenShort
	}
	return nil
}

// Bearer is the one parser of an Authorization header: "Bearer", in any
// letter case, one or more spaces, and a token in RFC 6750's b64token
// syntax (ASCII letters, digits, -._~+/, then any number of =), and
// nothing else.
func Bearer(header string) (token string, ok bool) {
	scheme, rest, found := strings.Cut(header, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimLeft(rest, " ")
	if !isB64Token(token) {
		return "", false
	}
	return token, true
}

func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}

type file struct {
	Principals []struct {
		Name      string `yaml:"name"`
		TokenEnv  string `yaml:"token_env"`
		TokenFile string `yaml:"token_file"`
		Stores    any    `yaml:"stores"`
		Scope     any    `yaml:"scope"`
		Approver  bool   `yaml:"approver"`
	} `yaml:"principals"`
}

// ErrInvalid is matched by every configuration error Parse returns.
var ErrInvalid = errors.New("invalid principals file")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// Parse reads a principals file. Unknown keys are errors with their line
// and column; an error names the principal and field, never a token.
func Parse(r io.Reader, src Sources) (*Set, error) {
	data, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("read principals file: %w", err)
	}
	var f file
	if err := yaml.UnmarshalWithOptions(data, &f, yaml.Strict()); err != nil {
		return nil, invalid("%s", yaml.FormatError(err, false, false))
	}
	if len(f.Principals) == 0 {
		return nil, invalid("no principals")
	}
	s := &Set{}
	names := map[string]bool{}
	digests := map[[sha256.Size]byte]bool{}
	for i, p := range f.Principals {
		at := fmt.Sprintf("principals[%d]", i)
		switch {
		case p.Name == "" || len(p.Name) > 64 || strings.ContainsFunc(p.Name, func(r rune) bool { return r < ' ' || r == 0x7f }):
			return nil, invalid("%s: name must be 1 to 64 printable characters", at)
		case names[p.Name]:
			return nil, invalid("%s: duplicate name", at)
		case (p.TokenEnv == "") == (p.TokenFile == ""):
			return nil, invalid("%s (%s): give exactly one of token_env and token_file", at, p.Name)
		case p.Approver && !ApproverName.MatchString(p.Name):
			return nil, invalid("%s: an approver's name is a letter or digit, then up to 63 of letters, digits, _ . : -", at)
		}
		names[p.Name] = true
		token, err := src.token(Source{Env: p.TokenEnv, File: p.TokenFile})
		if err != nil {
			return nil, invalid("%s (%s): %v", at, p.Name, err)
		}
		var scope tool.Scope
		switch {
		case p.Stores != nil && p.Scope != nil:
			return nil, invalid("%s (%s): give at most one of stores and scope", at, p.Name)
		case p.Scope != nil:
			if scope, err = parseScope(p.Scope); err != nil {
				return nil, invalid("%s (%s): scope: %v", at, p.Name, err)
			}
		default:
			if scope, err = parseStores(p.Stores); err != nil {
				return nil, invalid("%s (%s): stores: %v", at, p.Name, err)
			}
		}
		d := sha256.Sum256([]byte(token))
		if digests[d] {
			return nil, invalid("%s (%s): the token is another principal's", at, p.Name)
		}
		digests[d] = true
		s.entries = append(s.entries, entry{d, Principal{Name: p.Name, Scope: scope, Approver: p.Approver}})
	}
	return s, nil
}

// scopeID is a value of a catalog's scope entity as a principals file may
// list it; the catalog's own pattern is checked when an engine starts
// (CheckScopes).
var scopeID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$`)

// parseScope reads "all" or a list of values of a catalog's scope entity
// (the zones of the warehouse catalog, say).
func parseScope(v any) (tool.Scope, error) {
	return parseIDs(v, scopeID.MatchString,
		"is not an id (a letter or digit, then up to 63 of letters, digits, _ . : -)",
		`want "all" or a list of ids of the catalog's scope entity`)
}

// parseIDs reads "all" or a list of ids each valid accepts.
func parseIDs(v any, valid func(string) bool, badItem, badValue string) (tool.Scope, error) {
	switch v := v.(type) {
	case string:
		if v == "all" {
			return tool.AllStores(), nil
		}
	case []any:
		ids := make([]string, 0, len(v))
		for i, x := range v {
			id, ok := x.(string)
			if !ok || !valid(id) {
				return tool.Scope{}, fmt.Errorf("item %d %s", i, badItem)
			}
			ids = append(ids, id)
		}
		return tool.StoresOnly(ids...), nil
	}
	return tool.Scope{}, errors.New(badValue)
}

// CheckScopes checks every principal's scope against a pattern of the
// scope entity's ids (a catalog's), naming the principal and item at
// fault, never the value.
func (s *Set) CheckScopes(pattern *regexp.Regexp, entity string) error {
	for _, e := range s.entries {
		for i, id := range e.p.Scope.Stores() {
			if !pattern.MatchString(id) {
				return invalid("principal %s: scope item %d is not a %s id", e.p.Name, i, entity)
			}
		}
	}
	return nil
}

// parseStores reads stores:, the retail demo's name for scope: "all", a
// list of ids, or nothing (none).
func parseStores(v any) (tool.Scope, error) {
	if v == nil {
		return tool.StoresOnly(), nil
	}
	return parseScope(v)
}
