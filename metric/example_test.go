package metric_test

import (
	"fmt"
	"os"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/metric"
)

// Compile a request for the retail catalog's out-of-stock share by
// product category, in one store: the values are parameters, the tables
// are the declared ones.
func ExampleCompile() {
	cat, err := catalog.LoadFS(os.DirFS("../catalogs"), "retail.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	q, err := metric.Compile(cat, metric.Request{
		Metric:     "out_of_stock_share",
		Dimensions: []string{"category"},
		Filters:    []metric.Filter{{Dimension: "store", Op: "eq", Values: []string{"st-003"}}},
		Start:      time.Date(2026, 1, 6, 0, 0, 0, 0, time.UTC),
		End:        time.Date(2026, 1, 7, 0, 0, 0, 0, time.UTC),
		Scope:      metric.Only("st-001", "st-003"),
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("tables:", q.Tables)
	fmt.Println("columns:", q.Dimensions, "then the value")
	fmt.Println("arguments:", q.Args)

	// A request the catalog does not allow is a typed error naming the
	// field, never repeating the value.
	_, err = metric.Compile(cat, metric.Request{Metric: "out_of_stock_share", Dimensions: []string{"state"},
		Start: time.Date(2026, 1, 6, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 1, 7, 0, 0, 0, 0, time.UTC), Scope: metric.All()}, nil)
	fmt.Println(err)
	// Output:
	// tables: [events products]
	// columns: [category] then the value
	// arguments: [2026-01-07 00:00:00 OUT_OF_STOCK st-001 st-003 st-003]
	// metric request dimensions[0]: is not a dimension of metric out_of_stock_share (want one of store, product, category)
}

// The requests that exercise every SQL shape of a metric, for checking
// its compiled text without data: each grain, each allowed dimension,
// all of them together.
func ExampleRepresentative() {
	cat, err := catalog.LoadFS(os.DirFS("../catalogs"), "retail.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	reqs := metric.Representative(cat, cat.Metric("distinct_products_observed"))
	for _, r := range reqs[:4] {
		fmt.Println(r.Grain, r.Dimensions, r.Filters, r.Limit)
	}
	fmt.Println(len(reqs), "requests: the same four at grains day, week and month")
	// Output:
	// none [] [] 0
	// none [store] [{store eq [st-000]}] 0
	// none [category] [{category eq [dairy]}] 0
	// none [store category] [{store in [st-000]} {category in [dairy]}] 1
	// 16 requests: the same four at grains day, week and month
}
