package register_test

import (
	"testing"

	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/register/registertest"
)

func TestMemStore_Contract(t *testing.T) {
	registertest.Run(t, func(t *testing.T) registertest.Opener {
		s := register.NewMemStore()
		return func(*testing.T) register.Store { return s }
	})
}
