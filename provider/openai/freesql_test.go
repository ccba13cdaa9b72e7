package openai

import (
	"net/http"
	"testing"

	"github.com/provenant/provenant/provider/internal/providertest"
	"github.com/provenant/provenant/provider/openai/openaitest"
)

// TestSelect_FreeSQL: query_sql is offered like any tool and a statement
// comes back as written (providertest.RunSelectFreeSQL).
func TestSelect_FreeSQL(t *testing.T) {
	srv := openaitest.NewServer(t)
	srv.Script = func(w http.ResponseWriter, r *http.Request, job openaitest.Job, question string) bool {
		stmt, ok := providertest.FreeSQLStatements[question]
		if ok && job != openaitest.Compose {
			openaitest.Reply(w, "m", "", openaitest.ToolCall{Name: "query_sql", Args: providertest.FreeSQLArgs(stmt)})
		}
		return ok && job != openaitest.Compose
	}
	p := newProvider(t, Options{BaseURL: srv.BaseURL()})
	providertest.RunSelectFreeSQL(t, p, func(t *testing.T) []byte { return srv.Last(t).Body })
}
