package tool_test

import (
	"strings"
	"testing"

	"github.com/provenant/provenant/tool"
)

// statementWall is a wall over one tool with one Statement parameter of
// at most 64 bytes.
func statementWall(t testing.TB) *tool.Wall {
	t.Helper()
	reg, err := tool.NewRegistry([]tool.Def{{Name: "query_sql", Value: "table", Params: []tool.Param{
		{Name: "sql", Kind: tool.Statement, MaxBytes: 64, Description: "one SELECT"},
	}}}, "store")
	if err != nil {
		t.Fatal(err)
	}
	return tool.NewWall(reg, nil)
}

func TestWall_Statement(t *testing.T) {
	w := statementWall(t)
	tests := []struct {
		name   string
		params map[string]any
		want   tool.RejectKind // "" accepts
		reason string
	}{
		{"a select", map[string]any{"sql": "SELECT count(*) FROM scans WHERE state = 'OUT_OF_STOCK'"}, "", ""},
		{"query syntax is the domain", map[string]any{"sql": "SELECT 1; DROP TABLE scans; --"}, "", ""},
		{"exactly the bound", map[string]any{"sql": "SELECT " + strings.Repeat("1", 57)}, "", ""},
		{"a byte over the bound", map[string]any{"sql": "SELECT " + strings.Repeat("1", 58)}, tool.Invalid, "is longer than 64 bytes"},
		{"bytes, not characters", map[string]any{"sql": "SELECT '" + strings.Repeat("é", 28) + "'"}, tool.Invalid, "is longer than 64 bytes"},
		{"empty", map[string]any{"sql": ""}, tool.Invalid, "is empty"},
		{"white space", map[string]any{"sql": " \n\t"}, tool.Invalid, "is empty"},
		{"invalid UTF-8", map[string]any{"sql": "SELECT '\xff'"}, tool.Invalid, "is not valid UTF-8"},
		{"a NUL byte", map[string]any{"sql": "SELECT 1\x00"}, tool.Invalid, "holds a NUL byte"},
		{"a number", map[string]any{"sql": 1.0}, tool.Invalid, "must be a string"},
		{"an object", map[string]any{"sql": map[string]any{"$gt": 1}}, tool.RawQuery, "carries query syntax"},
		{"a list", map[string]any{"sql": []any{"SELECT 1"}}, tool.RawQuery, "carries query syntax"},
		{"missing", map[string]any{}, tool.Invalid, "is missing"},
		{"another parameter", map[string]any{"sql": "SELECT 1", "limit": "5"}, tool.Invalid, "unexpected parameter for query_sql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := w.Check(tool.Proposal{Tool: "query_sql", Params: tt.params})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				if got := c.Arg("sql"); got != tt.params["sql"] {
					t.Errorf("Arg(sql) = %q, want the statement as proposed", got)
				}
				if got, want := c.Args()["sql"], tool.StatementRef(c.Arg("sql")); got != want || len(want) != 71 {
					t.Errorf("Args()[sql] = %q, want %q: the statement's hash, never its text", got, want)
				}
				return
			}
			rej, ok := tool.IsRejection(err)
			if !ok {
				t.Fatalf("Check: %v, want a rejection", err)
			}
			if rej.Kind != tt.want || rej.Reason != tt.reason {
				t.Errorf("rejection = %s %q, want %s %q", rej.Kind, rej.Reason, tt.want, tt.reason)
			}
			if s, ok := tt.params["sql"].(string); ok && len(s) > 8 && strings.Contains(rej.Error(), s) {
				t.Errorf("rejection %q echoes the statement", rej.Error())
			}
		})
	}
}

func TestNewRegistry_StatementNeedsBound(t *testing.T) {
	_, err := tool.NewRegistry([]tool.Def{{Name: "query_sql", Value: "table", Params: []tool.Param{
		{Name: "sql", Kind: tool.Statement, Description: "one SELECT"},
	}}}, "store")
	if err == nil {
		t.Fatal("NewRegistry accepted a statement without a size bound")
	}
}

func TestInputSchema_Statement(t *testing.T) {
	s := tool.InputSchema(tool.Def{Name: "query_sql", Params: []tool.Param{
		{Name: "sql", Kind: tool.Statement, MaxBytes: 8192, Description: "one SELECT"},
	}})
	p := s["properties"].(map[string]any)["sql"].(map[string]any)
	if p["type"] != "string" || p["minLength"] != 1 || p["maxLength"] != 8192 {
		t.Errorf("schema = %v, want a string of 1..8192", p)
	}
}

// TestWall_StatementScope: free SQL reads every row of the allowlisted
// tables (the sandbox has no scope to apply), so a caller limited to some
// stores may not run it: a principal scoped to st-001 read every store's
// counts through query_sql.
func TestWall_StatementScope(t *testing.T) {
	w := statementWall(t)
	tests := []struct {
		name  string
		scope tool.Scope
		want  tool.RejectKind // "" accepts
	}{
		{"every store", tool.AllStores(), ""},
		{"some stores", tool.StoresOnly("st-001", "st-002"), tool.OutOfScope},
		{"no store", tool.StoresOnly(), tool.OutOfScope},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.CheckScoped(tool.Proposal{Tool: "query_sql", Params: map[string]any{"sql": "SELECT count(*) FROM scans"}}, tt.scope)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckScoped: %v", err)
				}
				return
			}
			rej, ok := tool.IsRejection(err)
			if !ok || rej.Kind != tt.want || rej.Param != "sql" {
				t.Fatalf("CheckScoped = %v, want a %s rejection of sql", err, tt.want)
			}
			if strings.Contains(rej.Error(), "scans") {
				t.Errorf("rejection %q echoes the statement", rej.Error())
			}
		})
	}
}
