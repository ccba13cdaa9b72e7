package toolcall

import (
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/tool"
)

// validValue draws a value inside q's schema.
func validValue(t *rapid.T, q tool.Param) string {
	switch q.Kind {
	case tool.Enum:
		return rapid.SampledFrom(q.Values).Draw(t, q.Name)
	case tool.Timestamp:
		return rapid.StringMatching(`20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z`).Draw(t, q.Name)
	default:
		return rapid.StringMatching(q.Pattern[1:len(q.Pattern)-1]).Draw(t, q.Name)
	}
}

// TestCheck_Property: a proposal built from any tool on the menu with
// values inside every parameter's schema passes; spoiling one parameter
// (dropping it, making it a number, or giving it a value outside its
// pattern or enum) fails, naming that tool and parameter.
func TestCheck_Property(t *testing.T) {
	menu := catalogstest.Retail().Menu()
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.SampledFrom(menu).Draw(t, "tool")
		params := map[string]any{}
		for _, q := range d.Params {
			params[q.Name] = validValue(t, q)
		}
		if err := Check(menu, tool.Proposal{Tool: d.Name, Params: params}); err != nil {
			t.Fatalf("valid proposal %v: %v", params, err)
		}
		q := rapid.SampledFrom(d.Params).Draw(t, "spoiled")
		switch rapid.IntRange(0, 2).Draw(t, "how") {
		case 0:
			delete(params, q.Name)
		case 1:
			params[q.Name] = rapid.Float64().Draw(t, "number")
		case 2:
			params[q.Name] = validValue(t, q) + rapid.StringMatching(`[ a-z;']{1,5}`).Draw(t, "suffix")
		}
		var se *SchemaError
		if err := Check(menu, tool.Proposal{Tool: d.Name, Params: params}); !errors.As(err, &se) || se.Tool != d.Name || se.Param != q.Name {
			t.Fatalf("spoiled %s in %v: %v, want a schema error naming it", q.Name, params, err)
		}
	})
}
