package tool

import "slices"

// Entry is one tool a surface offers a client: its name, its description
// and its input schema.
type Entry struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"input_schema"`
}

// Offered returns every tool the client-facing surfaces (MCP, REST,
// OpenAPI) offer, in a fixed order: the registry's tools, with
// InputSchema, then ask, with AskSchema. It is the one list those surfaces
// derive from, so a tool added to the menu appears on all of them. Each
// call returns fresh schemas the caller may modify.
func (r *Registry) Offered() []Entry {
	m := r.Menu()
	out := make([]Entry, 0, len(m)+1)
	for _, d := range m {
		out = append(out, Entry{Name: d.Name, Description: d.Description, InputSchema: InputSchema(d)})
	}
	return append(out, Entry{Name: AskName, Description: AskDescription(r.About()), InputSchema: AskSchema()})
}

// ParamNames returns every parameter name of the menu's tools, sorted and
// distinct: the keys a decoding error may name, because the registry, not
// the client, chose them.
func (r *Registry) ParamNames() []string {
	var out []string
	for _, d := range r.defs {
		for _, p := range d.Params {
			if !slices.Contains(out, p.Name) {
				out = append(out, p.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}
