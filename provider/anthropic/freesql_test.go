package anthropic

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider/anthropic/anthropictest"
	"github.com/provenant/provenant/tool"
)

// querySQL is the free SQL tool as a catalog that opts in derives it
// (shape.SQLDef): one statement of at most 8,192 bytes.
var querySQL = tool.Def{Name: "query_sql", Description: "Last resort: run one read-only SELECT.", Class: "free_sql", Value: fact.KindTable,
	Params: []tool.Param{{Name: "sql", Kind: tool.Statement, MaxBytes: 8192, Description: "Exactly one SELECT."}}}

// TestSelect_FreeSQL: with query_sql on the menu it is offered to the
// model like any tool (its schema a bounded string, so sent without
// strict mode), and a statement the model writes, hostile or not, comes
// back as a proposal with the statement as it was written: judging it is
// the wall's and the sandbox's job, not the provider's.
func TestSelect_FreeSQL(t *testing.T) {
	stmts := map[string]string{
		"free: count stores": "SELECT count(*) AS n FROM stores",
		"free: hostile":      "COPY events TO '/tmp/x.csv'; SELECT 1",
	}
	srv := anthropictest.NewServer(t)
	srv.Script = func(w http.ResponseWriter, r *http.Request, job anthropictest.Job, question string) bool {
		stmt, ok := stmts[question]
		if !ok || job == anthropictest.Compose {
			return false
		}
		args, _ := json.Marshal(map[string]string{"sql": stmt})
		anthropictest.Reply(w, "m", "", anthropictest.ToolUse{Name: "query_sql", Input: string(args)})
		return true
	}
	p := newProvider(t, Options{BaseURL: srv.BaseURL()})
	menu := append(catalogstest.Retail().Menu(), querySQL)
	for q, stmt := range stmts {
		t.Run(q, func(t *testing.T) {
			got, err := p.Select(t.Context(), q, menu)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || got.Tool != "query_sql" || got.Params["sql"] != stmt {
				t.Fatalf("Select = %+v, want query_sql with the statement", got)
			}
			if n := srv.Requests(); n == 0 {
				t.Fatal("the server saw no request")
			}
			body := string(srv.Last(t).Body)
			for _, want := range []string{`"name":"query_sql"`, `"maxLength":8192`} {
				if !strings.Contains(body, want) {
					t.Errorf("request lacks %s", want)
				}
			}
		})
	}
}
