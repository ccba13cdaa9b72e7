package shape

import (
	"database/sql"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// TestAssign_NullableAsScan: assign stores every driver value in a
// nullable destination as the destination's own Scan does (its fast
// paths and its fallback alike): the same value, an error on the same
// inputs.
func TestAssign_NullableAsScan(t *testing.T) {
	at := time.Date(2026, 1, 5, 8, 30, 0, 0, time.UTC)
	values := []any{nil, "zone-01", "", "2.5", "17", []byte("raw"), int64(17), int64(-3), 2.5, 0.0, true, at}
	dests := []func() any{
		func() any { return &sql.NullString{String: "old", Valid: true} },
		func() any { return &sql.NullFloat64{Float64: 9, Valid: true} },
		func() any { return &sql.NullTime{Time: at.Add(time.Hour), Valid: true} },
		func() any { return &sql.NullInt64{Int64: 9, Valid: true} },
	}
	for _, mk := range dests {
		for _, v := range values {
			t.Run(fmt.Sprintf("%T/%T(%v)", mk(), v, v), func(t *testing.T) {
				got, want := mk(), mk()
				gerr := assign(got, v)
				werr := want.(sql.Scanner).Scan(v)
				if (gerr != nil) != (werr != nil) {
					t.Fatalf("assign error %v, Scan error %v", gerr, werr)
				}
				if werr == nil && !reflect.DeepEqual(got, want) {
					t.Errorf("assign gave %+v, Scan %+v", got, want)
				}
			})
		}
	}
}
