package grounding

import (
	"errors"
	"strings"
	"testing"
)

// TestRequest_Lengths: the text and question limits count characters, as
// the check_grounding schema's maxLength does, not bytes.
func TestRequest_Lengths(t *testing.T) {
	ledger := []byte(`{"numerals":[{"value":13,"unit":"count"}]}`)
	tests := []struct {
		name     string
		text     string
		question string
		wantErr  bool
	}{
		{"text at the limit in two-byte characters", "13 " + strings.Repeat("é", MaxRequestText-3), "", false},
		{"text one character over", strings.Repeat("a", MaxRequestText+1), "", true},
		{"question at the limit in two-byte characters", "13", strings.Repeat("é", MaxRequestQuestion), false},
		{"question one character over", "13", strings.Repeat("a", MaxRequestQuestion+1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Request{Text: tt.text, Question: tt.question, Ledger: ledger}.Run()
			if gotErr := err != nil; gotErr != tt.wantErr {
				t.Fatalf("Run: err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrRequest) {
				t.Errorf("Run: %v does not match ErrRequest", err)
			}
		})
	}
}
