package memory

import (
	"errors"
	"strings"
	"testing"
)

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func TestVisible(t *testing.T) {
	tests := []struct {
		name    string
		v       Visibility
		reader  *Reader
		want    bool
		wantErr error
	}{
		{"open to everyone", Visibility{}, &Reader{Agent: "a"}, true, nil},
		{"agent scope, same agent", Visibility{Agent: "a"}, &Reader{Agent: "a"}, true, nil},
		{"agent scope, other agent", Visibility{Agent: "a"}, &Reader{Agent: "b"}, false, nil},
		{"tags all, reader holds all", Visibility{Tags: []string{"x", "y"}}, &Reader{Agent: "a", Tags: []string{"y", "x", "z"}}, true, nil},
		{"tags all, reader holds one", Visibility{Tags: []string{"x", "y"}}, &Reader{Agent: "a", Tags: []string{"x"}}, false, nil},
		{"tags all is the default", Visibility{Tags: []string{"x", "y"}}, &Reader{Agent: "a", Tags: []string{"x"}, Match: MatchAll}, false, nil},
		{"tags any, reader holds one", Visibility{Tags: []string{"x", "y"}}, &Reader{Agent: "a", Tags: []string{"y"}, Match: MatchAny}, true, nil},
		{"tags any, reader holds none", Visibility{Tags: []string{"x"}}, &Reader{Agent: "a", Tags: []string{"y"}, Match: MatchAny}, false, nil},
		{"tags, reader has no tags", Visibility{Tags: []string{"x"}}, &Reader{Agent: "a", Match: MatchAny}, false, nil},
		{"agent scope and tags, both met", Visibility{Agent: "a", Tags: []string{"x"}}, &Reader{Agent: "a", Tags: []string{"x"}}, true, nil},
		{"agent scope and tags, tags unmet", Visibility{Agent: "a", Tags: []string{"x"}}, &Reader{Agent: "a"}, false, nil},
		{"purpose listed", Visibility{Purposes: []string{"audit"}}, &Reader{Agent: "a", Purpose: "audit"}, true, nil},
		{"purpose not listed", Visibility{Purposes: []string{"audit"}}, &Reader{Agent: "a", Purpose: "sales"}, false, nil},
		{"purpose missing", Visibility{Purposes: []string{"audit"}}, &Reader{Agent: "a"}, false, nil},
		{"nil reader", Visibility{}, nil, false, ErrNoReader},
		{"reader without agent", Visibility{}, &Reader{Tags: []string{"x"}}, false, ErrNoReader},
		{"reader with a bad match", Visibility{}, &Reader{Agent: "a", Match: "some"}, false, ErrCaller},
		{"reader with a bad agent id", Visibility{}, &Reader{Agent: "a b"}, false, ErrCaller},
		{"invalid visibility tag", Visibility{Tags: []string{""}}, &Reader{Agent: "a"}, false, ErrInvalidRecord},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Visible(tt.v, tt.reader)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				if got {
					t.Error("visible despite an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("visible %v, want %v", got, tt.want)
			}
		})
	}
}
