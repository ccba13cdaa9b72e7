package eventlog_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/provenant/provenant/eventlog"
)

// exported returns the samples exported in canonical order, as lines,
// and the export's report.
func exported(t *testing.T) ([]string, eventlog.Report) {
	t.Helper()
	var buf bytes.Buffer
	rep, err := eventlog.Export(t.Context(), &buf, storeOf(sampleLog(t)))
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.SplitAfter(buf.String(), "\n")
	return ls[:len(ls)-1], rep
}

// refuseAt is a SchemaValidator that refuses the n'th line it sees.
type refuseAt struct{ n, seen int }

func (r *refuseAt) ValidateEvent([]byte) error {
	r.seen++
	if r.seen-1 == r.n {
		return errors.New("refused")
	}
	return nil
}

func TestVerify_FirstBadEvent(t *testing.T) {
	lines, rep := exported(t)
	if len(lines) != 14 {
		t.Fatalf("%d lines", len(lines))
	}
	replace := func(i int, old, new string) func([]string) []string {
		return func(ls []string) []string {
			if !strings.Contains(ls[i], old) {
				t.Fatalf("line %d lacks %s", i, old)
			}
			ls[i] = strings.Replace(ls[i], old, new, 1)
			return ls
		}
	}
	tests := []struct {
		name      string
		edit      func([]string) []string
		opts      *eventlog.VerifyOptions
		wantIndex int
		wantCheck string
		wantErr   error
	}{
		{"intact", nil, &eventlog.VerifyOptions{Canonical: true, Want: &rep.Hash, Chain: rep.Chain}, -1, "", nil},
		{"wall_time changed", replace(4, `"wall_time":"2026-12-01T12:00:00Z"`, `"wall_time":"2030-01-01T00:00:00.5Z"`),
			&eventlog.VerifyOptions{Want: &rep.Hash, Chain: rep.Chain}, -1, "", nil},
		{"host changed", replace(9, `"host":"host-a"`, `"host":"host-b"`), &eventlog.VerifyOptions{Want: &rep.Hash}, -1, "", nil},
		{"a line deleted", func(ls []string) []string { return append(ls[:5], ls[6:]...) }, nil, 5, eventlog.CheckSeq, eventlog.ErrSequence},
		{"a line repeated", func(ls []string) []string { return append(ls[:6], ls[5:]...) }, nil, 6, eventlog.CheckID, eventlog.ErrOrder},
		{"two lines swapped", func(ls []string) []string { ls[3], ls[4] = ls[4], ls[3]; return ls }, nil, 3, eventlog.CheckSeq, eventlog.ErrSequence},
		{"causation names no earlier event", func(ls []string) []string {
			i := strings.Index(ls[6], `"causation":"evt-`) + len(`"causation":"evt-`)
			c := byte('0')
			if ls[6][i] == '0' {
				c = '1'
			}
			ls[6] = ls[6][:i] + string(c) + ls[6][i+1:]
			return ls
		}, nil, 6, eventlog.CheckCausation, eventlog.ErrOrder},
		{"a payload edited", replace(7, `"tokens":800`, `"tokens":801`), &eventlog.VerifyOptions{Chain: rep.Chain}, 7, eventlog.CheckHash, eventlog.ErrHash},
		{"a payload edited, final hash only", replace(7, `"tokens":800`, `"tokens":801`), &eventlog.VerifyOptions{Want: &rep.Hash}, 14, eventlog.CheckHash, eventlog.ErrHash},
		{"a seq edited", replace(2, `"seq":3`, `"seq":4`), nil, 2, eventlog.CheckSeq, eventlog.ErrSequence},
		{"time goes back", replace(4, `"time":1`, `"time":0`), nil, 4, eventlog.CheckTime, eventlog.ErrSequence},
		{"a line that is not JSON", replace(8, `{`, `[`), nil, 8, eventlog.CheckDecode, eventlog.ErrInvalid},
		{"an unknown field", replace(10, `"seed":7`, `"seed":7,"sneaky":1`), nil, 10, eventlog.CheckDecode, eventlog.ErrInvalid},
		{"a torn last line", func(ls []string) []string { ls[13] = ls[13][:40]; return ls }, nil, 13, eventlog.CheckTorn, eventlog.ErrTornTail},
		{"the schema refuses one", nil, &eventlog.VerifyOptions{Schema: &refuseAt{n: 11}}, 11, eventlog.CheckSchema, nil},
		{"chain of another length", func(ls []string) []string { return ls[:13] }, &eventlog.VerifyOptions{Chain: rep.Chain}, 13, eventlog.CheckHash, eventlog.ErrHash},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls := append([]string(nil), lines...)
			if tt.edit != nil {
				ls = tt.edit(ls)
			}
			got, err := eventlog.Verify(t.Context(), strings.NewReader(strings.Join(ls, "")), tt.opts)
			if tt.wantIndex < 0 {
				if err != nil {
					t.Fatalf("Verify = %v; want nil", err)
				}
				if got.Hash != rep.Hash || got.Events != 14 {
					t.Errorf("report %s, %d events; want %s, 14", got.Hash, got.Events, rep.Hash)
				}
				return
			}
			var ve *eventlog.VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("Verify = %v; want a *VerifyError", err)
			}
			if ve.Index != tt.wantIndex || ve.Check != tt.wantCheck {
				t.Errorf("first bad event %d (%s); want %d (%s): %v", ve.Index, ve.Check, tt.wantIndex, tt.wantCheck, err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Verify = %v; want %v", err, tt.wantErr)
			}
		})
	}
}

// TestVerify_NoEcho: a refused line's content never appears in the error.
func TestVerify_NoEcho(t *testing.T) {
	lines, _ := exported(t)
	const secret = "SECRET CLIENT VALUE"
	for i, edit := range []string{
		strings.Replace(lines[0], `"question_id":"q-1"`, `"question_id":"`+secret+`"`, 1),
		strings.Replace(lines[0], `"seed":7`, `"`+secret+`":7`, 1),
		strings.Replace(lines[0], `"surface":"http"`, `"surface":"`+secret+`"`, 1),
	} {
		_, err := eventlog.Verify(t.Context(), strings.NewReader(edit), &eventlog.VerifyOptions{Schema: validator(t)})
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("case %d: Verify = %v; want an error that does not quote the input", i, err)
		}
		if err := validator(t).ValidateEvent([]byte(strings.TrimSpace(edit))); err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("case %d: schema = %v; want an error that does not quote the input", i, err)
		}
	}
}

// TestVerify_CanonicalOrder: a log of two producers verifies in any
// interleaving that keeps each producer's order, with one hash; with
// Canonical, only in canonical order.
func TestVerify_CanonicalOrder(t *testing.T) {
	store := &eventlog.MemStore{}
	l, err := eventlog.NewLog(t.Context(), store, &eventlog.Options{Deterministic: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		for _, p := range []string{"b", "a"} {
			if _, err := l.Append(t.Context(), eventlog.Entry{Producer: p, Time: int64(i), Payload: abstain("q")}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var buf bytes.Buffer
	rep, err := eventlog.Export(t.Context(), &buf, store)
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.SplitAfter(buf.String(), "\n")
	ls[2], ls[3] = ls[3], ls[2] // b's event at time 1 before a's
	swapped := strings.Join(ls, "")
	got, err := eventlog.Verify(t.Context(), strings.NewReader(swapped), nil)
	if err != nil || got.Hash != rep.Hash {
		t.Errorf("interleaved: %s, %v; want %s", got.Hash, err, rep.Hash)
	}
	_, err = eventlog.Verify(t.Context(), strings.NewReader(swapped), &eventlog.VerifyOptions{Canonical: true})
	var ve *eventlog.VerifyError
	if !errors.As(err, &ve) || ve.Index != 3 || ve.Check != eventlog.CheckOrder {
		t.Errorf("canonical check = %v; want order at 3", err)
	}
}

func TestVerify_Empty(t *testing.T) {
	rep, err := eventlog.Verify(t.Context(), strings.NewReader(""), nil)
	if err != nil || rep.Events != 0 || rep.Hash != (eventlog.Digest{}) {
		t.Errorf("empty log: %+v, %v", rep, err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, e := range sampleLog(f) {
		f.Add(line(f, e))
	}
	f.Add([]byte(`{"id":null}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := eventlog.Decode(b)
		if err != nil {
			return
		}
		again, err := eventlog.Decode(line(t, e))
		if err != nil {
			t.Fatalf("re-encoded event does not decode: %v", err)
		}
		h1, err1 := eventlog.HashInput(e)
		h2, err2 := eventlog.HashInput(again)
		if err1 != nil || err2 != nil || !bytes.Equal(h1, h2) {
			t.Fatalf("hash input differs after a round trip: %v %v", err1, err2)
		}
	})
}

func FuzzVerify(f *testing.F) {
	lines := ""
	for _, e := range sampleLog(f) {
		lines += string(line(f, e)) + "\n"
	}
	f.Add([]byte(lines))
	f.Add([]byte(lines[:len(lines)/2]))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := eventlog.Verify(t.Context(), bytes.NewReader(b), nil)
		if err != nil {
			var ve *eventlog.VerifyError
			if !errors.As(err, &ve) || ve.Index < 0 {
				t.Fatalf("Verify = %v; want a *VerifyError with an index", err)
			}
			return
		}
		if n := bytes.Count(b, []byte("\n")); rep.Events != n || len(rep.Chain) != n {
			t.Fatalf("%d events reported for %d lines", rep.Events, n)
		}
		if rep.Events == 0 {
			return
		}
		// A verified log hashes alike from its decoded events.
		var events []eventlog.Event
		for _, ln := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			e, err := eventlog.Decode(ln)
			if err != nil {
				t.Fatal(err)
			}
			events = append(events, e)
		}
		h, err := eventlog.Hash(events)
		if err != nil || h != rep.Hash {
			t.Fatal(fmt.Sprint("hash differs: ", err))
		}
	})
}
