package metric

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/catalog"
)

func loadCatalog(t testing.TB, name string) *catalog.Catalog {
	t.Helper()
	c, err := catalog.LoadFS(os.DirFS("../catalogs"), name+".yaml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	day1 = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	day3 = time.Date(2026, 1, 7, 0, 0, 0, 0, time.UTC)
)

// hostile is a value no SQL text may contain.
const hostile = "x' OR 1=1; DROP TABLE events; --"

func TestCompile_RequestErrors(t *testing.T) {
	cat := loadCatalog(t, "retail")
	ok := Request{Metric: "scan_count", Start: day1, End: day3, Scope: All()}
	tests := []struct {
		name  string
		edit  func(*Request)
		field string
	}{
		{"unknown metric", func(r *Request) { r.Metric = hostile }, "metric"},
		{"dimension not allowed", func(r *Request) { r.Dimensions = []string{hostile} }, "dimensions[0]"},
		{"time dimension as a group", func(r *Request) { r.Dimensions = []string{"scan_time"} }, "dimensions[0]"},
		{"repeated dimension", func(r *Request) { r.Dimensions = []string{"store", "store"} }, "dimensions[1]"},
		{"unknown grain", func(r *Request) { r.Grain = hostile }, "grain"},
		{"grain of a metric not bucketed", func(r *Request) { r.Metric, r.Grain = "out_of_stock_share", "day" }, "grain"},
		{"empty window", func(r *Request) { r.End = r.Start }, "window"},
		{"no window", func(r *Request) { r.Start, r.End = time.Time{}, time.Time{} }, "window"},
		{"no end", func(r *Request) { r.End = time.Time{} }, "window"},
		{"unknown operator", func(r *Request) {
			r.Filters = []Filter{{Dimension: "store", Op: hostile, Values: []string{"st-001"}}}
		}, "filters[0].op"},
		{"filter on an undeclared dimension", func(r *Request) {
			r.Filters = []Filter{{Dimension: hostile, Op: "eq", Values: []string{"st-001"}}}
		}, "filters[0].dimension"},
		{"eq with two values", func(r *Request) {
			r.Filters = []Filter{{Dimension: "store", Op: "eq", Values: []string{"st-001", "st-002"}}}
		}, "filters[0].values"},
		{"id not matching the pattern", func(r *Request) {
			r.Filters = []Filter{{Dimension: "store", Op: "eq", Values: []string{hostile}}}
		}, "filters[0].values[0]"},
		{"undeclared enumerated value", func(r *Request) {
			r.Filters = []Filter{{Dimension: "state", Op: "in", Values: []string{"IN_STOCK", hostile}}}
		}, "filters[0].values[1]"},
		{"undeclared reference value", func(r *Request) {
			r.Filters = []Filter{{Dimension: "category", Op: "ne", Values: []string{hostile}}}
		}, "filters[0].values[0]"},
		{"order by an unrequested dimension", func(r *Request) { r.Order = Order{By: "store"} }, "order"},
		{"limit without order by value", func(r *Request) { r.Limit = 3 }, "limit"},
		{"limit too large", func(r *Request) { r.Order, r.Limit = Order{By: OrderValue}, MaxLimit+1 }, "limit"},
		// A cumulative metric gives every bucket of the window a row: a
		// window of centuries by day was a spine of millions of VALUES
		// rows, which took the server's memory before the ask timeout.
		{"cumulative spine too long", func(r *Request) {
			r.Metric, r.Grain = "cumulative_scans", "day"
			r.End = r.Start.AddDate(0, 0, MaxBuckets+1)
		}, "window"},
		{"cumulative spine of centuries", func(r *Request) {
			r.Metric, r.Grain = "cumulative_scans", "month"
			r.Start, r.End = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 30, 0, 0, 0, 0, time.UTC)
		}, "window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := ok
			tt.edit(&req)
			_, err := Compile(cat, req, nil)
			var re *RequestError
			if !errors.As(err, &re) || !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("Compile = %v, want a *RequestError", err)
			}
			if re.Field != tt.field {
				t.Errorf("field %q, want %q (%v)", re.Field, tt.field, err)
			}
			if strings.Contains(err.Error(), "DROP") || strings.Contains(err.Error(), "1=1") {
				t.Errorf("error echoes the request: %v", err)
			}
			if cerr := Check(cat, req); cerr == nil || cerr.Error() != err.Error() {
				t.Errorf("Check = %v, want %v", cerr, err)
			}
			// The re-derivation refuses the same request the same way.
			if _, err := Rederive(t.Context(), nil, cat, req, nil); !errors.Is(err, ErrInvalidRequest) {
				t.Errorf("Rederive = %v, want ErrInvalidRequest", err)
			}
		})
	}
	if _, err := Compile(cat, ok, nil); err != nil {
		t.Errorf("Compile(valid) = %v", err)
	}
	longest := Request{Metric: "cumulative_scans", Grain: "day", Start: day1, End: day1.AddDate(0, 0, MaxBuckets), Scope: All()}
	if _, err := Compile(cat, longest, nil); err != nil {
		t.Errorf("Compile(%d day buckets) = %v", MaxBuckets, err)
	}
	// A metric that is not cumulative has rows only where data is: its
	// window is not bounded by buckets.
	long := Request{Metric: "scan_count", Grain: "day", Start: day1.AddDate(-100, 0, 0), End: day3, Scope: All()}
	if err := Check(cat, long); err != nil {
		t.Errorf("Check(a century of scan_count by day) = %v", err)
	}
}

// TestCompile_WindowFromYearOne: a window may start at the first instant
// the wall admits, 0001-01-01T00:00:00Z (tool.FirstInstant), which is
// Go's zero time: such a call was refused as "wants a start and an end"
// although it named both.
func TestCompile_WindowFromYearOne(t *testing.T) {
	cat := loadCatalog(t, "retail")
	first, err := time.Parse(time.RFC3339, "0001-01-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, metric, grain string
	}{
		{"count", "scan_count", ""},
		{"count by month", "scan_count", "month"},
		{"share", "out_of_stock_share", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Metric: tt.metric, Grain: tt.grain, Start: first, End: day3, Scope: All()}
			if err := Check(cat, req); err != nil {
				t.Errorf("Check = %v, want a valid request", err)
			}
			if _, err := Compile(cat, req, nil); err != nil {
				t.Errorf("Compile = %v, want a query", err)
			}
		})
	}
}

// TestCompile_NoSplicing: values from a request reach the SQL only as
// parameters, whatever the metric; the SQL names only declared tables.
func TestCompile_NoSplicing(t *testing.T) {
	for _, name := range []string{"retail", "warehouse"} {
		cat := loadCatalog(t, name)
		scope := "st-999"
		filter := Filter{Dimension: "store", Op: "in", Values: []string{"st-998", "st-997"}}
		if name == "warehouse" {
			scope, filter = "zone-99", Filter{Dimension: "device", Op: "not_in", Values: []string{"dev-9998", "dev-9997"}}
		}
		for _, m := range cat.Metrics {
			t.Run(m.Name.Value, func(t *testing.T) {
				req := Request{Metric: m.Name.Value, Start: day1, End: day3, Scope: Only(scope), Filters: []Filter{filter},
					Dimensions: []string{m.Dimensions[len(m.Dimensions)-1].Value}, Order: Order{By: OrderValue, Desc: true}, Limit: 7}
				q, err := Compile(cat, req, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range append([]string{scope, "2026-01-05", "2026-01-07"}, filter.Values...) {
					if strings.Contains(q.SQL, v) {
						t.Errorf("SQL contains the request's value %q:\n%s", v, q.SQL)
					}
					found := false
					for _, a := range q.Args {
						if s, ok := a.(string); ok && strings.Contains(s, v) {
							found = true
						}
					}
					// A latest metric does not read the window's start.
					if !found && v != "2026-01-05" {
						t.Errorf("value %q is not a parameter", v)
					}
				}
				if !slices.Contains(q.Args, any(int64(7))) || strings.Contains(q.SQL, " 7") {
					t.Errorf("the limit is not a parameter: %s %v", q.SQL, q.Args)
				}
				declared := Tables(cat)
				for _, tb := range q.Tables {
					if !slices.Contains(declared, tb) {
						t.Errorf("reads table %s, which the catalog does not declare", tb)
					}
				}
				if len(q.Hash()) != 64 {
					t.Errorf("Hash = %q", q.Hash())
				}
			})
		}
	}
}

// TestCompile_Relations: Options move a dataset and a reference to other
// relations, and the query reads those.
func TestCompile_Relations(t *testing.T) {
	cat := loadCatalog(t, "retail")
	req := Request{Metric: "scan_count", Start: day1, End: day3, Scope: All(), Dimensions: []string{"category"}}
	q, err := Compile(cat, req, &Options{Relations: map[string]string{"scans": "s1.ev"}, References: map[string]string{"product": "ref_products"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ref_products", "s1.ev"}; !slices.Equal(q.Tables, want) {
		t.Errorf("Tables = %v, want %v", q.Tables, want)
	}
	if !strings.Contains(q.SQL, `"s1"."ev"`) || !strings.Contains(q.SQL, `"ref_products"`) {
		t.Errorf("SQL does not read the relations:\n%s", q.SQL)
	}
}

func TestTruncate(t *testing.T) {
	at := time.Date(2026, 1, 29, 15, 4, 5, 0, time.UTC) // a Thursday
	tests := []struct{ grain, want string }{
		{"day", "2026-01-29T00:00:00Z"},
		{"week", "2026-01-26T00:00:00Z"},
		{"month", "2026-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		if got := truncate(at, tt.grain).Format(time.RFC3339); got != tt.want {
			t.Errorf("truncate(%s) = %s, want %s", tt.grain, got, tt.want)
		}
	}
	sunday := time.Date(2026, 2, 1, 23, 0, 0, 0, time.UTC)
	if got := truncate(sunday, "week").Format(time.RFC3339); got != "2026-01-26T00:00:00Z" {
		t.Errorf("truncate(Sunday, week) = %s", got)
	}
}

func TestVerify(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	s := func(v string) *string { return &v }
	want := &Table{Dimensions: []string{"store"}, Rows: []Row{
		{Dims: []*string{s("a")}, Value: f(1)}, {Dims: []*string{s("b")}, Value: f(3)}, {Dims: []*string{s("c")}, Value: f(2)}, {Dims: []*string{nil}, Value: nil},
	}}
	top2 := Request{Order: Order{By: OrderValue, Desc: true}, Limit: 2}
	tests := []struct {
		name    string
		req     Request
		rows    []Row
		wantErr string
	}{
		{"all, any order", Request{}, []Row{want.Rows[3], want.Rows[1], want.Rows[0], want.Rows[2]}, ""},
		{"within tolerance", Request{}, []Row{{Dims: []*string{s("a")}, Value: f(1 + 1e-12)}, want.Rows[1], want.Rows[2], want.Rows[3]}, ""},
		{"a value off", Request{}, []Row{{Dims: []*string{s("a")}, Value: f(1.001)}, want.Rows[1], want.Rows[2], want.Rows[3]}, "group store=a: compiled 1.001, re-derived 1"},
		{"a group missing", Request{}, want.Rows[:3], "3 groups, want 4"},
		{"an extra group", Request{}, append(slices.Clone(want.Rows), Row{Dims: []*string{s("d")}, Value: f(1)}), "group store=d is not in the re-derivation"},
		{"no value against a value", Request{}, []Row{want.Rows[0], want.Rows[1], want.Rows[2], {Dims: []*string{nil}, Value: f(0)}}, "compiled 0, re-derived no value"},
		{"top two", top2, []Row{want.Rows[1], want.Rows[2]}, ""},
		{"top two out of order", top2, []Row{want.Rows[2], want.Rows[1]}, "rows out of order"},
		{"top two missing the best", top2, []Row{want.Rows[2], want.Rows[0]}, "left out but beats a kept one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := &Table{Dimensions: want.Dimensions, Rows: tt.rows}
			err := Verify(tt.req, got, want, DefaultTolerance)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Verify = %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Verify = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// DefaultTolerance is catalog.DefaultTolerance, for the tests.
const DefaultTolerance = catalog.DefaultTolerance

// TestCompile_FilesNeedARelation: a dataset read from files has no table;
// without a relation in Options the request is refused, not rendered.
func TestCompile_FilesNeedARelation(t *testing.T) {
	b, err := os.ReadFile("../catalogs/warehouse.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load(strings.NewReader(strings.Replace(string(b), "table: status_events", "files: data/*.parquet", 1)), "w.yaml")
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Metric: "availability", Start: day1, End: day3, Scope: All()}
	if _, err := Compile(cat, req, nil); !errors.Is(err, ErrNoRelation) {
		t.Errorf("Compile = %v, want ErrNoRelation", err)
	}
	if _, err := Rederive(t.Context(), nil, cat, req, nil); !errors.Is(err, ErrNoRelation) {
		t.Errorf("Rederive = %v, want ErrNoRelation", err)
	}
	q, err := Compile(cat, req, &Options{Relations: map[string]string{"status_events": "files_view"}})
	if err != nil || !slices.Equal(q.Tables, []string{"files_view"}) {
		t.Errorf("Compile with a relation = %v, %v", q, err)
	}
}

func TestTables(t *testing.T) {
	for name, want := range map[string][]string{"retail": {"events", "products"}, "warehouse": {"status_events"}} {
		if got := Tables(loadCatalog(t, name)); !slices.Equal(got, want) {
			t.Errorf("Tables(%s) = %v, want %v", name, got, want)
		}
	}
}

// TestBuckets: the time spine of a cumulative metric, every bucket the
// window [start, end) overlaps, from the bucket of its start.
func TestBuckets(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		name, start, end, grain string
		want                    []string
	}{
		{"days, the last one partly", "2026-01-04T15:30:00Z", "2026-01-07T12:00:00Z", "day",
			[]string{"2026-01-04T00:00:00Z", "2026-01-05T00:00:00Z", "2026-01-06T00:00:00Z", "2026-01-07T00:00:00Z"}},
		{"an end at midnight opens no bucket", "2026-01-01T00:00:00Z", "2026-01-03T00:00:00Z", "day",
			[]string{"2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"}},
		{"ISO weeks from Monday", "2026-01-01T00:00:00Z", "2026-01-13T00:00:00Z", "week",
			[]string{"2025-12-29T00:00:00Z", "2026-01-05T00:00:00Z", "2026-01-12T00:00:00Z"}},
		{"months across a year", "2025-12-31T23:00:00Z", "2026-02-01T00:00:01Z", "month",
			[]string{"2025-12-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"}},
		{"an empty window", "2026-01-02T00:00:00Z", "2026-01-02T00:00:00Z", "day", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, b := range Buckets(at(c.start), at(c.end), c.grain) {
				got = append(got, b.Format(time.RFC3339))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("Buckets(%s, %s, %s) = %v, want %v", c.start, c.end, c.grain, got, c.want)
			}
		})
	}
}

// TestSeconds: the re-derivation's row time is to.Sub(from).Seconds()
// within a time.Duration's range, and keeps counting past its 292 years.
func TestSeconds(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name, from, to string
		want           float64
	}{
		{"an hour", "2026-01-05T08:00:00Z", "2026-01-05T09:00:00Z", 3600},
		{"microseconds across a second", "2026-01-05T08:00:00.75Z", "2026-01-05T08:00:01.25Z", 0.5},
		{"four centuries", "2026-01-01T00:00:00Z", "2426-01-01T00:00:00Z", float64(at("2426-01-01T00:00:00Z").Unix() - at("2026-01-01T00:00:00Z").Unix())},
		{"the whole domain", "0001-01-01T00:00:00Z", "9999-12-30T23:59:59Z", 315537811199},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to := at(tt.from), at(tt.to)
			if got := seconds(from, to); got != tt.want {
				t.Errorf("seconds = %v, want %v", got, tt.want)
			}
			if d := to.Sub(from); d < time.Duration(1<<63-1) {
				if got, want := seconds(from, to), d.Seconds(); got != want {
					t.Errorf("seconds = %v, Sub().Seconds() = %v", got, want)
				}
			}
		})
	}
}
