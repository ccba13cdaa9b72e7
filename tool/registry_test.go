package tool_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/tool"
)

// warehouse is a registry of another domain: it shows that the wall's
// texts, its scope check and the schemas come from the parameters' data.
func warehouse(t *testing.T) *tool.Registry {
	t.Helper()
	zone := tool.Param{Name: "zone_id", Kind: tool.EntityID, Description: "Zone id.", Entity: "zone", Pattern: `^z-[0-9]{2}$`, Hint: "z- and 2 digits"}
	device := tool.Param{Name: "device_id", Kind: tool.EntityID, Description: "Device id.", Entity: "device", Pattern: `^dv-[0-9]{4}$`, Hint: "dv- and 4 digits"}
	status := tool.Param{Name: "status", Kind: tool.Enum, Description: "Status.", Values: []string{"OK", "FAULT"}}
	asOf := tool.Param{Name: "as_of", Kind: tool.Timestamp, Description: "Instant."}
	reg, err := tool.NewRegistry([]tool.Def{
		{Name: "get_battery", Description: "Battery.", Params: []tool.Param{zone, device, asOf}, Value: fact.KindNumber, Unit: "percent"},
		{Name: "list_devices_in_status", Description: "Devices.", Params: []tool.Param{zone, status, asOf},
			Value: fact.KindEntityList, IDsField: "device_ids", IDsPattern: device.Pattern},
	}, "zone")
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestNewRegistry(t *testing.T) {
	ok := tool.Def{Name: "t", Value: fact.KindRowCount, Params: []tool.Param{{Name: "as_of", Kind: tool.Timestamp}}}
	id := tool.Param{Name: "id", Kind: tool.EntityID, Entity: "e", Pattern: `^e-[0-9]$`, Hint: "e- and a digit"}
	with := func(f func(d *tool.Def)) []tool.Def {
		d := ok
		d.Params = append([]tool.Param(nil), ok.Params...)
		f(&d)
		return []tool.Def{d}
	}
	tests := []struct {
		name    string
		defs    []tool.Def
		scope   string
		wantErr string // "" for valid
	}{
		{"valid", []tool.Def{ok}, "e", ""},
		{"retail", catalogstest.Retail().Menu(), "store", ""},
		{"no scope entity", []tool.Def{ok}, "", "scope entity is empty"},
		{"duplicate name", []tool.Def{ok, ok}, "e", "tools[1]: name is not unique"},
		{"empty name", with(func(d *tool.Def) { d.Name = "" }), "e", "tools[0]: name is empty"},
		{"unknown value kind", with(func(d *tool.Def) { d.Value = "price" }), "e", "value kind is unknown"},
		{"entity list without ids field", with(func(d *tool.Def) { d.Value = fact.KindEntityList; d.IDsPattern = id.Pattern }), "e", "ids field is empty"},
		{"entity count with unanchored ids pattern", with(func(d *tool.Def) { d.Value, d.IDsField, d.IDsPattern = fact.KindEntityCount, "e_ids", "e-[0-9]" }), "e", "ids pattern is not anchored"},
		{"text without values", with(func(d *tool.Def) { d.Value = fact.KindText }), "e", "text value has no enumerated values"},
		{"duplicate parameter", with(func(d *tool.Def) { d.Params = append(d.Params, d.Params[0]) }), "e", "params[1]: name is not unique"},
		{"unknown parameter kind", with(func(d *tool.Def) { d.Params[0].Kind = 99 }), "e", "params[0]: kind is unknown"},
		{"entity id without hint", with(func(d *tool.Def) { p := id; p.Hint = ""; d.Params = append(d.Params, p) }), "e", "needs an entity and a hint"},
		{"unanchored pattern", with(func(d *tool.Def) { p := id; p.Pattern = "e-[0-9]"; d.Params = append(d.Params, p) }), "e", "pattern is not anchored"},
		{"pattern that does not compile", with(func(d *tool.Def) { p := id; p.Pattern = "^e-[0-9$"; d.Params = append(d.Params, p) }), "e", "pattern does not compile"},
		{"enum without values", with(func(d *tool.Def) { d.Params = append(d.Params, tool.Param{Name: "s", Kind: tool.Enum}) }), "e", "enumeration has no values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := tool.NewRegistry(tt.defs, tt.scope)
			if tt.wantErr == "" {
				if err != nil || reg == nil {
					t.Fatalf("NewRegistry() = %v, want a registry", err)
				}
				return
			}
			if !errors.Is(err, tool.ErrInvalidRegistry) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("NewRegistry() = %v, want ErrInvalidRegistry containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestRegistry_CopiesItsDefinitions: neither the caller's slice nor a
// returned definition aliases the registry.
func TestRegistry_CopiesItsDefinitions(t *testing.T) {
	defs := catalogstest.Retail().Menu()
	reg, err := tool.NewRegistry(defs, "store")
	if err != nil {
		t.Fatal(err)
	}
	defs[0].Params[0].Pattern = ".*"
	defs[0].Values[0] = "changed"
	m := reg.Menu()
	m[0].Params[0].Hint = "changed"
	d, _ := reg.Lookup(defs[0].Name)
	if d.Params[0].Pattern != `^st-[0-9]{3}$` || d.Values[0] != "IN_STOCK" || d.Params[0].Hint != "st- and 3 digits" {
		t.Errorf("registry definition changed through a caller's copy: %+v", d)
	}
}

// TestWall_OtherDomain checks the wall on a registry that is not retail:
// its rejection texts name the parameter's entity and hint, the scope is
// checked on the scope entity's parameters only, and declared ids are
// judged per entity (a nil id set is pattern-only).
func TestWall_OtherDomain(t *testing.T) {
	reg := warehouse(t)
	w := tool.NewWall(reg, map[string]map[string]bool{"zone": {"z-01": true, "z-02": true}})
	call := func(zone, device string) tool.Proposal {
		return tool.Proposal{Tool: "get_battery", Params: map[string]any{"zone_id": zone, "device_id": device, "as_of": "2026-01-06T08:00:00Z"}}
	}
	tests := []struct {
		name       string
		p          tool.Proposal
		scope      tool.Scope
		wantDetail string // "" for a valid call
	}{
		{"valid, device pattern-only", call("z-01", "dv-0042"), tool.AllStores(), ""},
		{"bad zone id", call("zone1", "dv-0042"), tool.AllStores(), "parameter zone_id is not a zone id (z- and 2 digits)"},
		{"undeclared zone", call("z-09", "dv-0042"), tool.AllStores(), "parameter zone_id is not a declared zone"},
		{"bad device id", call("z-01", "dv-42"), tool.AllStores(), "parameter device_id is not a device id (dv- and 4 digits)"},
		{"zone outside the scope", call("z-02", "dv-0042"), tool.StoresOnly("z-01"), "parameter zone_id is outside the caller's scope"},
		{"zone inside the scope", call("z-01", "dv-0042"), tool.StoresOnly("z-01"), ""},
		{"enum", tool.Proposal{Tool: "list_devices_in_status", Params: map[string]any{"zone_id": "z-01", "status": "BROKEN", "as_of": "2026-01-06T08:00:00Z"}},
			tool.AllStores(), "parameter status is not one of OK, FAULT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := w.CheckScoped(tt.p, tt.scope)
			if tt.wantDetail == "" {
				if err != nil {
					t.Fatalf("CheckScoped() = %v, want a call", err)
				}
				if c.Tool() != tt.p.Tool || c.Scope().All() != tt.scope.All() {
					t.Errorf("call = %s (scope all %v)", c.Tool(), c.Scope().All())
				}
				return
			}
			rej, ok := tool.IsRejection(err)
			if !ok || rej.Detail() != tt.wantDetail {
				t.Errorf("CheckScoped() = %v, want the rejection %q", err, tt.wantDetail)
			}
		})
	}
	schema := tool.InputSchema(reg.Menu()[0])["properties"].(map[string]any)["device_id"].(map[string]any)
	if schema["pattern"] != `^dv-[0-9]{4}$` {
		t.Errorf("device_id schema = %v, want the parameter's pattern", schema)
	}
	if got := reg.ParamNames(); strings.Join(got, ",") != "as_of,device_id,status,zone_id" {
		t.Errorf("ParamNames() = %v", got)
	}
	d, _ := reg.Lookup("list_devices_in_status")
	if !reg.IDMatches(d, "dv-0001") || reg.IDMatches(d, "z-01") {
		t.Error("IDMatches does not follow the value's ids pattern")
	}
}

func TestPatternHint(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{`^st-[0-9]{3}$`, "st- and 3 digits"},
		{`^pr-[0-9]{3}$`, "pr- and 3 digits"},
		{`^dv-[0-9]{4}$`, "dv- and 4 digits"},
		{`^[0-9]{6}$`, "6 digits"},
		{`^z[a-z]+$`, "matching ^z[a-z]+$"},
		{`^st-[0-9]{3}`, "matching ^st-[0-9]{3}"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			if got := tool.PatternHint(tt.pattern); got != tt.want {
				t.Errorf("PatternHint(%q) = %q, want %q", tt.pattern, got, tt.want)
			}
		})
	}
}

// TestRegistry_Sentence: the registry renders a registered tool's value
// as Sentence does over the tool's definition (its templates, its unit),
// and reports a tool it does not hold.
func TestRegistry_Sentence(t *testing.T) {
	reg := warehouse(t)
	args := map[string]string{"zone_id": "z-01", "device_id": "dv-0001", "status": "OK", "as_of": "2026-01-05T00:00:00Z"}
	tests := []struct {
		name   string
		tool   string
		v      fact.Value
		wantOK bool
	}{
		{"number", "get_battery", fact.Value{Kind: fact.KindNumber, Num: 87.5, Unit: "percent", Observed: true}, true},
		{"nothing observed", "get_battery", fact.NoObservation(fact.KindNumber), true},
		{"list", "list_devices_in_status", fact.Value{Kind: fact.KindEntityList, IDs: []string{"dv-0001", "dv-0002"}, Count: 2}, true},
		{"not registered", "get_price", fact.Value{Kind: fact.KindInteger, Int: 5, Observed: true}, false},
	}
	for _, tt := range append(tests, tests...) { // the second time from parsed templates
		t.Run(tt.name, func(t *testing.T) {
			got, ok := reg.Sentence(tt.tool, args, tt.v)
			if ok != tt.wantOK {
				t.Fatalf("Sentence ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			def, _ := reg.Lookup(tt.tool)
			if want := tool.Sentence(def, args, tt.v); got != want || got == "" {
				t.Errorf("Sentence = %q, want %q", got, want)
			}
		})
	}
}
