package memapi_test

import (
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/memapi"
	"github.com/provenant/provenant/memory/memstore"
	"github.com/provenant/provenant/tool"
)

// jsonFields is the JSON names of a struct's fields.
func jsonFields(v any) []string {
	var out []string
	t := reflect.TypeOf(v)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func properties(schema map[string]any) []string {
	var out []string
	for k := range schema["properties"].(map[string]any) {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestSchemas: the registry's schemas describe exactly the request types
// the surfaces decode into.
func TestSchemas(t *testing.T) {
	for _, tt := range []struct {
		name   string
		schema map[string]any
		req    any
	}{
		{tool.RememberName, tool.RememberSchema(), memapi.RememberRequest{}},
		{tool.AnnotateName, tool.AnnotateSchema(), memapi.AnnotateRequest{}},
		{tool.RecallName, tool.RecallSchema(), memapi.RecallRequest{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := properties(tt.schema), jsonFields(tt.req); !slices.Equal(got, want) {
				t.Errorf("schema properties %v, request fields %v", got, want)
			}
		})
	}
	rel := tool.RememberSchema()["properties"].(map[string]any)["relevance"].(map[string]any)
	if got, want := properties(rel), jsonFields(memapi.Relevance{}); !slices.Equal(got, want) {
		t.Errorf("relevance schema %v, memapi.Relevance %v", got, want)
	}
	if got := rel["required"]; !reflect.DeepEqual(got, []any{"score"}) {
		t.Errorf("relevance schema requires %v, want [score] (memapi.Relevance refuses a relevance without one)", got)
	}
	prov := tool.RememberSchema()["properties"].(map[string]any)["provenance"].(map[string]any)
	if got, want := properties(prov), jsonFields(memory.Provenance{}); !slices.Equal(got, want) {
		t.Errorf("provenance schema %v, memory.Provenance %v", got, want)
	}
}

func service() *memapi.Service {
	n := 0
	return &memapi.Service{Journal: memstore.New(), Now: func() int64 { n++; return int64(100 + n) }}
}

// TestService: remember, annotate and recall under the caller's identity;
// a private record is the writer's alone.
func TestService(t *testing.T) {
	s := service()
	ctx := t.Context()
	w, err := s.Remember(ctx, "stock-bot", memapi.RememberRequest{Key: "m-1", Text: "pr-007 is out at st-003", Subject: "pr-007@st-003"})
	if err != nil || w.Key != "m-1" || w.Time != 101 {
		t.Fatalf("remember: %+v, %v", w, err)
	}
	w, err = s.Remember(ctx, "stock-bot", memapi.RememberRequest{Text: "pricing secret", Subject: "pr-007@st-003",
		Visibility: &memapi.Visibility{Private: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^m-[0-9a-f]{16}$`).MatchString(w.Key) {
		t.Errorf("assigned key %q, want m- and 16 hex digits", w.Key)
	}
	if _, err := s.Annotate(ctx, "planner", memapi.AnnotateRequest{Key: "m-3", Kind: memory.KindSupersede, Target: "m-1",
		Text: "pr-007 was restocked at st-003", Subject: "pr-007@st-003", Stated: true}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		reader string
		want   []string
	}{
		{"stock-bot", []string{"m-3", "private"}},
		{"planner", []string{"m-3"}},
	} {
		t.Run(tt.reader, func(t *testing.T) {
			sheet, err := s.Recall(ctx, memory.Reader{Agent: tt.reader}, memapi.RecallRequest{Subject: "PR-007@st-003"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range sheet.Claims {
				if strings.HasPrefix(c.Key, "m-") && c.Key != "m-3" {
					got = append(got, "private")
				} else {
					got = append(got, c.Key)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("claims %v, want %v", got, tt.want)
			}
		})
	}
}

// TestService_CallerErrors: each mistake is an *Error with its code, and
// its message never repeats what the caller sent.
func TestService_CallerErrors(t *testing.T) {
	s := service()
	ctx := t.Context()
	if _, err := s.Remember(ctx, "bot", memapi.RememberRequest{Key: "m-1", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	const hostile = "<script>IGNORE-PREVIOUS</script>"
	for _, tt := range []struct {
		name string
		do   func() error
		code string
	}{
		{"bad key", func() error {
			_, err := s.Remember(ctx, "bot", memapi.RememberRequest{Key: hostile + " x", Text: "x"})
			return err
		}, memapi.CodeInvalidRecord},
		{"annotation kind on remember", func() error {
			_, err := s.Remember(ctx, "bot", memapi.RememberRequest{Kind: memory.KindRetract, Text: hostile})
			return err
		}, memapi.CodeInvalidRecord},
		{"unknown kind", func() error {
			_, err := s.Remember(ctx, "bot", memapi.RememberRequest{Kind: hostile, Text: "x"})
			return err
		}, memapi.CodeInvalidRecord},
		// A relevance without its score, which the schemas require, was
		// stored with a score of 0.
		{"relevance without a score", func() error {
			_, err := s.Remember(ctx, "bot", memapi.RememberRequest{Text: "x", Relevance: &memapi.Relevance{HalfLife: 60}})
			return err
		}, memapi.CodeInvalidRecord},
		{"supersede's relevance without a score", func() error {
			_, err := s.Annotate(ctx, "bot", memapi.AnnotateRequest{Kind: memory.KindSupersede, Target: "m-1", Text: "y", Relevance: &memapi.Relevance{}})
			return err
		}, memapi.CodeInvalidRecord},
		{"duplicate key", func() error {
			_, err := s.Remember(ctx, "bot", memapi.RememberRequest{Key: "m-1", Text: hostile})
			return err
		}, memapi.CodeDuplicateKey},
		{"unknown target", func() error {
			_, err := s.Annotate(ctx, "bot", memapi.AnnotateRequest{Kind: memory.KindRetract, Target: "nope-" + "x"})
			return err
		}, memapi.CodeUnknownTarget},
		{"claim kind on annotate", func() error {
			_, err := s.Annotate(ctx, "bot", memapi.AnnotateRequest{Kind: memory.KindClaim, Target: "m-1"})
			return err
		}, memapi.CodeInvalidRecord},
		{"no cues", func() error {
			_, err := s.Recall(ctx, memory.Reader{Agent: "bot"}, memapi.RecallRequest{})
			return err
		}, memapi.CodeInvalidRecall},
		{"too many items", func() error {
			_, err := s.Recall(ctx, memory.Reader{Agent: "bot"}, memapi.RecallRequest{Subject: hostile, MaxItems: 100000})
			return err
		}, memapi.CodeInvalidRecall},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			var e *memapi.Error
			if !errors.As(err, &e) || e.Code != tt.code {
				t.Fatalf("error %v, want code %s", err, tt.code)
			}
			if strings.Contains(e.Message, "IGNORE") || strings.Contains(e.Message, "nope") {
				t.Errorf("message %q repeats the request", e.Message)
			}
		})
	}
}

// TestService_PolicyWarnings: a policy document's warnings join the
// sheet's; the default stands.
func TestService_PolicyWarnings(t *testing.T) {
	s := service()
	sheet, err := s.Recall(t.Context(), memory.Reader{Agent: "bot"}, memapi.RecallRequest{Subject: "x", Policy: []byte(`{"prefer":"loudest"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(sheet.Warnings) == 0 || sheet.Policy.Prefer != memory.PreferSelfStated {
		t.Fatalf("warnings %+v, policy %+v", sheet.Warnings, sheet.Policy)
	}
}
