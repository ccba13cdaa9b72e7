package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestSQL runs `provenant sql` over the embedded demo: the worker is this
// test binary run as main, as the real binary re-executes itself.
func TestSQL(t *testing.T) {
	workerEnv = []string{"PROVENANT_RUN_MAIN=1"}
	t.Cleanup(func() { workerEnv = nil })
	tests := []struct {
		args                  []string
		outcome, layer, class string
	}{
		{[]string{"SELECT count(*) AS n FROM stores"}, "ok", "", ""},
		{[]string{"--catalog", "retail", "SELECT s.name FROM stores s JOIN events e USING (store_id) GROUP BY 1 ORDER BY 1 LIMIT 1"}, "ok", "", ""},
		{[]string{"DROP TABLE events"}, "rejected", "parse", "permission_denied"},
		{[]string{"SELECT * FROM read_csv('/etc/passwd')"}, "rejected", "allowlist", "permission_denied"},
		{[]string{"--deny", "stores", "SELECT * FROM stores"}, "rejected", "allowlist", "permission_denied"},
		{[]string{"SELECT count(*) FROM events a, events b"}, "rejected", "budget", "budget_exceeded"},
		{[]string{"--max-rows", "2", "SELECT * FROM stores"}, "rejected", "budget", "budget_exceeded"},
		{[]string{"SELECT no_such_column FROM stores"}, "error", "sandbox", "schema_violation"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, stderr, err := runCLI(t, append([]string{"sql"}, tt.args...)...)
			if err != nil {
				t.Fatalf("sql: %v\n%s", err, stderr)
			}
			var got struct {
				Outcome string   `json:"outcome"`
				Layer   *string  `json:"layer"`
				Class   *string  `json:"class"`
				Columns []string `json:"columns"`
				Rows    [][]any  `json:"rows"`
				Repair  *struct {
					Class     string `json:"class"`
					Selection struct {
						Tool string `json:"tool"`
					} `json:"selection"`
					Catalog string `json:"catalog"`
					Message string `json:"message"`
				} `json:"repair"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || strings.Count(out, "\n") != 1 {
				t.Fatalf("output is not one JSON object: %v\n%s", err, out)
			}
			layer, class := "", ""
			if got.Layer != nil {
				layer = *got.Layer
			}
			if got.Class != nil {
				class = *got.Class
			}
			if got.Outcome != tt.outcome || layer != tt.layer || class != tt.class {
				t.Errorf("got %s/%s/%s, want %s/%s/%s", got.Outcome, layer, class, tt.outcome, tt.layer, tt.class)
			}
			if tt.outcome == "ok" && (len(got.Columns) == 0 || len(got.Rows) == 0) {
				t.Errorf("ok without columns or rows: %s", out)
			}
			if tt.outcome != "ok" && (strings.Contains(out, "passwd") || strings.Contains(out, "no_such_column") || strings.Contains(out, "DROP")) {
				t.Errorf("output echoes the statement: %s", out)
			}
			// The repair advice is the surfaces': the class, the tool,
			// the allowlisted tables, the message a provider gets.
			switch r := got.Repair; {
			case tt.outcome == "ok" && r != nil:
				t.Errorf("repair advice for a statement that ran: %s", out)
			case tt.outcome != "ok" && (r == nil || r.Class != tt.class || r.Selection.Tool != "query_sql" ||
				!strings.HasPrefix(r.Catalog, "allowlisted tables: ") || !strings.Contains(r.Message, tt.class)):
				t.Errorf("repair advice: %s", out)
			}
		})
	}
}

func TestSQL_Usage(t *testing.T) {
	for _, args := range [][]string{{"sql"}, {"sql", "--row-budget", "0", "SELECT 1"}, {"sql", "--catalog", "/nonexistent.yaml", "--no-such-flag", "x"}} {
		if _, _, err := runCLI(t, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	// A limit out of range is named by its flag, not the sandbox's field
	// (max_rows, memory_bytes); --memory-mb past what MiB shifted into
	// bytes holds wrapped around: 2^44+16 MiB ran with 16 MiB.
	for _, tt := range []struct{ flag, value string }{
		{"--row-budget", "0"},
		{"--max-rows", "-1"},
		{"--max-bytes", "0"},
		{"--memory-mb", "15"},
		{"--memory-mb", "17592186044432"},
		{"--memory-mb", "9223372036854775807"},
		{"--timeout", "0s"},
	} {
		_, _, err := runCLI(t, "sql", tt.flag, tt.value, "SELECT 1")
		if !errors.Is(err, errUsage) || !strings.HasPrefix(err.Error(), tt.flag+":") {
			t.Errorf("sql %s %s: %v, want a usage error naming %s", tt.flag, tt.value, err, tt.flag)
		}
	}
}
