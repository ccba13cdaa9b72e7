package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/provenant/provenant/answer"
)

func runAsk(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ask", "ask [flags] QUESTION",
		`provenant ask --json "What is the stock state of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"`, stderr)
	var ef engineFlags
	ef.register(fs)
	ef.gov.register(fs, surfaceCLI)
	asJSON := fs.Bool("json", false, "print the answer as one JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	question := strings.Join(fs.Args(), " ")
	if err := ef.gov.open(ctx, &ef); err != nil {
		return err
	}
	defer ef.gov.close()

	_, e, err := ef.start(ctx, stderr)
	if err != nil {
		return err
	}
	defer e.Close()

	a := e.Pipeline.Ask(ctx, question)
	if *asJSON {
		b, err := json.Marshal(a)
		if err != nil {
			return fmt.Errorf("encode answer: %w", err)
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	return printAnswer(stdout, a)
}

// printAnswer writes an answer for a person: the sentence or the reason,
// then what stands behind it.
func printAnswer(w io.Writer, a answer.Answer) error {
	switch {
	case a.Text() != "":
		fmt.Fprintln(w, a.Text())
	case !a.Reason().IsZero():
		fmt.Fprintf(w, "%s: %s\n", a.Outcome(), a.Reason())
	}
	line := []string{"outcome: " + string(a.Outcome())}
	if a.Tool() != "" {
		line = append(line, "tool: "+a.Tool())
	}
	if p, ok := a.Provenance(); ok {
		if ids := p.EventIDs(); len(ids) > 0 {
			shown := ids
			if len(shown) > 5 {
				shown = shown[:5]
			}
			more := ""
			if len(ids) > len(shown) {
				more = fmt.Sprintf(" (+%d more)", len(ids)-len(shown))
			}
			line = append(line, fmt.Sprintf("events: %s%s", strings.Join(shown, ", "), more))
		} else if abs, ok := p.Absence(); ok {
			line = append(line, fmt.Sprintf("absence attested (re-enumerated: %d)", abs.EnumeratedCount))
		}
	}
	if v, ok := a.Verdict(); ok {
		status := "verified"
		if !v.OK() {
			status = fmt.Sprintf("NOT verified (provenance_valid=%t value_matches=%t complete=%t)", v.ProvenanceValid, v.ValueMatches, v.Complete)
		}
		line = append(line, status)
	}
	if a.Stage() != "" {
		line = append(line, "stage: "+string(a.Stage()))
	}
	_, err := fmt.Fprintf(w, "  %s\n", strings.Join(line, " · "))
	return err
}
