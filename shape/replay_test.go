package shape

import (
	"testing"
	"time"
)

// TestStmt_Is: a replayed query answers only the same text with equal
// arguments of the same kinds; times compare as instants.
func TestStmt_Is(t *testing.T) {
	at := time.Date(2026, 1, 9, 12, 0, 0, 0, time.UTC)
	st := Stmt{SQL: "SELECT $1, $2, $3", Args: []any{"dev-1", int64(7), at}}
	tests := []struct {
		name string
		sql  string
		args []any
		want bool
	}{
		{"same", st.SQL, []any{"dev-1", int64(7), at}, true},
		{"same instant in another zone", st.SQL, []any{"dev-1", int64(7), at.In(time.FixedZone("x", 3600))}, true},
		{"other text", "SELECT $1, $2, $4", []any{"dev-1", int64(7), at}, false},
		{"other string", st.SQL, []any{"dev-2", int64(7), at}, false},
		{"other number", st.SQL, []any{"dev-1", int64(8), at}, false},
		{"same digits, other kind", st.SQL, []any{"dev-1", "7", at}, false},
		{"other instant", st.SQL, []any{"dev-1", int64(7), at.Add(time.Nanosecond)}, false},
		{"fewer arguments", st.SQL, []any{"dev-1", int64(7)}, false},
		{"more arguments", st.SQL, []any{"dev-1", int64(7), at, nil}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := st.is(tt.sql, tt.args); got != tt.want {
				t.Errorf("is = %v, want %v", got, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		a, b any
		want bool
	}{
		{1.5, 1.5, true}, {1.5, 2.5, false}, {true, true, true}, {true, false, false},
		{3, 3, true}, {3, int64(3), false}, {nil, nil, true}, {[]byte("a"), []byte("a"), true}, {[]byte("a"), []byte("b"), false},
	} {
		if got := sameArg(tt.a, tt.b); got != tt.want {
			t.Errorf("sameArg(%#v, %#v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
