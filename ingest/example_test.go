package ingest_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
)

// A CSV reader validates every row; an error names the row and the
// column, never the value.
func ExampleNewCSV() {
	f, err := os.Open("../catalogs/retail.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	c, err := catalog.Load(f, "retail.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	l, err := ingest.NewLayout(c, "scans") // stored in the table events
	if err != nil {
		fmt.Println(err)
		return
	}
	r := ingest.NewCSV("scans.csv", l, strings.NewReader(
		"event_id,timestamp,store_id,product_id,state,price_cents,compliance_flag\n"+
			"e-1,2026-01-06T08:00:00Z,st-001,pr-001,IN_STOCK,499,COMPLIANT\n"+
			"e-2,2026-01-06 08:00,st-1,pr-001,SOLD_OUT,4.99,COMPLIANT\n"))
	for {
		vals, row, err := r.Next()
		if err == io.EOF {
			break
		}
		var list ingest.Errors
		if errors.As(err, &list) {
			fmt.Println(list)
			continue
		}
		fmt.Println("row", row, vals)
	}
	// Output:
	// row 1 [e-1 2026-01-06 08:00:00 +0000 UTC st-001 pr-001 IN_STOCK 499 COMPLIANT]
	// scans.csv:row 2: field timestamp: want an RFC 3339 UTC time like 2026-01-06T08:00:00Z
	// scans.csv:row 2: field store_id: does not match the entity's pattern ^st-[0-9]{3}$
	// scans.csv:row 2: field state: not one of the attribute's declared values
	// scans.csv:row 2: field price_cents: want an integer, not a fraction
}
