package openai

import (
	"encoding/json"
	"testing"
)

// TestProposal_StrictArguments: the model's arguments are read by the one
// strict decoder; a number beyond float64 no longer empties them.
func TestProposal_StrictArguments(t *testing.T) {
	tests := []struct {
		name, args string
		want       map[string]any
	}{
		{"ok", `{"store_id":"st-003"}`, map[string]any{"store_id": "st-003"}},
		{"number beyond float64 is kept", `{"store_id":1e400,"as_of":"x"}`, map[string]any{"store_id": json.Number("1e400"), "as_of": "x"}},
		{"repeated key is not last-wins", `{"store_id":"st-003","store_id":"st-004"}`, map[string]any{}},
		{"not an object", `[1]`, map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := proposal("get_price", tt.args).Params
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tt.want)
			if string(g) != string(w) || got == nil {
				t.Errorf("params = %s, want %s", g, w)
			}
		})
	}
}
