package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the report for a person: one line per item, then the
// gates.
func WriteTable(w io.Writer, r Report) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	suite := r.SuiteVersion
	if r.Catalog != "" {
		suite += " (catalog " + r.Catalog + ")"
	}
	fmt.Fprintf(tw, "suite %s on %s, provider %s", suite, r.DatasetVersion, orNone(r.Provider))
	if r.Now != "" {
		fmt.Fprintf(tw, ", now %s", r.Now)
	}
	fmt.Fprint(tw, "\n\n")
	fmt.Fprintln(tw, "ID\tCOV\tEXPECTED\tOUTCOME\tTOOL\tCORRECT\tPROVENANCE\tDETAIL")
	for _, row := range r.Items {
		correct := "yes"
		switch {
		case row.OverRefusal:
			correct = "NO (over-refusal)"
		case !row.Correct:
			correct = "NO"
		}
		tl := row.Tool
		if tl == "" {
			tl = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			row.ID, row.Coverage, row.Expected, row.Outcome, tl, correct, row.Provenance, row.Detail)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "GATE\tPASSED\tTOTAL\tRATE\tMET")
	for _, ng := range r.Gates.All() {
		met := "yes"
		if !ng.Gate.Met() {
			met = "NO"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f%%\t%s\n", ng.Name, ng.Gate.Passed, ng.Gate.Total, 100*ng.Gate.Rate, met)
	}
	if len(r.Classes) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "CLASS\tITEMS\tACCURACY\tABSTAINED\tGROUNDING REFUSED\tESCAPES")
		for _, c := range Classes {
			st := r.Classes[c]
			if st == nil || st.Items == 0 {
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%d\n", c, st.Items, 100*st.Accuracy, 100*st.AbstentionRate, 100*st.GroundingRefusal, st.Escapes)
		}
	}
	if len(r.Families) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "FAMILY\tITEMS\tCORRECT\tWRONG\tABSTAINED\tREASONS MATCHED")
		for _, f := range Families {
			st := r.Families[f]
			if st == nil || st.Items == 0 {
				continue
			}
			reasons := "-"
			if st.Reasons > 0 {
				reasons = fmt.Sprintf("%d/%d", st.ReasonsMatched, st.Reasons)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\n", f, st.Items, st.Correct, st.Wrong, st.Abstained, reasons)
		}
		fmt.Fprintf(tw, "\nwrong answers shipped: %d (must be 0)\nabstention reasons not matched: %d (must be 0)\n", r.WrongAnswers, r.ReasonMismatches)
	}
	fmt.Fprintf(tw, "\nover-refusals: %d\nfabricated-numeral escapes: %d (must be 0)\n", r.OverRefusals, r.Escapes)
	verdict := "all gates met"
	if !r.Passed {
		verdict = "some gates NOT met"
	}
	fmt.Fprintf(tw, "%d items: %s\n", len(r.Items), verdict)
	if err := tw.Flush(); err != nil {
		return err
	}
	// Padding leaves trailing blanks where the last columns are empty.
	var out bytes.Buffer
	for line := range strings.Lines(buf.String()) {
		out.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
	_, err := w.Write(out.Bytes())
	return err
}

// WriteJSON prints the report as one indented JSON object.
func WriteJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	return nil
}
