package eval

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/tool"
)

// A free SQL suite holds questions no governed tool or metric covers,
// each with the statement the scripted instrument (provider/scripted)
// proposes for it and the table it must give, computed independently of
// any SQL (by plain loops over the demo data, in eval/freesql_gold_test.go,
// which generates the files). `provenant eval --free-sql` runs it beside
// the catalog's governed gold set and reports the two accuracies apart.

//go:embed retail-freesql-v1.gold.yaml
var retailFreeSQL []byte

//go:embed warehouse-freesql-v1.gold.yaml
var warehouseFreeSQL []byte

// freeSQLSuites are the embedded free SQL suites, by catalog name.
var freeSQLSuites = map[string][]byte{"retail": retailFreeSQL, "warehouse": warehouseFreeSQL}

// FreeSQLSuite is a parsed free SQL suite.
type FreeSQLSuite struct {
	SuiteVersion   string        `yaml:"suite_version" json:"suite_version"`
	Catalog        string        `yaml:"catalog" json:"catalog"`
	DatasetVersion string        `yaml:"dataset_version" json:"dataset_version"`
	Items          []FreeSQLItem `yaml:"items" json:"items"`
}

// FreeSQLItem is one question of a free SQL suite.
type FreeSQLItem struct {
	ID       string `yaml:"id" json:"id"`
	Question string `yaml:"question" json:"question"`
	// SQL is the statement the scripted instrument proposes.
	SQL    string        `yaml:"sql" json:"sql"`
	Note   string        `yaml:"note,omitempty" json:"note,omitempty"`
	Expect FreeSQLExpect `yaml:"expect" json:"expect"`
}

// FreeSQLExpect is the table an item's answer must carry: its column
// names and rows, each cell a number, a string (text, or an instant as
// 2006-01-02T15:04:05Z) or null.
type FreeSQLExpect struct {
	Columns []string `yaml:"columns" json:"columns"`
	Rows    [][]any  `yaml:"rows" json:"rows"`
}

// FreeSQLTolerance is how far a number cell may be from its expected
// value, relative to the larger magnitude (with 1e-9 absolute): the
// expectation is computed in Go, the answer by DuckDB.
const FreeSQLTolerance = 1e-9

// FreeSQLSuiteFile returns the embedded free SQL suite of a catalog.
func FreeSQLSuiteFile(catalog string) ([]byte, bool) {
	b, ok := freeSQLSuites[catalog]
	return slices.Clone(b), ok
}

// LoadFreeSQLSuite parses and checks the embedded free SQL suite of a
// catalog.
func LoadFreeSQLSuite(catalog string) (*FreeSQLSuite, error) {
	b, ok := freeSQLSuites[catalog]
	if !ok {
		return nil, fmt.Errorf("load free SQL suite: catalog %s has none", catalog)
	}
	return ParseFreeSQL(bytes.NewReader(b))
}

// ErrInvalidFreeSQL is matched by every error of ParseFreeSQL that is the
// file's fault.
var ErrInvalidFreeSQL = errors.New("invalid free SQL suite")

// ParseFreeSQL reads a free SQL suite strictly (unknown and duplicate keys
// are errors) and checks it: a version, a catalog and a dataset version;
// unique ids; every item a question, a statement of at most 8,192 bytes
// and an expected table whose rows are as wide as its columns. An error
// names the item, never a value.
func ParseFreeSQL(r io.Reader) (*FreeSQLSuite, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxGoldBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read free SQL suite: %w", err)
	}
	if len(b) > MaxGoldBytes {
		return nil, fmt.Errorf("parse free SQL suite: %w: file exceeds %d bytes", ErrInvalidFreeSQL, MaxGoldBytes)
	}
	var s FreeSQLSuite
	if err := yaml.UnmarshalWithOptions(b, &s, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("parse free SQL suite: %w: %s", ErrInvalidFreeSQL, firstLine(err.Error()))
	}
	bad := func(item, reason string) error {
		return fmt.Errorf("validate free SQL suite: %w: %s%s", ErrInvalidFreeSQL, item, reason)
	}
	if s.SuiteVersion == "" || s.Catalog == "" || s.DatasetVersion == "" || len(s.Items) == 0 {
		return nil, bad("", "want suite_version, catalog, dataset_version and items")
	}
	seen := map[string]bool{}
	for i, it := range s.Items {
		at := fmt.Sprintf("items[%d]: ", i)
		switch {
		case it.ID == "" || seen[it.ID]:
			return nil, bad(at, "want a unique id")
		case strings.TrimSpace(it.Question) == "":
			return nil, bad(at, "want a question")
		case tool.StatementOutOfDomain(it.SQL, 8192) != "":
			return nil, bad(at, "sql "+tool.StatementOutOfDomain(it.SQL, 8192))
		case len(it.Expect.Columns) == 0 || len(it.Expect.Rows) == 0:
			return nil, bad(at, "want expect.columns and expect.rows")
		}
		seen[it.ID] = true
		for j, row := range it.Expect.Rows {
			if len(row) != len(it.Expect.Columns) {
				return nil, bad(at, fmt.Sprintf("expect.rows[%d] is not as wide as the columns", j))
			}
		}
	}
	return &s, nil
}

// firstLine is the first line of a parser's message (goccy quotes the
// source below it).
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Script returns the statements of the suite by question, for the
// scripted instrument.
func (s *FreeSQLSuite) Script() map[string]string {
	out := make(map[string]string, len(s.Items))
	for _, it := range s.Items {
		out[it.Question] = it.SQL
	}
	return out
}

// Accuracy is a count of correct items.
type Accuracy struct {
	Suite   string  `json:"suite"`
	Items   int     `json:"items"`
	Correct int     `json:"correct"`
	Rate    float64 `json:"rate"`
}

func accuracy(suite string, items, correct int) Accuracy {
	a := Accuracy{Suite: suite, Items: items, Correct: correct}
	if items > 0 {
		a.Rate = float64(correct) / float64(items)
	}
	return a
}

// FreeSQLRow is one free SQL item's result: with free SQL off (the
// governed menu alone) and on.
type FreeSQLRow struct {
	ID string `json:"id"`
	// Off is the outcome with free SQL off; OffCorrect whether it
	// nonetheless carried the expected table (a governed tool covering
	// the question after all).
	Off        answer.Outcome `json:"off"`
	OffCorrect bool           `json:"off_correct"`
	// On is the outcome with free SQL on, Tool the tool called,
	// Governance the answer's tag, Class a rejection's failure class.
	On         answer.Outcome    `json:"on"`
	Tool       string            `json:"tool,omitempty"`
	Governance answer.Governance `json:"governance,omitempty"`
	Class      string            `json:"class,omitempty"`
	Correct    bool              `json:"correct"`
	Detail     string            `json:"detail,omitempty"`
}

// FreeSQLReport is what `eval --free-sql` reports: the governed gold set's
// accuracy on the engine with free SQL on (free SQL must not change it),
// the free SQL suite's with free SQL off (the coverage gap: the governed
// menu answers none of it) and on (ungoverned accuracy), item by item.
type FreeSQLReport struct {
	Provider       string `json:"provider"`
	Catalog        string `json:"catalog"`
	DatasetVersion string `json:"dataset_version"`
	// Governed is the governed gold set's accuracy, free SQL on.
	Governed Accuracy `json:"governed"`
	// GovernedOnly is the free SQL suite's accuracy with free SQL off.
	GovernedOnly Accuracy `json:"governed_only"`
	// Ungoverned is the free SQL suite's accuracy with free SQL on: an
	// answer counts when it is tagged ungoverned and carries the
	// expected table.
	Ungoverned Accuracy     `json:"ungoverned"`
	Items      []FreeSQLRow `json:"items"`
	// WrongAnswers counts answers shipped (either run) whose table is not
	// the expected one.
	WrongAnswers int `json:"wrong_answers"`
}

// RunFreeSQL asks every item of s of off (an engine without free SQL,
// the governed menu alone) and of on (the same engine with free SQL on,
// whose provider proposes the suite's statements), scores both, and
// takes the governed accuracy from governed, the governed gold set's
// report on the engine with free SQL on. An error means the run could not
// finish (the context ended).
func RunFreeSQL(ctx context.Context, off, on Asker, s *FreeSQLSuite, governed Report) (FreeSQLReport, error) {
	r := FreeSQLReport{Catalog: s.Catalog, DatasetVersion: s.DatasetVersion}
	if n, ok := on.(Named); ok {
		r.Provider = n.ProviderName()
	}
	gc := 0
	for _, row := range governed.Items {
		if row.Correct {
			gc++
		}
	}
	r.Governed = accuracy(governed.SuiteVersion, len(governed.Items), gc)
	offCorrect, onCorrect := 0, 0
	for _, it := range s.Items {
		if err := ctx.Err(); err != nil {
			return FreeSQLReport{}, fmt.Errorf("run free SQL suite: %w", err)
		}
		row := FreeSQLRow{ID: it.ID}
		a := off.Ask(ctx, it.Question)
		row.Off = a.Outcome()
		if shipped(a) {
			if row.OffCorrect = tableMatches(a, it.Expect) == ""; row.OffCorrect {
				offCorrect++
			} else {
				r.WrongAnswers++
			}
		}
		a = on.Ask(ctx, it.Question)
		row.On, row.Tool, row.Governance = a.Outcome(), a.Tool(), a.Governance()
		switch {
		case a.Outcome() == answer.Rejected:
			row.Class = string(a.Reason().Kind)
			row.Detail = "rejected: " + row.Class
		case !shipped(a):
			row.Detail = string(a.Outcome()) + ": " + string(a.Reason().Kind)
		case a.Governance() != answer.Ungoverned:
			row.Detail = "answered without the ungoverned tag"
			if tableMatches(a, it.Expect) != "" {
				r.WrongAnswers++
			}
		default:
			row.Detail = tableMatches(a, it.Expect)
			row.Correct = row.Detail == ""
			if row.Correct {
				onCorrect++
			} else {
				r.WrongAnswers++
			}
		}
		r.Items = append(r.Items, row)
	}
	r.GovernedOnly = accuracy(s.SuiteVersion, len(s.Items), offCorrect)
	r.Ungoverned = accuracy(s.SuiteVersion, len(s.Items), onCorrect)
	return r, nil
}

// shipped reports whether an answer carries a value.
func shipped(a answer.Answer) bool {
	_, ok := a.Value()
	return ok && (a.Outcome() == answer.Answered || a.Outcome() == answer.Absence)
}

// tableMatches returns "" when a's value is the expected table (column
// names and every cell: text and instants exactly, numbers within
// FreeSQLTolerance), else what differs, naming no value.
func tableMatches(a answer.Answer, want FreeSQLExpect) string {
	v, _ := a.Value()
	t := v.Table
	if v.Kind != fact.KindTable || t == nil {
		return "not a table"
	}
	if len(t.Columns) != len(want.Columns) {
		return fmt.Sprintf("%d columns, want %d", len(t.Columns), len(want.Columns))
	}
	for i, c := range t.Columns {
		if c.Name != want.Columns[i] {
			return fmt.Sprintf("column %d is not the expected one", i)
		}
	}
	if len(t.Rows) != len(want.Rows) {
		return fmt.Sprintf("%d rows, want %d", len(t.Rows), len(want.Rows))
	}
	for i, row := range t.Rows {
		for j, c := range row {
			if !cellMatches(t.Columns[j].Type, c, want.Rows[i][j]) {
				return fmt.Sprintf("cell [%d][%d] differs", i, j)
			}
		}
	}
	return ""
}

func cellMatches(typ fact.CellType, c fact.Cell, want any) bool {
	if want == nil || !c.Valid {
		return want == nil && !c.Valid
	}
	switch typ {
	case fact.CellNumber:
		var w float64
		switch x := want.(type) {
		case float64:
			w = x
		case int:
			w = float64(x)
		case int64:
			w = float64(x)
		case uint64:
			w = float64(x)
		default:
			return false
		}
		return math.Abs(c.Num-w) <= FreeSQLTolerance*max(1, math.Abs(w), math.Abs(c.Num))
	case fact.CellInstant:
		return want == c.Instant.UTC().Format(time.RFC3339)
	}
	return want == c.Text
}

// WriteFreeSQLTable prints a free SQL report for a person: the three
// accuracies, then one line per item.
func WriteFreeSQLTable(w io.Writer, r FreeSQLReport) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "free SQL on catalog %s, dataset %s, provider %s\n\n", r.Catalog, r.DatasetVersion, orNone(r.Provider))
	fmt.Fprintln(tw, "ANSWERS\tSUITE\tITEMS\tCORRECT\tACCURACY")
	for _, a := range []struct {
		name string
		acc  Accuracy
	}{
		{"governed (free SQL on)", r.Governed},
		{"free SQL questions, governed menu only", r.GovernedOnly},
		{"free SQL questions, ungoverned (free SQL on)", r.Ungoverned},
	} {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f%%\n", a.name, a.acc.Suite, a.acc.Items, a.acc.Correct, 100*a.acc.Rate)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "ID\tOFF\tON\tTOOL\tGOVERNANCE\tCORRECT\tDETAIL")
	for _, row := range r.Items {
		correct := "yes"
		if !row.Correct {
			correct = "NO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", row.ID, row.Off, row.On, dash(row.Tool), dash(string(row.Governance)), correct, row.Detail)
	}
	fmt.Fprintf(tw, "\nwrong answers shipped: %d (must be 0)\n", r.WrongAnswers)
	if err := tw.Flush(); err != nil {
		return err
	}
	var out bytes.Buffer
	for line := range strings.Lines(buf.String()) {
		out.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
	_, err := w.Write(out.Bytes())
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteFreeSQLJSON prints a free SQL report as one indented JSON object.
func WriteFreeSQLJSON(w io.Writer, r FreeSQLReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	return nil
}
