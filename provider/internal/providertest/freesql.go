// Package providertest holds checks every network model provider must
// pass, each run by the provider's own tests against its own fake server,
// so that the providers are held to one behaviour by one copy of it.
package providertest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/tool"
)

// QuerySQL is the free SQL tool as a catalog that opts in derives it
// (shape.SQLDef): one statement of at most 8,192 bytes.
var QuerySQL = tool.Def{Name: "query_sql", Description: "Last resort: run one read-only SELECT.", Class: "free_sql", Value: fact.KindTable,
	Params: []tool.Param{{Name: "sql", Kind: tool.Statement, MaxBytes: 8192, Description: "Exactly one SELECT."}}}

// FreeSQLStatements maps each question of RunSelectFreeSQL to the
// statement the fake model writes for it: one plain, one hostile.
var FreeSQLStatements = map[string]string{
	"free: count stores": "SELECT count(*) AS n FROM stores",
	"free: hostile":      "COPY events TO '/tmp/x.csv'; SELECT 1",
}

// FreeSQLArgs is the tool call's arguments for statement, as JSON.
func FreeSQLArgs(statement string) string {
	b, _ := json.Marshal(map[string]string{"sql": statement})
	return string(b)
}

// Selector is the part of a provider the check drives.
type Selector interface {
	Select(ctx context.Context, question string, menu []tool.Def) (*tool.Proposal, error)
}

// RunSelectFreeSQL checks that with query_sql on the menu it is offered
// to the model like any tool (its schema a bounded string, so sent
// without strict mode), and that a statement the model writes, hostile or
// not, comes back as a proposal with the statement as it was written:
// judging it is the wall's and the sandbox's job, not the provider's. The
// provider's fake server must answer each question of FreeSQLStatements
// with a query_sql call of FreeSQLArgs(statement); lastBody returns the
// body of the last request it saw (nil when none).
func RunSelectFreeSQL(t *testing.T, p Selector, lastBody func(t *testing.T) []byte) {
	t.Helper()
	menu := append(catalogstest.Retail().Menu(), QuerySQL)
	for q, stmt := range FreeSQLStatements {
		t.Run(q, func(t *testing.T) {
			got, err := p.Select(t.Context(), q, menu)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || got.Tool != "query_sql" || got.Params["sql"] != stmt {
				t.Fatalf("Select = %+v, want query_sql with the statement", got)
			}
			body := string(lastBody(t))
			if body == "" {
				t.Fatal("the server saw no request")
			}
			for _, want := range []string{`"name":"query_sql"`, `"maxLength":8192`} {
				if !strings.Contains(body, want) {
					t.Errorf("request lacks %s", want)
				}
			}
		})
	}
}
