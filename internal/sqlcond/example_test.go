package sqlcond_test

import (
	"fmt"
	"strconv"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/internal/sqlcond"
)

// The warehouse catalog's NEEDS_ATTENTION condition, rendered over rows
// aliased r: its enumerated values are bound, its numbers written from
// the catalog.
func ExamplePredicate() {
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		fmt.Println(err)
		return
	}
	ds := cat.Datasets[0]
	for _, c := range ds.Conditions {
		if c.Name.Value != "NEEDS_ATTENTION" {
			continue
		}
		var args []string
		sql, err := sqlcond.Predicate(ds, "r", &c.Predicate, func(v string) string {
			args = append(args, v)
			return "$" + strconv.Itoa(len(args))
		})
		fmt.Println(sql, args, err)
	}
	// Output: ((r."status" IN ($1, $2)) OR (r."battery_pct" < 20) OR (r."temperature_c" >= 60)) [FAULT BLOCKED] <nil>
}
