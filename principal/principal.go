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
//
// A principal without stores sees nothing: access fails closed.
// Tokens are compared as SHA-256 digests in constant time, against every
// principal, so the time taken does not say which token came close.
package principal

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

// MinTokenBytes is the shortest token accepted.
const MinTokenBytes = 16

// Principal is an authenticated caller.
type Principal struct {
	Name  string
	Scope tool.Scope
}

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

// Single is a set of one principal that may see every store: the
// configuration for one shared token.
func Single(name, token string) (*Set, error) {
	if len(token) < MinTokenBytes {
		return nil, fmt.Errorf("configure token: the token must be at least %d bytes", MinTokenBytes)
	}
	return &Set{entries: []entry{{sha256.Sum256([]byte(token)), Principal{name, tool.AllStores()}}}}, nil
}

// Sources are where tokens are read from; tests supply their own.
type Sources struct {
	Getenv   func(string) string
	ReadFile func(string) ([]byte, error)
}

type file struct {
	Principals []struct {
		Name      string `yaml:"name"`
		TokenEnv  string `yaml:"token_env"`
		TokenFile string `yaml:"token_file"`
		Stores    any    `yaml:"stores"`
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
		}
		names[p.Name] = true
		var token string
		if p.TokenEnv != "" {
			token = src.Getenv(p.TokenEnv)
		} else {
			b, err := src.ReadFile(p.TokenFile)
			if err != nil {
				return nil, invalid("%s (%s): read token_file: %v", at, p.Name, errors.Unwrap(err))
			}
			token = string(bytes.TrimSpace(b))
		}
		if len(token) < MinTokenBytes {
			return nil, invalid("%s (%s): the token is missing or shorter than %d bytes", at, p.Name, MinTokenBytes)
		}
		scope, err := parseStores(p.Stores)
		if err != nil {
			return nil, invalid("%s (%s): stores: %v", at, p.Name, err)
		}
		d := sha256.Sum256([]byte(token))
		if digests[d] {
			return nil, invalid("%s (%s): the token is another principal's", at, p.Name)
		}
		digests[d] = true
		s.entries = append(s.entries, entry{d, Principal{p.Name, scope}})
	}
	return s, nil
}

// parseStores reads "all", a list of store ids, or nothing (no stores).
func parseStores(v any) (tool.Scope, error) {
	switch v := v.(type) {
	case nil:
		return tool.StoresOnly(), nil
	case string:
		if v == "all" {
			return tool.AllStores(), nil
		}
	case []any:
		ids := make([]string, 0, len(v))
		for i, x := range v {
			id, ok := x.(string)
			if !ok || !retail.IsStoreID(id) {
				return tool.Scope{}, fmt.Errorf("item %d is not a store id (st- and 3 digits)", i)
			}
			ids = append(ids, id)
		}
		return tool.StoresOnly(ids...), nil
	}
	return tool.Scope{}, errors.New(`want "all" or a list of store ids`)
}
