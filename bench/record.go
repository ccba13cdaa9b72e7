package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrRecord reports a malformed record file.
var ErrRecord = errors.New("malformed record")

// Header is what a record says about the run that produced it.
type Header struct {
	Command       string
	Runs          int
	Commit        string
	Modified      bool
	Date          string
	Go            string
	CPU           string
	Cores         int
	LoadavgBefore string
	LoadavgAfter  string
}

// Record is one measurement record: its header and each run's standard
// output.
type Record struct {
	Header
	Outputs []string
}

const (
	recordTitle = "# provenant measurement record"
	runPrefix   = "=== run "
)

// Parse reads a record. Every header field is required; the number of
// runs must match the header.
func Parse(r io.Reader) (*Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	rec := &Record{}
	fields := map[string]string{}
	line := 0
	var out *strings.Builder
	flush := func() {
		if out != nil {
			rec.Outputs = append(rec.Outputs, out.String())
		}
	}
	for sc.Scan() {
		line++
		t := sc.Text()
		switch {
		case line == 1:
			if t != recordTitle {
				return nil, fmt.Errorf("parse record: line 1: %w: want %q", ErrRecord, recordTitle)
			}
		case strings.HasPrefix(t, runPrefix):
			n, err := strconv.Atoi(strings.TrimPrefix(t, runPrefix))
			if err != nil || n != len(rec.Outputs)+1+boolInt(out != nil) {
				return nil, fmt.Errorf("parse record: line %d: %w: runs out of order", line, ErrRecord)
			}
			flush()
			out = &strings.Builder{}
		case out != nil:
			out.WriteString(t)
			out.WriteByte('\n')
		case strings.HasPrefix(t, "# "):
			k, v, ok := strings.Cut(strings.TrimPrefix(t, "# "), ": ")
			if !ok {
				return nil, fmt.Errorf("parse record: line %d: %w: want \"# key: value\"", line, ErrRecord)
			}
			fields[k] = v
		default:
			return nil, fmt.Errorf("parse record: line %d: %w: text before the first run", line, ErrRecord)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("parse record: %w", err)
	}
	flush()
	h := &rec.Header
	var err error
	str := func(k string, dst *string) {
		if v, ok := fields[k]; ok && v != "" {
			*dst = v
		} else if err == nil {
			err = fmt.Errorf("parse record: %w: header %q is missing", ErrRecord, k)
		}
	}
	var runs, cores, modified string
	str("command", &h.Command)
	str("runs", &runs)
	str("commit", &h.Commit)
	str("modified", &modified)
	str("date", &h.Date)
	str("go", &h.Go)
	str("cpu", &h.CPU)
	str("cores", &cores)
	str("loadavg-before", &h.LoadavgBefore)
	str("loadavg-after", &h.LoadavgAfter)
	if err != nil {
		return nil, err
	}
	if h.Runs, err = strconv.Atoi(runs); err != nil || h.Runs != len(rec.Outputs) {
		return nil, fmt.Errorf("parse record: %w: header says %s runs, the file holds %d", ErrRecord, runs, len(rec.Outputs))
	}
	if h.Cores, err = strconv.Atoi(cores); err != nil {
		return nil, fmt.Errorf("parse record: %w: cores is not an integer", ErrRecord)
	}
	h.Modified = modified == "true"
	return rec, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Write writes rec in the format Parse reads.
func Write(w io.Writer, rec *Record) error {
	bw := bufio.NewWriter(w)
	h := rec.Header
	fmt.Fprintln(bw, recordTitle)
	for _, kv := range [][2]string{
		{"command", h.Command}, {"runs", strconv.Itoa(len(rec.Outputs))}, {"commit", h.Commit},
		{"modified", strconv.FormatBool(h.Modified)}, {"date", h.Date}, {"go", h.Go}, {"cpu", h.CPU},
		{"cores", strconv.Itoa(h.Cores)}, {"loadavg-before", h.LoadavgBefore}, {"loadavg-after", h.LoadavgAfter},
	} {
		fmt.Fprintf(bw, "# %s: %s\n", kv[0], kv[1])
	}
	for i, out := range rec.Outputs {
		fmt.Fprintf(bw, "%s%d\n%s", runPrefix, i+1, out)
		if out != "" && !strings.HasSuffix(out, "\n") {
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}
