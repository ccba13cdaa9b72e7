package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readAST reads a syntax tree committed by sandbox/duckdb's golden test.
func readAST(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "ast", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheck(t *testing.T) {
	p := NewPolicy([]string{"events", "stores", "products"})
	tests := []struct {
		name      string
		wantLayer Layer
		wantClass Class
		wantKind  string
	}{
		{"count_events", "", "", ""},
		{"cte", "", "", ""},
		{"join_reference", "", "", ""},
		{"window", "", "", ""},
		{"unnest", "", "", ""},
		{"union", "", "", ""},
		{"cte_shadow_outside", LayerAllowlist, ClassPermissionDenied, "table"},
		{"cte_qualified", LayerAllowlist, ClassPermissionDenied, "table"},
		{"cte_forward", LayerAllowlist, ClassPermissionDenied, "table"},
		{"secret", LayerAllowlist, ClassPermissionDenied, "table"},
		{"catalog_qualified", LayerAllowlist, ClassPermissionDenied, "qualified_name"},
		{"read_csv", LayerAllowlist, ClassPermissionDenied, "table_function"},
		{"replacement_scan", LayerAllowlist, ClassPermissionDenied, "table"},
		{"getenv", LayerAllowlist, ClassPermissionDenied, "function"},
		{"current_date", LayerAllowlist, ClassPermissionDenied, "function"},
		{"recursive", LayerAllowlist, ClassPermissionDenied, "construct"},
		{"describe", LayerAllowlist, ClassPermissionDenied, "construct"},
		{"parameter", LayerAllowlist, ClassPermissionDenied, "parameter"},
		{"sample", LayerAllowlist, ClassPermissionDenied, "construct"},
		{"two_statements", LayerParse, ClassPermissionDenied, "multiple_statements"},
		{"drop", LayerParse, ClassPermissionDenied, "statement"},
		{"syntax", LayerParse, ClassSchemaViolation, "syntax"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(readAST(t, tt.name), p)
			if tt.wantLayer == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			var rej *Rejection
			if !errors.As(err, &rej) || !errors.Is(err, ErrRejected) {
				t.Fatalf("Check = %v, want a *Rejection", err)
			}
			if rej.Layer != tt.wantLayer || rej.Class != tt.wantClass || rej.Kind != tt.wantKind {
				t.Errorf("Check = %s/%s/%s, want %s/%s/%s", rej.Layer, rej.Class, rej.Kind, tt.wantLayer, tt.wantClass, tt.wantKind)
			}
		})
	}
}

// TestCheck_WithParameters: the policy for compiled queries admits
// positional parameters ($1, ?) and nothing else more: a named parameter
// and a table outside the allowlist are still refused, and the free-SQL
// policy still refuses every parameter.
func TestCheck_WithParameters(t *testing.T) {
	free := NewPolicy([]string{"events", "stores", "products"})
	compiled := free.WithParameters()
	tests := []struct {
		name     string
		p        *Policy
		wantKind string // "" for accepted
	}{
		{"positional_parameters", compiled, ""},
		{"parameter", compiled, ""},
		{"count_events", compiled, ""},
		{"positional_parameters", free, "parameter"},
		{"named_parameter", compiled, "parameter"},
		{"parameter_secret", compiled, "table"},
		{"getenv", compiled, "function"},
		{"read_csv", compiled, "table_function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(readAST(t, tt.name), tt.p)
			var rej *Rejection
			switch {
			case tt.wantKind == "" && err != nil:
				t.Fatalf("Check = %v, want nil", err)
			case tt.wantKind != "" && (!errors.As(err, &rej) || rej.Kind != tt.wantKind):
				t.Fatalf("Check = %v, want a rejection of kind %s", err, tt.wantKind)
			}
		})
	}
	if free.parameters {
		t.Error("WithParameters changed the policy it was called on")
	}
}

// TestRejection_NoEcho: a rejection's message names no identifier from
// the statement.
func TestRejection_NoEcho(t *testing.T) {
	p := NewPolicy([]string{"stores"})
	for _, name := range []string{"secret", "getenv", "read_csv", "replacement_scan", "count_events"} {
		err := Check(readAST(t, name), p)
		if err == nil {
			t.Fatalf("%s: accepted", name)
		}
		for _, word := range []string{"secret", "getenv", "read_csv", "passwd", "events", "HOME"} {
			if strings.Contains(err.Error(), word) {
				t.Errorf("%s: message %q echoes %q", name, err, word)
			}
		}
	}
}

// TestCheck_Malformed: trees DuckDB would not give are refused, not
// accepted by default.
func TestCheck_Malformed(t *testing.T) {
	p := NewPolicy([]string{"events"})
	for _, ast := range []string{
		``, `null`, `[]`, `{}`, `{"error":false}`, `{"error":false,"statements":[]}`,
		`{"error":false,"statements":[{}]}`, `{"error":false,"statements":[{"node":null}]}`,
		`{"error":false,"statements":[{"node":{"type":"UNKNOWN_NODE"}}]}`,
		`{"error":false,"statements":[{"node":{"type":"SELECT_NODE","from_table":{"type":"SHOW_REF","alias":"","sample":null,"query_location":0}}}]}`,
		`{"error":false,"statements":[{"node":{"type":"SELECT_NODE","select_list":[{"class":"BOUND_REF"}]}}]}`,
		`{"error":false,"statements":[{"node":{"type":"SELECT_NODE","x":{"table_name":"secret"}}}]}`,
	} {
		if err := Check([]byte(ast), p); !errors.Is(err, ErrRejected) {
			t.Errorf("Check(%s) = %v, want a rejection", ast, err)
		}
	}
}

func TestCheckText(t *testing.T) {
	for _, tt := range []struct {
		sql, kind string
	}{
		{"SELECT 1", ""},
		{"SELECT 1\x00; DROP TABLE events", "nul_byte"},
		{"SELECT '\xff'", "encoding"},
		{"   ", "syntax"},
		{strings.Repeat("x", 101), "statement_length"},
	} {
		err := CheckText(tt.sql, 100)
		var rej *Rejection
		switch {
		case tt.kind == "" && err != nil:
			t.Errorf("CheckText(%q) = %v", tt.sql, err)
		case tt.kind != "" && (!errors.As(err, &rej) || rej.Kind != tt.kind || rej.Layer != LayerParse):
			t.Errorf("CheckText(%q) = %v, want kind %s", tt.sql, err, tt.kind)
		}
	}
}

func TestAllowlist(t *testing.T) {
	got := Allowlist([]string{"Secret"}, []string{"events", "Stores", "secret"}, []string{"stores", "metrics_daily"})
	want := []string{"events", "metrics_daily", "stores"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Allowlist = %v, want %v", got, want)
	}
}

func TestLimits_Validate(t *testing.T) {
	if err := DefaultLimits().Validate(); err != nil {
		t.Fatal(err)
	}
	l := DefaultLimits()
	l.RowBudget = 0
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "row_budget") {
		t.Errorf("Validate = %v, want row_budget named", err)
	}
}

// FuzzCheck: Check never panics on any bytes, and judges the same bytes
// the same way twice.
func FuzzCheck(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "ast"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		f.Add(readAST(f, strings.TrimSuffix(e.Name(), ".json")))
	}
	p := NewPolicy([]string{"events", "stores"})
	withParams := p.WithParameters()
	f.Fuzz(func(t *testing.T, ast []byte) {
		a, b := Check(ast, p), Check(ast, p)
		if (a == nil) != (b == nil) || a != nil && a.Error() != b.Error() {
			t.Fatalf("Check is not deterministic: %v then %v", a, b)
		}
		if a != nil && !errors.Is(a, ErrRejected) {
			t.Fatalf("Check = %v, not a rejection", a)
		}
		// Admitting positional parameters only widens the policy: what
		// the free-SQL policy accepts, the compiled-query one does.
		if c := Check(ast, withParams); a == nil && c != nil {
			t.Fatalf("accepted without parameters, refused with them: %v", c)
		}
	})
}
