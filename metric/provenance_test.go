package metric

import (
	"errors"
	"slices"
	"testing"

	"github.com/provenant/provenant/fact"
)

func TestProvenanceOf(t *testing.T) {
	cat := loadCatalog(t, "retail")
	q, err := Compile(cat, Request{Metric: "scan_count", Start: day1, End: day3, Scope: All()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	re := &Table{Keys: []string{"e3", "e1", "e2"}}
	p := ProvenanceOf(q, re, 0)
	if !slices.Equal(p.Keys, []string{"e1", "e2", "e3"}) || p.Partial || p.Rows != 3 || p.Digest != fact.Digest(re.Keys) ||
		p.SQLHash != q.Hash() || !slices.Equal(p.Tables, []string{"events"}) {
		t.Errorf("ProvenanceOf = %+v", p)
	}
	if fp, err := p.Fact(); err != nil || fp.NumEvents() != 3 {
		t.Errorf("Fact = %v, %v", fp, err)
	}
	p = ProvenanceOf(q, re, 2)
	if !slices.Equal(p.Keys, []string{"e1", "e2"}) || !p.Partial || p.Rows != 3 || p.Digest != fact.Digest(re.Keys) {
		t.Errorf("ProvenanceOf(max 2) = %+v", p)
	}
	if fp, err := p.Fact(); err != nil || fp.NumEvents() != 3 {
		t.Errorf("Fact (in part) = %v, %v", fp, err)
	}
	if _, err := ProvenanceOf(q, &Table{}, 0).Fact(); !errors.Is(err, fact.ErrNoEvents) {
		t.Errorf("Fact of no rows = %v, want ErrNoEvents", err)
	}
}
