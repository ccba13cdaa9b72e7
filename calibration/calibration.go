// Package calibration is the calibrated abstention policy: per question
// class, the lowest confidence threshold whose conditional accuracy on
// answered questions has a Wilson lower bound at or above a target, found
// by eval --calibrate on a calibration split of the gold set and committed
// as JSON. The pipeline loads it and abstains below threshold.
//
// The package imports only the standard library, package stats and the
// strict JSON decoder (itself standard library only).
package calibration

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/internal/strictjson"
	"github.com/provenant/provenant/stats"
)

// Question classes, by tool.
const (
	ClassScalar    = "scalar"    // a text, integer or number value (fact.Kind.Scalar)
	ClassAggregate = "aggregate" // an entity count
	ClassList      = "list"      // an entity list
	ClassWindow    = "window"    // a row count over a window
	// ClassMetric is a governed metric's table (query_metric). It is not
	// in Classes: no gold suite calibrates it yet, so a policy has no
	// threshold for it.
	ClassMetric = "metric"
)

// Classes lists the in-coverage classes in a fixed order.
var Classes = []string{ClassScalar, ClassAggregate, ClassList, ClassWindow}

// ClassOfKind returns the class of a call to a tool whose value is of
// kind k: entity counts are aggregates, entity lists are lists, row
// counts (over a window) are windows, and scalars are scalars.
func ClassOfKind(k fact.Kind) string {
	switch k {
	case fact.KindEntityCount:
		return ClassAggregate
	case fact.KindEntityList:
		return ClassList
	case fact.KindRowCount:
		return ClassWindow
	case fact.KindTable:
		return ClassMetric
	}
	return ClassScalar
}

// Threshold is one selected threshold and what it achieved on the
// calibration split.
type Threshold struct {
	Threshold   float64 `json:"threshold"`
	Coverage    float64 `json:"coverage"`
	Accuracy    float64 `json:"accuracy"`
	WilsonLower float64 `json:"wilson_lower"`
	Support     int     `json:"support"`
}

// Policy is a calibrated abstention policy with its provenance: which gold
// suite, dataset, provider (with its error rates) and commit produced it,
// and the risk-coverage curves it was chosen from.
type Policy struct {
	SuiteVersion   string  `json:"suite_version"`
	DatasetVersion string  `json:"dataset_version"`
	Provider       string  `json:"provider"`
	Commit         string  `json:"commit"`
	Target         float64 `json:"target"`
	Confidence     float64 `json:"confidence"`
	MinSupport     int     `json:"min_support"`
	// Global applies to a class without a threshold of its own.
	Global Threshold `json:"global"`
	// Classes holds the classes that had enough support on their own.
	Classes map[string]Threshold `json:"classes"`
	// Curves are the risk-coverage points, "global" and per class.
	Curves map[string][]stats.Point `json:"curves"`
}

// ErrInvalid is matched by every error Parse and Validate return.
var ErrInvalid = errors.New("invalid abstention policy")

// maxPolicyBytes bounds what Parse reads.
const maxPolicyBytes = 16 << 20

// Parse reads a policy with the strict decoder (package strictjson:
// unknown, repeated or differently cased fields are errors, and so is a
// number that does not fit) and validates it.
func Parse(r io.Reader) (*Policy, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxPolicyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	if len(b) > maxPolicyBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrInvalid, maxPolicyBytes)
	}
	var p Policy
	if err := strictjson.Decode(b, &p, nil); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate checks the thresholds and the calibration settings.
func (p *Policy) Validate() error {
	check := func(name string, t Threshold) error {
		if math.IsNaN(t.Threshold) || t.Threshold < 0 || t.Threshold > 1.0000001 {
			return fmt.Errorf("%w: %s: threshold must be in [0, 1]", ErrInvalid, name)
		}
		return nil
	}
	if err := check("global", p.Global); err != nil {
		return err
	}
	for c, t := range p.Classes {
		if !slices.Contains(Classes, c) {
			return fmt.Errorf("%w: classes: unknown class (want one of %v)", ErrInvalid, Classes)
		}
		if err := check("classes."+c, t); err != nil {
			return err
		}
	}
	if !(p.Target > 0 && p.Target < 1) || !(p.Confidence > 0 && p.Confidence < 1) || p.MinSupport < 1 {
		return fmt.Errorf("%w: target and confidence must be in (0, 1), min_support at least 1", ErrInvalid)
	}
	return nil
}

// ThresholdFor returns the threshold for a class: its own when it had
// enough support, the global one otherwise.
func (p *Policy) ThresholdFor(class string) float64 {
	if t, ok := p.Classes[class]; ok {
		return t.Threshold
	}
	return p.Global.Threshold
}
