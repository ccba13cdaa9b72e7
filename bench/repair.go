package bench

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// repairReport is the part of `provenant eval --repair --json` a table
// shows.
type repairReport struct {
	Provider    string  `json:"provider"`
	MetricNoise float64 `json:"metric_noise"`
	Retries     int     `json:"retries"`
	Seeds       int     `json:"seeds"`
	// SelfConsistency is the samples voted on per question (0: no vote).
	SelfConsistency int `json:"self_consistency"`
	Sets            []struct {
		Name    string     `json:"name"`
		Items   int        `json:"items"`
		Runs    int        `json:"runs"`
		Off     repairGate `json:"off"`
		On      repairGate `json:"on"`
		Classes map[string]struct {
			Runs int        `json:"runs"`
			Off  repairGate `json:"off"`
			On   repairGate `json:"on"`
		} `json:"classes"`
		Attempts     map[string]int `json:"attempts"`
		ResolvedAt   map[string]int `json:"resolved_at"`
		Exhausted    int            `json:"exhausted"`
		SpecialCause int            `json:"special_cause"`
	} `json:"sets"`
}

type repairGate struct {
	Passed int     `json:"passed"`
	Total  int     `json:"total"`
	Rate   float64 `json:"rate"`
}

func (g repairGate) String() string {
	return fmt.Sprintf("%d/%d (%.0f%%)", g.Passed, g.Total, 100*g.Rate)
}

// RepairTable renders an eval --repair record: per demo, the accuracy on
// its metric items with the repair loop off and on, by the class of the
// first proposal's failure; the classes of every repair attempt; and the
// attempts that ended correct.
func RepairTable(rec *Record) (string, error) {
	if len(rec.Outputs) != 1 {
		return "", fmt.Errorf("render repair table: want one run, got %d", len(rec.Outputs))
	}
	var r repairReport
	if err := json.Unmarshal([]byte(rec.Outputs[0]), &r); err != nil {
		return "", fmt.Errorf("render repair table: %w", err)
	}
	if len(r.Sets) == 0 {
		return "", fmt.Errorf("render repair table: no set")
	}
	var b strings.Builder
	first, after := "first proposal's failure", "correct after 1, 2, ... attempts"
	if r.SelfConsistency > 1 {
		fmt.Fprintf(&b, "Instrument `%s`: metric-selection faults (wrong metric, wrong dimension, wrong window) each at rate %g, %d seeds; self-consistency over %d samples per question on both sides, each failing sample repaired on its own with at most %d repair attempts, the vote over the repaired samples.\n\n",
			r.Provider, r.MetricNoise, r.Seeds, r.SelfConsistency, r.Retries)
		first, after = "first failure caught in a sample", "correct after 1, 2, ... attempts (most of any one sample)"
	} else {
		fmt.Fprintf(&b, "Instrument `%s`: metric-selection faults (wrong metric, wrong dimension, wrong window) each at rate %g, %d seeds, at most %d repair attempts.\n\n",
			r.Provider, r.MetricNoise, r.Seeds, r.Retries)
	}
	fmt.Fprintf(&b, "| demo | %s | runs | loop off | loop on |\n|---|---|---|---|---|\n", first)
	for _, s := range r.Sets {
		fmt.Fprintf(&b, "| %s (%d metric items) | all | %d | %s | %s |\n", s.Name, s.Items, s.Runs, s.Off, s.On)
		names := make([]string, 0, len(s.Classes))
		for n := range s.Classes {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			c := s.Classes[n]
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s |\n", s.Name, n, c.Runs, c.Off, c.On)
		}
	}
	fmt.Fprintf(&b, "\n| demo | repair attempts by class | %s | caught, not resolved | special cause |\n|---|---|---|---|---|\n", after)
	for _, s := range r.Sets {
		var att, res []string
		for _, c := range []string{"sql_error", "empty_result", "budget_exceeded", "permission_denied", "schema_violation", "implausible_magnitude"} {
			att = append(att, fmt.Sprintf("%s %d", c, s.Attempts[c]))
		}
		for n := 1; n <= r.Retries; n++ {
			res = append(res, fmt.Sprint(s.ResolvedAt[fmt.Sprint(n)]))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d |\n", s.Name, strings.Join(att, ", "), strings.Join(res, ", "), s.Exhausted, s.SpecialCause)
	}
	b.WriteString("\n")
	b.WriteString(Provenance(rec))
	return b.String(), nil
}
