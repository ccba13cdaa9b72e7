// Package enginetest opens engines over the embedded demo store, for
// tests of the surfaces built on an engine.
package enginetest

import (
	"testing"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail/demo"
)

// OpenDemo opens an engine over the demo store with opts (the rules
// provider when opts names none) and closes it when tb ends.
func OpenDemo(tb testing.TB, opts engine.Options) *engine.Engine {
	tb.Helper()
	d, err := demo.Load()
	if err != nil {
		tb.Fatal(err)
	}
	if opts.Provider == nil {
		opts.Provider = rules.Provider{}
	}
	e, err := engine.Open(tb.Context(), d, engine.OpenMemory, &opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}
