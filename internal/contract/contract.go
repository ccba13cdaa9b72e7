// Package contract holds what every store contract suite does the same
// way (eventlogtest, registertest, and any suite like them): run named
// cases each on a fresh place, and open a handle on a place that is
// closed at the end of the test. The suites keep their own cases.
package contract

import (
	"io"
	"testing"
)

// Case is one named check of a suite, run on one fresh place, where O
// opens handles on that place.
type Case[O any] struct {
	Name string
	Fn   func(t *testing.T, open O)
}

// Run runs each case in a subtest of its name, on a place newPlace makes
// fresh for it.
func Run[O any](t *testing.T, newPlace func(t *testing.T) O, cases []Case[O]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { c.Fn(t, newPlace(t)) })
	}
}

// Handle opens a store with open and closes it at the end of the test.
func Handle[S any](t *testing.T, open func(t *testing.T) S) S {
	t.Helper()
	s := open(t)
	t.Cleanup(func() { Close(t, s) })
	return s
}

// Close closes s when it has a Close method, failing t on its error.
func Close(t *testing.T, s any) {
	t.Helper()
	if c, ok := s.(io.Closer); ok {
		if err := c.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	}
}
