package eventlog_test

import (
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventlogtest"
)

func TestMemStore_Contract(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) eventlogtest.Opener {
		s := &eventlog.MemStore{}
		return func(*testing.T) eventlog.Store { return s }
	})
}

func TestFileStore_Contract(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) eventlogtest.Opener {
		path := filepath.Join(t.TempDir(), "events.jsonl")
		return func(t *testing.T) eventlog.Store {
			s, err := eventlog.OpenFileStore(t.Context(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
