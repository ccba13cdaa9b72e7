package eventlog_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/eventlog"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus from the samples")

func TestSchemas_OnePerType(t *testing.T) {
	files, err := fs.Glob(eventlog.Schemas(), "*.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"envelope.v1.json"}
	for _, typ := range eventlog.Types() {
		want = append(want, eventlog.SchemaFile(typ, eventlog.SchemaVersion(typ)))
	}
	slices.Sort(want)
	if !slices.Equal(files, want) {
		t.Errorf("schemas/ holds %v; want %v", files, want)
	}
	if len(eventlog.Types()) != 14 {
		t.Errorf("%d event types; the issue names 14", len(eventlog.Types()))
	}
}

// TestSchemas_ConstructorsEmitValid: every event the constructors emit,
// one of every type, matches its JSON Schema and decodes back to itself.
func TestSchemas_ConstructorsEmitValid(t *testing.T) {
	v := validator(t)
	events := sampleLog(t)
	var seen []eventlog.Type
	for _, e := range events {
		t.Run(string(e.Type), func(t *testing.T) {
			seen = append(seen, e.Type)
			b := line(t, e)
			if err := v.ValidateEvent(b); err != nil {
				t.Errorf("schema refuses %s: %v", b, err)
			}
			got, err := eventlog.Decode(b)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !reflect.DeepEqual(got, e) {
				t.Errorf("decode(encode(e)) = %+v; want %+v", got, e)
			}
		})
	}
	slices.Sort(seen)
	if !slices.Equal(seen, eventlog.Types()) {
		t.Errorf("samples cover %v; want every type %v", seen, eventlog.Types())
	}
}

// corpusCase is one line of testdata/corpus/invalid.jsonl.
type corpusCase struct {
	Why   string          `json:"why"`
	Event json.RawMessage `json:"event"`
}

// mutation changes one sample event (by type) into an invalid one.
type mutation struct {
	why     string
	typ     eventlog.Type
	pointer string
	value   any // nil deletes
}

var long = strings.Repeat("x", eventlog.MaxQuestion+1)

var mutations = []mutation{
	{"id missing", eventlog.TypeAbstained, "/id", nil},
	{"id not evt- and 32 hex digits", eventlog.TypeAbstained, "/id", "evt-XYZ"},
	{"seq zero", eventlog.TypeAbstained, "/seq", 0},
	{"seq a string", eventlog.TypeAbstained, "/seq", "1"},
	{"seed negative", eventlog.TypeAbstained, "/seed", -1},
	{"time beyond 2^53-1", eventlog.TypeAbstained, "/time", 9007199254740992},
	{"unknown top-level field", eventlog.TypeAbstained, "/extra", 1},
	{"unknown type", eventlog.TypeAbstained, "/type", "abstained.maybe"},
	{"a schema version that does not exist", eventlog.TypeAbstained, "/schema_version", 2},
	{"producer with capitals", eventlog.TypeAbstained, "/producer", "Pipeline"},
	{"causation null", eventlog.TypeAbstained, "/causation", json.RawMessage("null")},
	{"causation empty", eventlog.TypeAbstained, "/causation", ""},
	{"wall_time not UTC", eventlog.TypeAbstained, "/wall_time", "2026-12-01T12:00:00+01:00"},
	{"pid zero", eventlog.TypeAbstained, "/pid", 0},
	{"payload missing", eventlog.TypeAbstained, "/payload", nil},
	{"payload field missing", eventlog.TypeAbstained, "/payload/reason", nil},
	{"payload unknown field", eventlog.TypeAbstained, "/payload/note", "x"},
	{"reason not a token", eventlog.TypeAbstained, "/payload/reason", "Budget Exhausted"},
	{"question too long", eventlog.TypeQuestionReceived, "/payload/question", long},
	{"question empty", eventlog.TypeQuestionReceived, "/payload/question", ""},
	{"surface not declared", eventlog.TypeQuestionReceived, "/payload/surface", "fax"},
	{"optional session present but empty", eventlog.TypeQuestionReceived, "/payload/session", ""},
	{"arguments not an object", eventlog.TypeToolInvoked, "/payload/arguments", []any{1}},
	{"a null inside arguments", eventlog.TypeToolInvoked, "/payload/arguments/as_of", json.RawMessage("null")},
	{"effect not declared", eventlog.TypeToolInvoked, "/payload/effect", "delete"},
	{"rows_scanned negative", eventlog.TypeToolReturned, "/payload/rows_scanned", -5},
	{"layer not declared", eventlog.TypePlanRejected, "/payload/layer", "vibes"},
	{"result_ids empty", eventlog.TypeGroundingChecked, "/payload/result_ids", []any{}},
	{"result_ids repeated", eventlog.TypeGroundingChecked, "/payload/result_ids", []any{"res-1", "res-1"}},
	{"passed not a boolean", eventlog.TypeGroundingChecked, "/payload/passed", "yes"},
	{"sentence digest in capitals", eventlog.TypeAnswerEmitted, "/payload/sentence_sha256", strings.Repeat("AB", 32)},
	{"outcome not declared", eventlog.TypeAnswerEmitted, "/payload/outcome", "maybe"},
	{"amount missing a component", eventlog.TypeBudgetReserved, "/payload/amount/tokens", nil},
	{"amount with an unknown component", eventlog.TypeBudgetReserved, "/payload/amount/seconds", 3},
	{"amount negative", eventlog.TypeBudgetReserved, "/payload/remaining/usd_micros", -1},
	{"short empty", eventlog.TypeBudgetExceeded, "/payload/short", []any{}},
	{"short repeated", eventlog.TypeBudgetExceeded, "/payload/short", []any{"tokens", "tokens"}},
	{"short names no component", eventlog.TypeBudgetExceeded, "/payload/short", []any{"wall_seconds"}},
	{"tier not declared", eventlog.TypeElevationRequested, "/payload/tier_needed", "L4"},
	{"a wildcard tool", eventlog.TypeElevationDecided, "/payload/tools", []any{"*"}},
	{"a tool pattern", eventlog.TypeElevationDecided, "/payload/tools", []any{"open_*"}},
	{"no tools", eventlog.TypeElevationDecided, "/payload/tools", []any{}},
	{"tools repeated", eventlog.TypeElevationDecided, "/payload/tools", []any{"open_restock_task", "open_restock_task"}},
	{"approver missing", eventlog.TypeElevationDecided, "/payload/approver", nil},
	{"max_questions zero", eventlog.TypeElevationDecided, "/payload/max_questions", 0},
	{"max_age zero", eventlog.TypeElevationDecided, "/payload/max_age", 0},
	{"expiry reason not declared", eventlog.TypeElevationExpired, "/payload/reason", "whenever"},
	{"record hash short", eventlog.TypeDecisionRecorded, "/payload/record_hash", "abc"},
	{"index negative", eventlog.TypeDecisionOutcome, "/payload/index", -1},
	{"result not declared", eventlog.TypeDecisionOutcome, "/payload/result", "great"},
}

// setPointer sets (or, for nil, deletes) the member a JSON Pointer names.
func setPointer(doc map[string]any, pointer string, v any) {
	parts := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	m := doc
	for _, p := range parts[:len(parts)-1] {
		m = m[p].(map[string]any)
	}
	if v == nil {
		delete(m, parts[len(parts)-1])
		return
	}
	m[parts[len(parts)-1]] = v
}

func toDoc(t fataler, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func readJSONL(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, eventlog.MaxLine+1)
	for sc.Scan() {
		out = append(out, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSchemas_Corpus: the committed corpus of valid events passes both
// the Go decoder and the JSON Schemas, and every invalid one fails both.
// With -update the corpus is rewritten from the samples and mutations.
func TestSchemas_Corpus(t *testing.T) {
	validPath := filepath.Join("testdata", "corpus", "valid.jsonl")
	invalidPath := filepath.Join("testdata", "corpus", "invalid.jsonl")
	if *update {
		byType := map[eventlog.Type][]byte{}
		var valid bytes.Buffer
		for _, e := range sampleLog(t) {
			b := line(t, e)
			byType[e.Type] = b
			valid.Write(append(b, '\n'))
		}
		var invalid bytes.Buffer
		for _, m := range mutations {
			doc := toDoc(t, byType[m.typ])
			setPointer(doc, m.pointer, m.value)
			ev, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(corpusCase{Why: m.why, Event: ev})
			invalid.Write(append(b, '\n'))
		}
		if err := os.MkdirAll(filepath.Dir(validPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(validPath, valid.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(invalidPath, invalid.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v := validator(t)
	valid := readJSONL(t, validPath)
	if len(valid) < len(eventlog.Types()) {
		t.Fatalf("valid corpus has %d events; want at least one per type", len(valid))
	}
	for i, b := range valid {
		if _, err := eventlog.Decode(b); err != nil {
			t.Errorf("valid line %d: decode: %v", i, err)
		}
		if err := v.ValidateEvent(b); err != nil {
			t.Errorf("valid line %d: schema: %v", i, err)
		}
	}
	invalid := readJSONL(t, invalidPath)
	if len(invalid) != len(mutations) {
		t.Errorf("invalid corpus has %d cases; the mutations list %d (run with -update)", len(invalid), len(mutations))
	}
	for _, b := range invalid {
		var c corpusCase
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		t.Run(c.Why, func(t *testing.T) {
			if _, err := eventlog.Decode(c.Event); err == nil {
				t.Errorf("Decode accepts it")
			}
			if err := v.ValidateEvent(c.Event); err == nil {
				t.Errorf("the schema accepts it")
			}
		})
	}
}

// TestSchemas_AgreeWithGo: for random changes to any field of a valid
// event (a deletion, or a value of any JSON kind), the Go decoder and the
// JSON Schema accept or refuse together.
func TestSchemas_AgreeWithGo(t *testing.T) {
	v := validator(t)
	events := sampleLog(t)
	rapid.Check(t, func(rt *rapid.T) {
		e := rapid.SampledFrom(events).Draw(rt, "event")
		doc := toDoc(rt, line(rt, e))
		paths := leaves(doc, "")
		p := rapid.SampledFrom(paths).Draw(rt, "field")
		val := rapid.OneOf(
			rapid.Just[any](nil),
			rapid.Map(rapid.Int64Range(-3, 1<<54), func(n int64) any { return n }),
			rapid.Map(rapid.StringMatching(`[a-zA-Z0-9_.:*-]{0,12}`), func(s string) any { return s }),
			rapid.Map(rapid.Bool(), func(b bool) any { return b }),
			rapid.Just[any]([]any{}),
			rapid.Just[any](map[string]any{}),
			rapid.Just[any](json.RawMessage("null")),
			rapid.Map(rapid.SampledFrom([]string{"L1", "L2", "L3", "none", "write", "ok", "granted", "tokens", "question", "model", "evt-0123456789abcdef0123456789abcdef", strings.Repeat("a", 64)}), func(s string) any { return s }),
		).Draw(rt, "value")
		setPointer(doc, p, val)
		b, err := json.Marshal(doc)
		if err != nil {
			rt.Fatal(err)
		}
		_, goErr := eventlog.Decode(b)
		schemaErr := v.ValidateEvent(b)
		if (goErr == nil) != (schemaErr == nil) {
			rt.Fatalf("disagree on %s: Go %v, schema %v", b, goErr, schemaErr)
		}
	})
}

// leaves lists the JSON Pointers of every leaf (and every object) of doc.
func leaves(doc map[string]any, prefix string) []string {
	var out []string
	for k, v := range doc {
		p := prefix + "/" + k
		out = append(out, p)
		if m, ok := v.(map[string]any); ok {
			out = append(out, leaves(m, p)...)
		}
	}
	slices.Sort(out)
	return out
}

// TestSchemas_ConstructorsAgree (rapid): for payloads of every type with
// fields drawn at random (valid and invalid values alike), NewEvent
// accepts exactly what the schema accepts, and what it builds decodes
// back to itself.
func TestSchemas_ConstructorsAgree(t *testing.T) {
	v := validator(t)
	strs := []string{"", "q-1", "x", "a b", "L1", "L3", "none", "write", "ok", "granted", "denied", "questions", "revoked", "met",
		"question", "session", "cli", "gate", "answered", "model", "tokens", "rows_scanned", "open_restock_task", "Open", "*",
		strings.Repeat("ab", 32), long}
	raws := []string{`{}`, `{"a":1}`, `[1]`, `{"a":null}`, `{"a":{"b":[true,"x"]}}`, `"x"`}
	var fill func(rt *rapid.T, rv reflect.Value, path string)
	fill = func(rt *rapid.T, rv reflect.Value, path string) {
		switch {
		case rv.Type() == reflect.TypeFor[json.RawMessage]():
			rv.SetBytes([]byte(rapid.SampledFrom(raws).Draw(rt, path)))
		case rv.Kind() == reflect.String:
			rv.SetString(rapid.SampledFrom(strs).Draw(rt, path))
		case rv.Kind() == reflect.Int64:
			rv.SetInt(rapid.Int64Range(-1, 3).Draw(rt, path))
		case rv.Kind() == reflect.Bool:
			rv.SetBool(rapid.Bool().Draw(rt, path))
		case rv.Kind() == reflect.Slice:
			items := rapid.SliceOfN(rapid.SampledFrom(strs[:len(strs)-1]), 0, 3).Draw(rt, path)
			if items != nil {
				rv.Set(reflect.ValueOf(items))
			}
		case rv.Kind() == reflect.Struct:
			for i := range rv.NumField() {
				fill(rt, rv.Field(i), path+"."+rv.Type().Field(i).Name)
			}
		default:
			rt.Fatalf("no generator for %s", rv.Type())
		}
	}
	protos := samples()
	rapid.Check(t, func(rt *rapid.T) {
		proto := rapid.SampledFrom(protos).Draw(rt, "type")
		pv := reflect.New(reflect.TypeOf(proto)).Elem()
		fill(rt, pv, string(proto.EventType()))
		p := pv.Interface().(eventlog.Payload)
		env := eventlog.Envelope{ID: eventlog.EventID(1, "r", "p", 1), Run: "r", Producer: "p", Seq: 1, Seed: 1}
		e, err := eventlog.NewEvent(env, p)
		if err != nil {
			// Build the same event by hand and ask the schema.
			payload, merr := json.Marshal(p)
			if merr != nil {
				return
			}
			raw := eventlog.Event{ID: env.ID, Type: p.EventType(), SchemaVersion: 1, Run: "r", Producer: "p", Seq: 1, Seed: 1, Payload: payload}
			if v.ValidateEvent(line(rt, raw)) == nil {
				rt.Fatalf("NewEvent refuses %+v (%v) but the schema accepts it", p, err)
			}
			return
		}
		b := line(rt, e)
		if err := v.ValidateEvent(b); err != nil {
			rt.Fatalf("NewEvent builds %s, which the schema refuses: %v", b, err)
		}
		got, err := eventlog.Decode(b)
		if err != nil || !reflect.DeepEqual(got, e) {
			rt.Fatalf("Decode(%s) = %v; want the event back", b, err)
		}
	})
}
