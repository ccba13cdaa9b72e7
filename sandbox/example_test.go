package sandbox_test

import (
	"errors"
	"fmt"

	"github.com/provenant/provenant/sandbox"
)

// The syntax tree DuckDB's json_serialize_sql gives "SELECT count(*) FROM
// events" (sandbox/duckdb asks for it; sandbox only reads it).
const countEvents = `{"error":false,"statements":[{"node":{"type":"SELECT_NODE","modifiers":[],"cte_map":{"map":[]},"select_list":[{"class":"FUNCTION","type":"FUNCTION","alias":"","query_location":7,"function_name":"count_star","schema":"","children":[],"filter":null,"order_bys":{"type":"ORDER_MODIFIER","orders":[]},"distinct":false,"is_operator":false,"export_state":false,"catalog":""}],"from_table":{"type":"BASE_TABLE","alias":"","sample":null,"query_location":21,"schema_name":"","table_name":"events","column_name_alias":[],"catalog_name":"","at_clause":null},"where_clause":null,"group_expressions":[],"group_sets":[],"aggregate_handling":"STANDARD_HANDLING","having":null,"sample":null,"qualify":null},"named_param_map":[]}]}`

func ExampleCheck() {
	allow := sandbox.Allowlist([]string{"secrets"}, []string{"events", "stores", "secrets"})
	fmt.Println("allowlist:", allow)

	fmt.Println("events allowed:", sandbox.Check([]byte(countEvents), sandbox.NewPolicy(allow)))

	err := sandbox.Check([]byte(countEvents), sandbox.NewPolicy([]string{"stores"}))
	var rej *sandbox.Rejection
	if errors.As(err, &rej) {
		fmt.Println(rej.Layer, rej.Class, rej.Kind, rej.Position)
	}
	fmt.Println(err)
	// Output:
	// allowlist: [events stores]
	// events allowed: <nil>
	// allowlist permission_denied table 21
	// sql permission_denied: table at layer allowlist (byte 21)
}
