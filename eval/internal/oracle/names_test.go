package oracle

import (
	"slices"
	"testing"

	"github.com/provenant/provenant/retail"
)

// named is a hand-checked reference list: every expectation below was
// worked out on paper from these names.
var named = &retail.Dataset{
	Stores: []retail.Store{{ID: "st-001", Name: "Old Town"}, {ID: "st-002", Name: "Old Town 2"}, {ID: "st-010", Name: "Harbor"}},
	Products: []retail.Product{
		{ID: "pr-001", Name: "Oat milk 1L"}, {ID: "pr-002", Name: "Whole milk 1L"},
		{ID: "pr-003", Name: "Sourdough loaf"}, {ID: "pr-004", Name: "Sourdough loaf (line 2)"},
	},
}

func TestNamed(t *testing.T) {
	tests := []struct {
		name, entity, text string
		want               []string
	}{
		{"exact", Product, "Whole milk 1L", []string{"pr-002"}},
		{"exact any case", Product, "whole MILK 1l", []string{"pr-002"}},
		{"exact wins over a longer name holding it", Product, "Sourdough loaf", []string{"pr-003"}},
		{"exact with punctuation", Product, "sourdough loaf (line 2)", []string{"pr-004"}},
		{"every word of several names", Product, "milk", []string{"pr-001", "pr-002"}},
		{"every word of one name", Product, "oat milk", []string{"pr-001"}},
		{"a word of none", Product, "cabbage", nil},
		{"part of a word is not a word", Product, "mil", nil},
		{"store exact", Store, "old town", []string{"st-001"}},
		{"store ambiguous", Store, "Town", []string{"st-001", "st-002"}},
		{"other entity", Store, "milk", nil},
		{"empty", Product, " ?! ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Named(named, tt.entity, tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("Named(%s, %q) = %v, want %v", tt.entity, tt.text, got, tt.want)
			}
		})
	}
}

func TestNumbered(t *testing.T) {
	tests := []struct {
		name, entity string
		n            int
		want         []string
	}{
		{"store 1", Store, 1, []string{"st-001"}},
		{"store 10", Store, 10, []string{"st-010"}},
		{"no store 3", Store, 3, nil},
		{"product 4", Product, 4, []string{"pr-004"}},
		{"zero", Product, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Numbered(named, tt.entity, tt.n); !slices.Equal(got, tt.want) {
				t.Errorf("Numbered(%s, %d) = %v, want %v", tt.entity, tt.n, got, tt.want)
			}
		})
	}
}
