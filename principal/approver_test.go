package principal

import (
	"errors"
	"strings"
	"testing"
)

// TestParse_Approver: approver is off unless written, and an approver's
// name is one a grant can carry.
func TestParse_Approver(t *testing.T) {
	src := Sources{LookupEnv: func(string) (string, bool) { return "a-token-of-enough-bytes-01", true }}
	set, err := Parse(strings.NewReader("principals:\n  - name: alice\n    token_env: A\n    stores: all\n    approver: true\n"), src)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := set.Authenticate("a-token-of-enough-bytes-01"); !ok || !p.Approver || p.Name != "alice" {
		t.Errorf("alice = %+v, %t; want an approver", p, ok)
	}
	set, err = Parse(strings.NewReader("principals:\n  - name: ops\n    token_env: A\n    stores: all\n"), src)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := set.Authenticate("a-token-of-enough-bytes-01"); p.Approver {
		t.Errorf("ops is an approver without approver: true")
	}
	_, err = Parse(strings.NewReader("principals:\n  - name: Alice Smith\n    token_env: A\n    stores: all\n    approver: true\n"), src)
	if !errors.Is(err, ErrInvalid) || strings.Contains(err.Error(), "Alice Smith") {
		t.Errorf("approver with a spaced name: %v; want ErrInvalid without the name", err)
	}
}
