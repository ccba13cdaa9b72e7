package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func validRecord() Record {
	return Record{
		Key: "m-1", Agent: "bot", Kind: KindObservation, Text: "pr-007 is out of stock at st-003",
		Subject: "pr-007@st-003", Tags: []string{"pr-007"}, Class: "stock", Time: 10, Valid: Interval{From: 10, To: 20},
		Relevance: &Relevance{Score: 0.5, HalfLife: 100},
		Provenance: &Provenance{ResultIDs: []string{"r-1"}, RowKeys: []string{"evt-1"}, DataVersion: "v1",
			ToolCall: &ToolCall{Tool: "latest_value", Arguments: json.RawMessage(`{"store":"st-003"}`)}},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Record)
		field   string // "" when valid
		wantErr error
	}{
		{"valid", func(*Record) {}, "", nil},
		{"valid confirm", func(r *Record) { r.Kind, r.Target, r.Text, r.Class = KindConfirm, "m-0", "", "" }, "", nil},
		{"valid supersede", func(r *Record) { r.Kind, r.Target, r.Stated = KindSupersede, "m-0", true }, "", nil},
		{"missing key", func(r *Record) { r.Key = "" }, "key", ErrInvalidRecord},
		{"key with a space", func(r *Record) { r.Key = "m 1" }, "key", ErrInvalidRecord},
		{"key too long", func(r *Record) { r.Key = strings.Repeat("k", MaxKeyLen+1) }, "key", ErrInvalidRecord},
		{"missing agent", func(r *Record) { r.Agent = "" }, "agent", ErrInvalidRecord},
		{"unknown kind", func(r *Record) { r.Kind = "rumour" }, "kind", ErrInvalidRecord},
		{"confirm without target", func(r *Record) { r.Kind, r.Text, r.Class = KindConfirm, "", "" }, "target", ErrMissingTarget},
		{"retract without target", func(r *Record) { r.Kind, r.Text, r.Class = KindRetract, "", "" }, "target", ErrMissingTarget},
		{"supersede without target", func(r *Record) { r.Kind = KindSupersede }, "target", ErrMissingTarget},
		{"claim with a target", func(r *Record) { r.Target = "m-0" }, "target", ErrInvalidRecord},
		{"targets itself", func(r *Record) { r.Kind, r.Target = KindSupersede, "m-1" }, "target", ErrInvalidRecord},
		{"claim without text", func(r *Record) { r.Text = "  " }, "text", ErrInvalidRecord},
		{"text with a control character", func(r *Record) { r.Text = "a\x00b" }, "text", ErrInvalidRecord},
		{"text not UTF-8", func(r *Record) { r.Text = "a\xffb" }, "text", ErrInvalidRecord},
		{"text too long", func(r *Record) { r.Text = strings.Repeat("x", MaxTextLen+1) }, "text", ErrInvalidRecord},
		{"duplicate tag", func(r *Record) { r.Tags = []string{"a", "a"} }, "tags", ErrInvalidRecord},
		{"empty tag", func(r *Record) { r.Tags = []string{""} }, "tags", ErrInvalidRecord},
		{"class on a confirm", func(r *Record) { r.Kind, r.Target, r.Text = KindConfirm, "m-0", "" }, "class", ErrInvalidRecord},
		{"negative time", func(r *Record) { r.Time = -1 }, "time", ErrInvalidRecord},
		{"empty interval", func(r *Record) { r.Valid = Interval{From: 5, To: 5} }, "valid", ErrInvalidRecord},
		{"relevance above one", func(r *Record) { r.Relevance.Score = 1.5 }, "relevance.score", ErrInvalidRecord},
		{"negative half-life", func(r *Record) { r.Relevance.HalfLife = -1 }, "relevance.half_life", ErrInvalidRecord},
		{"arguments not an object", func(r *Record) { r.Provenance.ToolCall.Arguments = json.RawMessage(`[1]`) }, "provenance.tool_call.arguments", ErrInvalidRecord},
		{"tool call without a tool", func(r *Record) { r.Provenance.ToolCall.Tool = "" }, "provenance.tool_call.tool", ErrInvalidRecord},
		{"duplicate row key", func(r *Record) { r.Provenance.RowKeys = []string{"e", "e"} }, "provenance.row_keys", ErrInvalidRecord},
		{"value not JSON", func(r *Record) { r.Provenance.Value = json.RawMessage(`{"a":`) }, "provenance.value", ErrInvalidRecord},
		{"value too long", func(r *Record) {
			r.Provenance.Value = json.RawMessage(`"` + strings.Repeat("x", MaxValueJSON) + `"`)
		}, "provenance.value", ErrInvalidRecord},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRecord()
			tt.edit(&r)
			err := Validate(r)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field || !errors.Is(err, tt.wantErr) || !errors.Is(err, ErrInvalidRecord) {
				t.Fatalf("err %v, want a field error at %s wrapping %v", err, tt.field, tt.wantErr)
			}
		})
	}
}

func TestDecayed(t *testing.T) {
	tests := []struct {
		name string
		rel  *Relevance
		time int64
		asOf int64
		want float64
		ok   bool
	}{
		{"none", nil, 0, 10, 0, false},
		{"no half-life", &Relevance{Score: 0.8}, 0, 1000, 0.8, true},
		{"one half-life", &Relevance{Score: 0.8, HalfLife: 10}, 0, 10, 0.4, true},
		{"three half-lives", &Relevance{Score: 0.8, HalfLife: 10}, 5, 35, 0.1, true},
		{"future record keeps its score", &Relevance{Score: 0.8, HalfLife: 10}, 50, 10, 0.8, true},
		{"rounded to six decimals", &Relevance{Score: 1, HalfLife: 3}, 0, 1, 0.793701, true},
		{"corrupt score above one", &Relevance{Score: 1e308}, 0, 1, 1, true},
		{"corrupt score below zero", &Relevance{Score: -3, HalfLife: 2}, 0, 1, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Record{Time: tt.time, Relevance: tt.rel}.Decayed(tt.asOf)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Decayed = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseEntry(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		wantErr string // a fragment of the error; "" when valid
	}{
		{"valid", `{"record":{"key":"k","agent":"a","kind":"claim","text":"t","time":1,"valid":{"from":0}},"visibility":{}}`, ""},
		{"corrupt record read as it is", `{"record":{"key":"k","agent":"a","kind":"retract","time":1,"valid":{"from":0}},"visibility":{}}`, ""},
		{"unknown field", `{"record":{"key":"k","secret":"<x>"},"visibility":{}}`, "an unknown field"},
		{"wrong type", `{"record":{"key":"k","time":"soon"},"visibility":{}}`, "field record.time has the wrong type"},
		{"syntax", `{"record":`, "incomplete JSON"},
		{"bad byte", `{"record":{"key":"k"}}}`, "data after the object"},
		{"not an object", `[]`, "not a JSON object"},
		{"no key", `{"record":{"agent":"a"}}`, "record.key is required"},
		{"not UTF-8", "{\"record\":{\"key\":\"\xff\"}}", "not UTF-8"},
		{"bad recorded time", `{"record":{"key":"k","recorded":"<yesterday>"}}`, "an unknown field or an invalid value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseEntry([]byte(tt.line))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrMalformed) {
				t.Fatalf("err %v, want one containing %q wrapping ErrMalformed", err, tt.wantErr)
			}
			if containsAny(err.Error(), "<x>", "soon", "<yesterday>", "secret") {
				t.Errorf("error %q repeats the input", err)
			}
		})
	}
}

func TestReadJournal(t *testing.T) {
	good := `{"record":{"key":"a","agent":"x","kind":"claim","text":"t","time":1,"valid":{"from":0}},"visibility":{}}`
	other := strings.Replace(good, `"key":"a"`, `"key":"b"`, 1)
	tests := []struct {
		name    string
		text    string
		n       int
		wantErr string
	}{
		{"two lines and a blank", good + "\n\n" + other + "\n", 2, ""},
		{"empty", "", 0, ""},
		{"duplicate key", good + "\n" + good, 0, "line 2: a key given twice"},
		{"bad second line", good + "\n{", 0, "line 2: parse entry"},
		{"line too long", good + "\n" + strings.Repeat(" ", MaxLineLen+1) + "x", 0, "a line longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es, err := ReadJournal(strings.NewReader(tt.text))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(es) != tt.n {
				t.Fatalf("got %d entries, %v; want %d", len(es), err, tt.n)
			}
		})
	}
}

func FuzzParseEntry(f *testing.F) {
	for _, s := range []string{
		`{"record":{"key":"k","agent":"a","kind":"claim","text":"t","time":1,"valid":{"from":0}},"visibility":{}}`,
		`{"record":{"key":"k","agent":"a","kind":"supersede","target":"j","text":"t","time":1,"valid":{"from":0,"to":9},"relevance":{"score":0.5,"half_life":3},"provenance":{"result_ids":["r"],"tool_call":{"tool":"t","arguments":{"a":1}},"row_keys":["e"],"data_version":"v"},"recorded":"2026-01-01T00:00:00Z"},"visibility":{"agent":"a","tags":["x"],"purposes":["p"]}}`,
		`{"record":{"key":"k"}}`, `{`, `[]`, `null`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := ParseEntry(line)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		// What parses re-encodes and parses to the same entry.
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		e2, err := ParseEntry(b)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", b, err)
		}
		b2, _ := json.Marshal(e2)
		if !bytes.Equal(b, b2) {
			t.Fatalf("round trip differs:\n%s\n%s", b, b2)
		}
		_ = Validate(e.Record) // never panics
		_, _ = e.Record.Decayed(e.Record.Time + 1)
	})
}

func FuzzReadJournal(f *testing.F) {
	good := `{"record":{"key":"a","agent":"x","kind":"claim","text":"t","time":1,"valid":{"from":0}},"visibility":{}}`
	f.Add([]byte(good + "\n" + good))
	f.Add([]byte(good + "\n\n{\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := ReadJournal(bytes.NewReader(data))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, e := range es {
			if e.Record.Key == "" || seen[e.Record.Key] {
				t.Fatalf("entry with an empty or repeated key %q", e.Record.Key)
			}
			seen[e.Record.Key] = true
		}
	})
}

// FuzzResolve: a journal snapshot of any content, every record selected
// with its chain, resolves without panic, and never surfaces a retracted
// or corrupt record.
func FuzzResolve(f *testing.F) {
	f.Add([]byte(`{"record":{"key":"a","agent":"x","kind":"claim","text":"t","time":1,"valid":{"from":0}},"visibility":{}}
{"record":{"key":"b","agent":"x","kind":"supersede","target":"a","text":"u","time":2,"valid":{"from":0}},"visibility":{}}
{"record":{"key":"c","agent":"x","kind":"supersede","target":"a","text":"v","time":2,"valid":{"from":0}},"visibility":{}}
{"record":{"key":"d","agent":"x","kind":"retract","target":"b","time":3,"valid":{"from":0}},"visibility":{}}
{"record":{"key":"e","agent":"x","kind":"confirm","time":3,"valid":{"from":0}},"visibility":{}}`), "recent")
	f.Add([]byte(`{"record":{"key":"a","agent":"x","kind":"claim","text":"t","time":1,"valid":{"from":0},"relevance":{"score":1e308,"half_life":-4}},"visibility":{}}`), "")
	f.Add([]byte(`{"record":{"key":"a","agent":"x","kind":"supersede","target":"b","text":"t","time":1,"valid":{"from":0}},"visibility":{}}
{"record":{"key":"b","agent":"x","kind":"supersede","target":"a","text":"t","time":1,"valid":{"from":0}},"visibility":{}}`), "confirmed")
	f.Fuzz(func(t *testing.T, data []byte, prefer string) {
		es, err := ReadJournal(bytes.NewReader(data))
		if err != nil || len(es) > 200 {
			return
		}
		in := Input{AsOf: 5, Chains: map[string][]Record{}}
		retracted := map[string]bool{}
		for _, e := range es {
			in.Selected = append(in.Selected, e.Record)
			if e.Record.Kind == KindRetract && e.Record.Target != "" {
				retracted[e.Record.Target] = true
			}
			for _, c := range es {
				if c.Record.Target == e.Record.Key {
					in.Chains[e.Record.Key] = append(in.Chains[e.Record.Key], c.Record)
				}
			}
		}
		p := DefaultPolicy()
		p.Prefer = Prefer(prefer)
		s := Resolve(in, p)
		if _, err := s.Canonical(); err != nil {
			t.Fatalf("canonical: %v", err)
		}
		for _, c := range s.Claims {
			if retracted[c.Key] || corrupt(Record{Kind: c.Kind, Target: "x"}) || c.Kind == KindConfirm || c.Kind == KindRetract {
				t.Fatalf("claim %s surfaced (kind %s, retracted %v)", c.Key, c.Kind, retracted[c.Key])
			}
		}
	})
}
