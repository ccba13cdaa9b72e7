package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/provenant/provenant/grounding"
)

// runGround checks a text against a ledger and prints the grounding report
// as one JSON object. It exits 0 whatever the verdict; only bad flags and
// an unreadable or invalid ledger are errors.
func runGround(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ground", "ground --ledger FILE [--policy default|strict] [--question Q] TEXT...",
		`provenant ground --ledger ledger.json --question "What is the price of pr-007 at st-003?" "pr-007 costs $7.81 at st-003."`, stderr)
	units := make([]string, 0, len(grounding.Units()))
	for _, u := range grounding.Units() {
		units = append(units, string(u))
	}
	ledgerPath := fs.String("ledger", "",
		"ledger `FILE` (required): JSON {\"numerals\": [{\"value\": number, \"unit\": \"...\", \"id\": \"...\", \"window\": [\"ts\", \"ts\"]}]};\n"+
			"value is optional when id or window is given, and may be an ISO string for units timestamp and date (else unix seconds);\n"+
			"units: "+strings.Join(units, ", ")+" (cents are US cents; none given: a plain number)")
	policy := fs.String("policy", "default", "`POLICY`: default (allows question echo, ordinal list indices and timestamps inside a ledger window) or strict (allows nothing)")
	question := fs.String("question", "", "the `QUESTION` the text answers (numerals it repeats pass as question echo)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *ledgerPath == "" {
		return usagef("--ledger FILE is required")
	}
	var p grounding.Policy
	switch *policy {
	case "default":
		p = grounding.DefaultPolicy()
	case "strict":
		p = grounding.StrictPolicy()
	default:
		return usagef("--policy: want default or strict")
	}

	f, err := openStream(ctx, *ledgerPath)
	if err != nil {
		return fmt.Errorf("open ledger file: %w", err)
	}
	defer f.Close()
	l, err := grounding.ParseLedger(f)
	if err != nil {
		return fmt.Errorf("load ledger file %s: %w", *ledgerPath, err)
	}

	r := grounding.Check(strings.Join(fs.Args(), " "), l, *question, p)
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}
