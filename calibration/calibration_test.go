package calibration_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/provenant/provenant/calibration"
	"github.com/provenant/provenant/fact"
)

const valid = `{"suite_version": "s", "dataset_version": "d", "provider": "noisy(rules)[rate=0.2]", "commit": "abc",
 "target": 0.98, "confidence": 0.95, "min_support": 30,
 "global": {"threshold": 0.8, "coverage": 0.5, "accuracy": 0.99, "wilson_lower": 0.981, "support": 40},
 "classes": {"window": {"threshold": 0.6, "coverage": 0.7, "accuracy": 1, "wilson_lower": 0.98, "support": 31}},
 "curves": {"global": []}}`

func TestParse(t *testing.T) {
	p, err := calibration.Parse(strings.NewReader(valid))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		class string
		want  float64
	}{
		{calibration.ClassWindow, 0.6}, // its own threshold
		{calibration.ClassScalar, 0.8}, // the global one
		{calibration.ClassAggregate, 0.8},
	}
	for _, tt := range tests {
		if got := p.ThresholdFor(tt.class); got != tt.want {
			t.Errorf("ThresholdFor(%s) = %v, want %v", tt.class, got, tt.want)
		}
	}
}

func TestParse_Rejects(t *testing.T) {
	tests := []struct{ name, edit, with string }{
		{"unknown field", `"commit": "abc"`, `"commit": "abc", "extra": 1`},
		{"threshold above 1", `"threshold": 0.8`, `"threshold": 1.5`},
		{"negative threshold", `"threshold": 0.6`, `"threshold": -0.1`},
		{"unknown class", `"window":`, `"weather":`},
		{"no support", `"min_support": 30`, `"min_support": 0`},
		{"target out of range", `"target": 0.98`, `"target": 1`},
		{"not JSON", `{"suite_version"`, `{suite_version`},
		{"repeated field", `"target": 0.98`, `"target": 0.98, "target": 0.5`},
		{"field in another case", `"target": 0.98`, `"Target": 0.98`},
		{"repeated class", `"classes": {`, `"classes": {"window": {"threshold": 0.1}, `},
		{"number beyond float64", `"target": 0.98`, `"target": 1e400`},
		{"trailing data", `"curves": {"global": []}}`, `"curves": {"global": []}} {}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := calibration.Parse(strings.NewReader(strings.Replace(valid, tt.edit, tt.with, 1)))
			if !errors.Is(err, calibration.ErrInvalid) {
				t.Errorf("Parse() error = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestClassOfKind(t *testing.T) {
	for k, want := range map[fact.Kind]string{
		fact.KindText: "scalar", fact.KindInteger: "scalar", fact.KindNumber: "scalar",
		fact.KindEntityCount: "aggregate", fact.KindEntityList: "list", fact.KindRowCount: "window",
	} {
		if got := calibration.ClassOfKind(k); got != want {
			t.Errorf("ClassOfKind(%s) = %s, want %s", k, got, want)
		}
	}
}
