package duckdb

import (
	"fmt"
	"testing"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/sandbox"
)

func TestZZScratch(t *testing.T) {
	cat, err := catalogs.Load("retail")
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewValidator(t.Context(), sandbox.NewPolicy(cat.Allowlist()).WithParameters(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for _, m := range cat.Metrics {
		dims := []string{}
		for _, d := range m.Dimensions {
			dims = append(dims, d.Value)
		}
		var fs []metric.Filter; _ = fs
		for _, d := range dims {
			fs = append(fs, metric.Filter{Dimension: d, Op: "eq", Values: []string{"x"}})
		}
		g := m.Grain.Value
		_ = catalog.GrainNone
		q, err := metric.Compile(cat, metric.Request{Metric: m.Name.Value, Dimensions: dims, Grain: g,
			Start: time.Unix(0, 0), End: time.Unix(86400, 0), Scope: metric.Only("st-001"), Order: metric.Order{By: "value", Desc: true}, Limit: 3}, nil)
		if err != nil {
			fmt.Println(m.Name.Value, "compile:", err)
			continue
		}
		var ast string
		v.db.QueryRowContext(t.Context(), serializeSQL, q.SQL).Scan(&ast)
		fmt.Println(m.Name.Value, v.Validate(t.Context(), q.SQL), len(q.SQL))
		if m.Name.Value == "scan_count" {
			fmt.Println(q.SQL)
			fmt.Println(ast[len(ast)-600:])
		}
	}
}
