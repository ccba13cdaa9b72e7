package repair_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/repair"
)

// TestAdvise: a client's advice holds the class, its hint, what failed,
// the selection it was given (declared names), the catalog snippet and
// the definition, and the message Message writes for them; never the
// failing SQL or the proposal's raw selection, never a secret.
func TestAdvise(t *testing.T) {
	sel := answer.Selection{Tool: "query_metric", Metric: "share", Dimensions: []string{"store"}}
	tests := []struct {
		name    string
		f       repair.Failure
		sel     answer.Selection
		want    []string // in the message
		never   []string // nowhere in the advice
		wantErr error
	}{
		{"metric", repair.Failure{Class: answer.ReasonEmptyResult, Detail: "no value", Selection: `{"tool":"query_metric","params":{"metric":"share","filters":[{"values":["secret-id-9"]}]}}`,
			Snippet: "metric share: ratio", Definition: "A share."}, sel,
			[]string{"empty_result", "no value", `{"tool":"query_metric","metric":"share","dimensions":["store"]}`, "metric share: ratio", "A share."}, []string{"secret-id-9", "params"}, nil},
		{"free sql", repair.Failure{Class: answer.ReasonPermissionDenied, Detail: repair.StatementDetail("table_function", "allowlist", 14),
			SQL: "SELECT * FROM read_csv('/etc/passwd')", Snippet: repair.TablesSnippet([]string{"events", "stores"})}, answer.Selection{Tool: "query_sql"},
			[]string{"permission_denied", "table function at layer allowlist (byte 14)", `{"tool":"query_sql"}`, "allowlisted tables: events, stores"}, []string{"passwd", "read_csv", "Failing SQL"}, nil},
		{"a secret in the detail", repair.Failure{Class: answer.ReasonSQLError, Detail: "failed with password=hunter2hunter2"}, answer.Selection{},
			[]string{"sql_error", "[redacted]"}, []string{"hunter2hunter2", "Failing selection"}, nil},
		{"not a class", repair.Failure{Class: answer.ReasonTimeout}, sel, nil, nil, repair.ErrFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			adv, err := repair.Advise(tt.f, tt.sel)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Advise error %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if adv.Class != tt.f.Class || adv.Hint == "" || adv.Selection.Tool != tt.sel.Tool || !strings.HasPrefix(adv.Message, "Your previous proposal failed verification with failure class "+string(tt.f.Class)) {
				t.Errorf("advice %+v", adv)
			}
			for _, w := range tt.want {
				if !strings.Contains(adv.Message, w) {
					t.Errorf("message lacks %q:\n%s", w, adv.Message)
				}
			}
			b, _ := json.Marshal(adv)
			for _, n := range tt.never {
				if strings.Contains(string(b), n) {
					t.Errorf("advice holds %q: %s", n, b)
				}
			}
		})
	}
}

// FuzzAdvise: whatever the failing SQL and the proposal's selection hold,
// neither reaches a client's advice.
func FuzzAdvise(f *testing.F) {
	f.Add("SELECT secret_column FROM t", `{"metric":"x-planted-x"}`, "detail")
	f.Fuzz(func(t *testing.T, sql, selection, detail string) {
		const planted = "Zq7planted"
		adv, err := repair.Advise(repair.Failure{Class: answer.ReasonSQLError, SQL: sql + planted, Selection: selection + planted, Detail: detail}, answer.Selection{Tool: "query_sql"})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(adv)
		if strings.Contains(string(b), planted) && !strings.Contains(detail, planted) {
			t.Fatalf("advice holds the failing SQL or selection: %s", b)
		}
	})
}

func TestStatementDetail(t *testing.T) {
	for _, tt := range []struct {
		kind, layer string
		pos         int
		want        string
	}{
		{"table_function", "allowlist", 14, "the sandbox stopped the statement: table function at layer allowlist (byte 14)"},
		{"rows_processed", "budget", -1, "the sandbox stopped the statement: rows processed at layer budget"},
	} {
		if got := repair.StatementDetail(tt.kind, tt.layer, tt.pos); got != tt.want {
			t.Errorf("StatementDetail(%q, %q, %d) = %q, want %q", tt.kind, tt.layer, tt.pos, got, tt.want)
		}
	}
}
