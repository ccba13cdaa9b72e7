package anthropic

import (
	"net/http"
	"testing"

	"github.com/provenant/provenant/provider/anthropic/anthropictest"
	"github.com/provenant/provenant/provider/internal/providertest"
)

// TestSelect_FreeSQL: query_sql is offered like any tool and a statement
// comes back as written (providertest.RunSelectFreeSQL).
func TestSelect_FreeSQL(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Script = func(w http.ResponseWriter, r *http.Request, job anthropictest.Job, question string) bool {
		stmt, ok := providertest.FreeSQLStatements[question]
		if ok && job != anthropictest.Compose {
			anthropictest.Reply(w, "m", "", anthropictest.ToolUse{Name: "query_sql", Input: providertest.FreeSQLArgs(stmt)})
		}
		return ok && job != anthropictest.Compose
	}
	p := newProvider(t, Options{BaseURL: srv.BaseURL()})
	providertest.RunSelectFreeSQL(t, p, func(t *testing.T) []byte { return srv.Last(t).Body })
}
