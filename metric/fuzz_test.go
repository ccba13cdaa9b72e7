package metric

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// FuzzCompile: whatever names and values a request carries, Compile
// returns SQL or a *RequestError, never panics, and no value of the
// request reaches the SQL text.
func FuzzCompile(f *testing.F) {
	cat := loadCatalog(f, "warehouse")
	f.Add("availability", "zone", "device", "eq", "dev-0001", "none", "value", 3, int64(0), int64(3600))
	f.Add("fault_count", "device_type", "device_type", "in", "AGV", "day", "", 0, int64(-100), int64(100))
	f.Add("x", "y", "z", "w", hostile, "week", "zone", -1, int64(5), int64(5))
	f.Fuzz(func(t *testing.T, m, dim, fdim, op, value, grain, orderBy string, limit int, start, end int64) {
		base := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
		req := Request{Metric: m, Dimensions: []string{dim}, Grain: grain, Order: Order{By: orderBy}, Limit: limit,
			Filters: []Filter{{Dimension: fdim, Op: op, Values: []string{value}}},
			Start:   base.Add(time.Duration(start%1e6) * time.Second), End: base.Add(time.Duration(end%1e6) * time.Second),
			Scope: Only(value)}
		q, err := Compile(cat, req, nil)
		if err != nil {
			if !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("Compile = %v, want a *RequestError", err)
			}
			if len(value) > 8 && strings.Contains(err.Error(), value) {
				t.Fatalf("error echoes the value: %v", err)
			}
			return
		}
		if len(value) > 3 && strings.Contains(q.SQL, value) {
			t.Fatalf("SQL holds the request's value %q:\n%s", value, q.SQL)
		}
	})
}
