package catalog

import (
	"os"
	"strings"
	"testing"

	"github.com/provenant/provenant/autonomy"
)

// writeTool is an append_task tool added to base, with a `writes:`
// section.
const writeTool = `  - name: open_task
    description: Open a task.
    shape: append_task
    class: action
    dataset: scans
    tier: L3
    effect: write
    task:
      kind: restock
      entities: [store, product]
      quantity: {min: 1, max: 100}
`

func withWrite(t *testing.T, tool, writes string) string {
	t.Helper()
	return base + tool + writes
}

func TestValidate_Autonomy(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // substrings of the error, each with its file:line:col
	}{
		{"read tool defaults", base, nil},
		{"write tool with table", withWrite(t, writeTool, "writes: {table: tasks}\n"), nil},
		{"write tool enabled", withWrite(t, writeTool, "writes: {enabled: true, table: tasks}\n"), nil},
		{"unknown tier", edit(t, "    dataset: scans\n    attribute: state\n", "    dataset: scans\n    attribute: state\n    tier: L4\n"),
			[]string{"x.yaml:36:11: unknown tier `L4`"}},
		{"unknown effect near", edit(t, "    dataset: scans\n    attribute: state\n", "    dataset: scans\n    attribute: state\n    effect: writ\n"),
			[]string{"x.yaml:36:13: unknown effect `writ`; did you mean `write`?"}},
		{"none at L3", edit(t, "    dataset: scans\n    attribute: state\n", "    dataset: scans\n    attribute: state\n    tier: L3\n"),
			[]string{"x.yaml:36:11: tool `get_state`: tier L3 does not fit effect none (none implies L1)"}},
		{"write at L2", withWrite(t, strings.Replace(writeTool, "tier: L3", "tier: L2", 1), "writes: {table: tasks}\n"),
			[]string{"x.yaml:52:11: tool `open_task`: tier L2 does not fit effect write (write implies L3)"}},
		{"write on a read shape", edit(t, "    dataset: scans\n    attribute: state\n", "    dataset: scans\n    attribute: state\n    tier: L3\n    effect: write\n"),
			[]string{"x.yaml:36:11: tool `get_state`: shape `latest_value` only reads"}},
		{"append_task without effect", withWrite(t, strings.Replace(strings.Replace(writeTool, "    tier: L3\n", "", 1), "    effect: write\n", "", 1), "writes: {table: tasks}\n"),
			[]string{"shape `append_task` writes: declare `effect: write` and `tier: L3`"}},
		{"no tasks table", withWrite(t, writeTool, ""),
			[]string{"x.yaml:47:5: tool `open_task` appends tasks: `writes` wants a `table`"}},
		{"tasks table is a dataset's", withWrite(t, writeTool, "writes: {table: events}\n"),
			[]string{"the tasks table must not be a table the datasets read"}},
		{"task without scope entity", withWrite(t, strings.Replace(writeTool, "[store, product]", "[product]", 1), "writes: {table: tasks}\n"),
			[]string{"must include the scope entity `store`"}},
		{"task unknown entity", withWrite(t, strings.Replace(writeTool, "[store, product]", "[store, prodct]", 1), "writes: {table: tasks}\n"),
			[]string{"unknown entity `prodct`; did you mean `product`?"}},
		{"quantity bounds", withWrite(t, strings.Replace(writeTool, "{min: 1, max: 100}", "{min: 5, max: 2}", 1), "writes: {table: tasks}\n"),
			[]string{"`max` must be from `min` to"}},
		{"task on a read shape", edit(t, "    dataset: scans\n    attribute: state\n", "    dataset: scans\n    attribute: state\n    task: {kind: x, entities: [store], quantity: {min: 1, max: 2}}\n"),
			[]string{"shape `latest_value` takes no `task`"}},
		{"enabled not a bool", withWrite(t, writeTool, "writes: {enabled: yes please, table: tasks}\n"),
			[]string{"`enabled`: want true or false"}},
		{"writes unknown key", withWrite(t, writeTool, "writes: {enable: true, table: tasks}\n"),
			[]string{"did you mean `enabled`?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(strings.NewReader(tt.src), "x.yaml")
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Load() = %v; want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load() = nil; want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Load() = %v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// TestAutonomy_Examples: the example catalogs' read tools are L1 and
// none by default, their write tool L3 and write, and writes are off.
func TestAutonomy_Examples(t *testing.T) {
	for _, tt := range []struct{ file, write string }{{"retail.yaml", "open_restock_task"}, {"warehouse.yaml", "open_work_order"}} {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open("../catalogs/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c, err := Load(f, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if c.WritesEnabled() {
				t.Errorf("WritesEnabled() = true; the example catalogs ship with writes off")
			}
			if c.TasksTable() != "tasks" {
				t.Errorf("TasksTable() = %q", c.TasksTable())
			}
			for _, tool := range c.Tools {
				wantTier, wantEffect, served := autonomy.L1, autonomy.None, true
				if tool.Name.Value == tt.write {
					wantTier, wantEffect, served = autonomy.L3, autonomy.Write, false
				}
				if tool.TierOf() != wantTier || tool.EffectOf() != wantEffect || c.Served(tool) != served {
					t.Errorf("%s: tier %s effect %s served %t; want %s %s %t", tool.Name.Value,
						tool.TierOf(), tool.EffectOf(), c.Served(tool), wantTier, wantEffect, served)
				}
			}
			c.Writes.Enabled = true
			for _, tool := range c.Tools {
				if !c.Served(tool) {
					t.Errorf("%s not served with writes enabled", tool.Name.Value)
				}
			}
		})
	}
}

// TestSchema_Autonomy: the JSON Schema and Load agree on tiers, effects
// and the write shape.
func TestSchema_Autonomy(t *testing.T) {
	s := compileSchema(t)
	valid := withWrite(t, writeTool, "writes: {enabled: false, table: tasks}\n")
	if err := s.Validate(yamlInstance(t, valid)); err != nil {
		t.Fatalf("schema refuses a valid write tool: %v", err)
	}
	tests := []struct{ name, src string }{
		{"write at L2", strings.Replace(valid, "tier: L3", "tier: L2", 1)},
		{"none at L3", edit(t, "    dataset: scans\n    attribute: state\n", "    dataset: scans\n    attribute: state\n    tier: L3\n")},
		{"unknown tier", edit(t, "    dataset: scans\n    attribute: state\n", "    dataset: scans\n    attribute: state\n    tier: L4\n")},
		{"write on a read shape", edit(t, "    dataset: scans\n    attribute: state\n", "    dataset: scans\n    attribute: state\n    tier: L3\n    effect: write\n")},
		{"append_task without task", strings.Replace(valid, "    task:\n      kind: restock\n      entities: [store, product]\n      quantity: {min: 1, max: 100}\n", "", 1)},
		{"writes unknown key", strings.Replace(valid, "enabled: false", "enable: false", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.Validate(yamlInstance(t, tt.src)); err == nil {
				t.Errorf("schema accepts a catalog with %s", tt.name)
			}
			if _, err := Load(strings.NewReader(tt.src), "c.yaml"); err == nil {
				t.Errorf("Load accepts a catalog with %s", tt.name)
			}
		})
	}
}
