package metric

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Table is a metric's value per group: one row per combination of the
// requested dimensions' values (and bucket) that some contributing row
// has, or exactly one row when there are neither dimensions nor buckets.
type Table struct {
	Dimensions []string
	Bucketed   bool
	Rows       []Row
	// Keys are the keys of the contributing rows (those in a group after
	// the window, the scope and the filters), sorted; filled by Rederive
	// alone.
	Keys []string
}

// Row is one group's value. A nil dimension value is empty (a reference
// row missing); a nil Value is no value (a ratio over nothing, an average
// of no rows).
type Row struct {
	Dims   []*string
	Bucket time.Time // the bucket's first instant, UTC; zero when not bucketed
	Value  *float64
}

// Querier runs a query: *sql.DB, *sql.Tx and *sql.Conn are ones.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Run executes the compiled query. A table of more than MaxRows rows is
// ErrTooManyRows, read no further.
func (q *Query) Run(ctx context.Context, db Querier) (*Table, error) {
	rows, err := db.QueryContext(ctx, q.SQL, q.Args...)
	if err != nil {
		return nil, fmt.Errorf("run metric query: %w", err)
	}
	defer rows.Close()
	t := &Table{Dimensions: slices.Clone(q.Dimensions), Bucketed: q.Bucketed}
	n := len(q.Dimensions)
	for rows.Next() {
		if len(t.Rows) == MaxRows {
			return nil, fmt.Errorf("run metric query: %w", ErrTooManyRows)
		}
		dims := make([]sql.NullString, n)
		var bucket sql.NullTime
		var v sql.NullFloat64
		dest := make([]any, 0, n+2)
		for i := range dims {
			dest = append(dest, &dims[i])
		}
		if q.Bucketed {
			dest = append(dest, &bucket)
		}
		dest = append(dest, &v)
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("run metric query: %w", err)
		}
		r := Row{Dims: make([]*string, n)}
		for i, d := range dims {
			if d.Valid {
				s := d.String
				r.Dims[i] = &s
			}
		}
		if q.Bucketed && bucket.Valid {
			r.Bucket = bucket.Time.UTC()
		}
		if v.Valid {
			f := v.Float64
			r.Value = &f
		}
		t.Rows = append(t.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("run metric query: %w", err)
	}
	return t, nil
}

// groupKey identifies a row's group: its dimension values and bucket.
func (r Row) groupKey() string {
	var b strings.Builder
	for _, d := range r.Dims {
		if d == nil {
			b.WriteString("\x00null")
		} else {
			b.WriteString("\x00=" + *d)
		}
	}
	if !r.Bucket.IsZero() {
		b.WriteString("\x00@" + r.Bucket.UTC().Format(time.RFC3339))
	}
	return b.String()
}

// GroupLabel renders a row's group for messages: dimension=value pairs
// and the bucket.
func (t *Table) GroupLabel(r Row) string {
	var parts []string
	for i, d := range r.Dims {
		v := "(empty)"
		if d != nil {
			v = *d
		}
		parts = append(parts, t.Dimensions[i]+"="+v)
	}
	if t.Bucketed {
		parts = append(parts, "bucket="+r.Bucket.UTC().Format(time.RFC3339))
	}
	if len(parts) == 0 {
		return "(all)"
	}
	return strings.Join(parts, " ")
}

// Agree reports whether two values agree within a relative tolerance:
// both absent, or both present with |a-b| <= tol * max(1, |a|, |b|).
func Agree(a, b *float64, tol float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	scale := math.Max(1, math.Max(math.Abs(*a), math.Abs(*b)))
	return math.Abs(*a-*b) <= tol*scale
}

// MismatchError is a compiled table that its re-derivation does not
// confirm.
type MismatchError struct {
	Reason string
}

func (e *MismatchError) Error() string { return "metric re-derivation disagrees: " + e.Reason }

// Verify checks a compiled table got against the re-derivation want (every
// group, before any limit) under req's order and limit: every group of got
// is in want with a value that agrees within tol; without a limit both
// have the same groups; with one, got holds min(limit, len(want)) groups,
// in order of value, and no group left out beats one kept (beyond tol).
func Verify(req Request, got, want *Table, tol float64) error {
	if len(got.Dimensions) != len(want.Dimensions) || got.Bucketed != want.Bucketed {
		return &MismatchError{"the tables have different columns"}
	}
	index := make(map[string]Row, len(want.Rows))
	for _, r := range want.Rows {
		index[r.groupKey()] = r
	}
	seen := make(map[string]bool, len(got.Rows))
	for _, r := range got.Rows {
		k := r.groupKey()
		if seen[k] {
			return &MismatchError{"group " + got.GroupLabel(r) + " appears twice"}
		}
		seen[k] = true
		w, ok := index[k]
		if !ok {
			return &MismatchError{"group " + got.GroupLabel(r) + " is not in the re-derivation"}
		}
		if !Agree(r.Value, w.Value, tol) {
			return &MismatchError{fmt.Sprintf("group %s: compiled %s, re-derived %s", got.GroupLabel(r), show(r.Value), show(w.Value))}
		}
	}
	wantN := len(want.Rows)
	if req.Limit > 0 {
		wantN = min(req.Limit, wantN)
	}
	if len(got.Rows) != wantN {
		return &MismatchError{fmt.Sprintf("%d groups, want %d", len(got.Rows), wantN)}
	}
	if req.Order.By != OrderValue {
		return nil
	}
	// better reports whether a comes before b beyond the tolerance.
	better := func(a, b *float64) bool {
		switch {
		case a == nil:
			return false
		case b == nil:
			return true
		case Agree(a, b, tol):
			return false
		case req.Order.Desc:
			return *a > *b
		}
		return *a < *b
	}
	for i := 1; i < len(got.Rows); i++ {
		if better(got.Rows[i].Value, got.Rows[i-1].Value) {
			return &MismatchError{"rows out of order at " + got.GroupLabel(got.Rows[i])}
		}
	}
	if len(got.Rows) > 0 {
		last := got.Rows[len(got.Rows)-1]
		for _, w := range want.Rows {
			if !seen[w.groupKey()] && better(w.Value, last.Value) {
				return &MismatchError{"group " + want.GroupLabel(w) + " is left out but beats a kept one"}
			}
		}
	}
	return nil
}

func show(f *float64) string {
	if f == nil {
		return "no value"
	}
	return fmt.Sprint(*f)
}
