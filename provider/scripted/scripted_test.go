package scripted_test

import (
	"context"
	"testing"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/scripted"
	"github.com/provenant/provenant/tool"
)

var menu = []tool.Def{
	{Name: "count_rows", Value: fact.KindRowCount},
	{Name: "query_sql", Value: fact.KindTable, Params: []tool.Param{{Name: "sql", Kind: tool.Statement, MaxBytes: 8192}}},
}

// inner is a provider that proposes count_rows for everything.
type inner struct{}

func (inner) Name() string { return "inner" }
func (inner) Select(context.Context, string, []tool.Def) (*tool.Proposal, error) {
	return &tool.Proposal{Tool: "count_rows"}, nil
}
func (inner) Compose(context.Context, provider.ComposeInput) (string, error) { return "inner", nil }

func TestProvider(t *testing.T) {
	p := scripted.New(scripted.Script{
		SQL:       map[string]string{"How many stores?": "SELECT count(*) AS n FROM stores"},
		Sentences: map[string]string{"How many stores?": "There are 99 stores."},
	}, inner{})
	if got := p.Name(); got != "scripted-sql(inner)" {
		t.Errorf("Name = %q, want the instrument labelled", got)
	}
	tests := []struct {
		name, question string
		menu           []tool.Def
		wantTool       string // "" for no proposal
		wantSQL        string
	}{
		{"scripted", "How many stores?", menu, "query_sql", "SELECT count(*) AS n FROM stores"},
		{"case and spaces folded", "  how many   STORES? ", menu, "query_sql", "SELECT count(*) AS n FROM stores"},
		{"not scripted", "How many rows?", menu, "count_rows", ""},
		{"free SQL off", "How many stores?", menu[:1], "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prop, err := p.Select(t.Context(), tt.question, tt.menu)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantTool == "" {
				if prop != nil {
					t.Fatalf("Select = %+v, want none", prop)
				}
				return
			}
			if prop == nil || prop.Tool != tt.wantTool {
				t.Fatalf("Select = %+v, want %s", prop, tt.wantTool)
			}
			if tt.wantSQL != "" && prop.Params["sql"] != tt.wantSQL {
				t.Errorf("sql = %v, want %q", prop.Params["sql"], tt.wantSQL)
			}
		})
	}
	for q, want := range map[string]string{"How many stores?": "There are 99 stores.", "Other?": "inner"} {
		if got, _ := p.Compose(t.Context(), provider.ComposeInput{Question: q}); got != want {
			t.Errorf("Compose(%q) = %q, want %q", q, got, want)
		}
	}
}
