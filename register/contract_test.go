package register_test

import (
	"context"
	"sync"
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

// lockingMem is a fake register.LockingStore over a MemStore: a mutex
// stands for the database's row lock on the head.
type lockingMem struct {
	*register.MemStore
	mu sync.Mutex
}

func (s *lockingMem) AppendLocked(ctx context.Context, link func(context.Context, register.Head) (register.Record, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	head := register.Head{Len: s.Len(), Hash: register.GenesisHash}
	if head.Len > 0 {
		err := s.Scan(ctx, head.Len-1, func(_ int, r register.Record) error { head.Hash = r.Hash; return nil })
		if err != nil {
			return err
		}
	}
	r, err := link(ctx, head)
	if err != nil {
		return err
	}
	return s.MemStore.Append(ctx, r)
}

// TestLockingStore_Contract runs the suite through Register's
// LockingStore path.
func TestLockingStore_Contract(t *testing.T) {
	registertest.Run(t, func(t *testing.T) registertest.Opener {
		s := &lockingMem{MemStore: register.NewMemStore()}
		return func(*testing.T) register.Store { return s }
	})
}
