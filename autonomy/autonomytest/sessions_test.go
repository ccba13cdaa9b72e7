package autonomytest_test

import (
	"testing"

	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/autonomy/autonomytest"
)

func TestSessions_Contract(t *testing.T) {
	autonomytest.Run(t, autonomytest.Backend{New: func(t *testing.T) autonomytest.Opener {
		return func(tools []autonomy.Tool, opts *autonomy.GateOptions) (autonomy.Store, error) {
			return autonomy.NewSessions(tools, opts)
		}
	}})
}
