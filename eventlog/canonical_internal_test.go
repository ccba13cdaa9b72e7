package eventlog

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// canonStr draws strings that reach every branch of the string writer:
// plain ASCII, the characters RFC 8785 escapes, those encoding/json
// escapes and RFC 8785 does not (<, >, &, U+2028), other Unicode and
// invalid UTF-8.
var canonStr = rapid.OneOf(
	rapid.SampledFrom([]string{"", "q-1", "get_device_status", "a\"b", "a\\b", "<&>", "\u2028\u2029", "é😀", "\x7f", "\t\n\r\b\f",
		"\x00\x01\x1f", "\xff", "a\xc3", "\ud7ff\ue000", "/"}),
	rapid.String(),
	rapid.StringMatching(`[ -~]{0,12}`),
)

// canonInt draws integers around the edges of exact doubles.
var canonInt = rapid.OneOf(rapid.Int64Range(-3, 3), rapid.Int64Range(MaxSafeInteger-2, MaxSafeInteger+2),
	rapid.Int64Range(-MaxSafeInteger-2, -MaxSafeInteger+2), rapid.Int64())

// canonRaw draws json.RawMessage values: valid JSON of any shape (white
// space included), nil, and invalid documents.
var canonRaw = rapid.OneOf(
	rapid.SampledFrom([]string{"", `{}`, `{"b":1,"a":[true,null,"x"]}`, `{ "as_of" : "2026-01-09T12:00:00Z", "device_id":"dev-1" }`,
		`{"x":1e2,"y":-0.0,"z":"\u00e9\ud83d\ude00<"}`, `[1, 2.50, 1E400]`, `"s"`, `{"n":123456789012345678}`, `{"a":{"c":1,"b":2}}`,
		`{"a":1,"a":2}`, `{`, `{"s":"\ud800"}`, `nul`, `{"k":"<\u2028>"}`, "{\"k\":\"\xff\"}", `{"é":1,"e":2,"ü":3}`}),
	rapid.Custom(func(t *rapid.T) string {
		m := map[string]any{}
		for i := range rapid.IntRange(0, 4).Draw(t, "n") {
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				m[canonStr.Draw(t, "k")] = canonStr.Draw(t, "s")
			case 1:
				m[canonStr.Draw(t, "k")] = rapid.Float64().Draw(t, "f")
			case 2:
				m[canonStr.Draw(t, "k")] = []any{canonInt.Draw(t, "i"), rapid.Bool().Draw(t, "b"), nil}
			default:
				m[canonStr.Draw(t, "k")] = map[string]any{"n": i, "s": canonStr.Draw(t, "s")}
			}
		}
		b, _ := json.Marshal(m)
		return string(b)
	}),
)

func canonStrings(t *rapid.T, label string) []string {
	switch rapid.IntRange(0, 3).Draw(t, label+"-shape") {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	return rapid.SliceOfN(canonStr, 1, 4).Draw(t, label)
}

func canonAmount(t *rapid.T, label string) Amount {
	return Amount{USDMicros: canonInt.Draw(t, label+"-usd"), Tokens: canonInt.Draw(t, label+"-tokens"), ToolCalls: canonInt.Draw(t, label+"-calls"),
		SimulatedMS: canonInt.Draw(t, label+"-ms"), RowsScanned: canonInt.Draw(t, label+"-rows")}
}

// anyPayload fills every field of a payload type with drawn values,
// valid for its schema or not: canonicalisation must not depend on it.
func anyPayload(t *rapid.T) any {
	typ := rapid.SampledFrom(Types()).Draw(t, "type")
	v := reflect.New(registry[typ].goType).Elem()
	fill(t, v, "p")
	return v.Interface()
}

func fill(t *rapid.T, v reflect.Value, path string) {
	for i := range v.NumField() {
		f := v.Field(i)
		label := path + "." + v.Type().Field(i).Name
		switch {
		case f.Type() == rawType:
			if s := canonRaw.Draw(t, label); s != "" || rapid.Bool().Draw(t, label+"-nil") {
				f.SetBytes([]byte(s))
			}
		case f.Kind() == reflect.String:
			f.SetString(canonStr.Draw(t, label))
		case f.Kind() == reflect.Int64:
			f.SetInt(canonInt.Draw(t, label))
		case f.Kind() == reflect.Bool:
			f.SetBool(rapid.Bool().Draw(t, label))
		case f.Kind() == reflect.Slice:
			f.Set(reflect.ValueOf(canonStrings(t, label)))
		case f.Type() == reflect.TypeFor[Amount]():
			f.Set(reflect.ValueOf(canonAmount(t, label)))
		default:
			t.Fatalf("%s: a field kind the generator does not fill: %s", label, f.Type())
		}
	}
}

// TestCanonical_FastEqualsJCS (rapid): for every payload type, with any
// field values, the direct writer gives exactly the bytes of the
// definition (jcs.Transform of json.Marshal), refuses what the
// definition refuses, and applies to the usual payloads (ASCII text,
// exact integers).
func TestCanonical_FastEqualsJCS(t *testing.T) {
	fast := 0
	rapid.Check(t, func(rt *rapid.T) {
		p := anyPayload(rt)
		want, wantErr := jcsCanonical(p)
		got, ok := fastCanonical(p)
		if !ok {
			return
		}
		fast++
		if wantErr != nil {
			rt.Fatalf("fast path writes %s where the definition fails: %v", got, wantErr)
		}
		if !bytes.Equal(got, want) {
			rt.Fatalf("fast %s\nwant %s", got, want)
		}
	})
	if fast == 0 {
		t.Error("the fast path never applied")
	}
	// Every payload type takes the fast path on its usual values.
	for _, p := range samples() {
		if _, ok := fastCanonical(p); !ok {
			t.Errorf("%s: not written by the fast path", p.(Payload).EventType())
		}
	}
}

// samples: one payload of each type, ASCII, as the pipeline writes them.
func samples() []any {
	var out []any
	for _, typ := range Types() {
		v := reflect.New(registry[typ].goType).Elem()
		for i := range v.NumField() {
			f := v.Field(i)
			switch {
			case f.Type() == rawType:
				f.SetBytes([]byte(`{"as_of":"2026-01-09T12:00:00Z","device_id":"dev-0001"}`))
			case f.Kind() == reflect.String:
				f.SetString("x-1")
			case f.Kind() == reflect.Int64:
				f.SetInt(int64(i))
			case f.Kind() == reflect.Bool:
				f.SetBool(true)
			case f.Kind() == reflect.Slice:
				f.Set(reflect.ValueOf([]string{"b", "a"}))
			case f.Type() == reflect.TypeFor[Amount]():
				f.Set(reflect.ValueOf(Amount{USDMicros: 1, Tokens: 2}))
			}
		}
		out = append(out, v.Interface())
	}
	return out
}

// TestCanonical_Refuses: types the direct writer does not know are
// left to the definition.
func TestCanonical_Refuses(t *testing.T) {
	type float struct {
		F float64 `json:"f"`
	}
	type stringOpt struct {
		N int64 `json:"n,string"`
	}
	type embedded struct {
		Amount
	}
	type withTime struct {
		T time.Time `json:"t"`
	}
	for _, v := range []any{float{1.5}, stringOpt{3}, embedded{}, withTime{}, 3, "s", &QuestionReceived{}, map[string]int{"a": 1}} {
		if b, ok := fastCanonical(v); ok {
			t.Errorf("%T: fast path wrote %s", v, b)
		}
	}
}

// FuzzCanonical: a tool.invoked payload whose text and arguments the
// fuzzer chooses is written as the definition writes it.
func FuzzCanonical(f *testing.F) {
	f.Add("get_device_status", `{"as_of":"2026-01-09T12:00:00Z","device_id":"dev-0001"}`, int64(3))
	f.Add("a\"\\\x01<>&\u2028é", `{"b":[1,2.5e3,-0],"a":"\u0001"}`, int64(MaxSafeInteger+1))
	f.Add("\xff", `{"a":1,"a":2}`, int64(-1))
	f.Fuzz(func(t *testing.T, s, raw string, n int64) {
		for _, p := range []any{
			ToolInvoked{QuestionID: s, CallID: s, Tool: s, Arguments: json.RawMessage(raw), ProposedBy: s, Effect: s},
			ToolReturned{QuestionID: s, CallID: s, Tool: s, Outcome: s, RowsScanned: n},
			AnswerEmitted{QuestionID: s, ResultIDs: strings.Split(s, "a")},
		} {
			got, ok := fastCanonical(p)
			if !ok {
				continue
			}
			want, err := jcsCanonical(p)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("fast %s\nwant %s (%v)", got, want, err)
			}
		}
	})
}

// TestEncode_EqualsMarshal (rapid): Encode writes exactly json.Marshal's
// line for events built by NewEvent, read by Decode, or changed after
// (a payload replaced or edited in place, a type changed).
func TestEncode_EqualsMarshal(t *testing.T) {
	fast := 0
	rapid.Check(t, func(rt *rapid.T) {
		v := anyPayload(rt)
		if rapid.Bool().Draw(rt, "sample") {
			v = rapid.SampledFrom(validPayloads).Draw(rt, "payload")
		}
		p, ok := v.(Payload)
		if !ok || p.Validate() != nil {
			return
		}
		env := Envelope{ID: "evt-" + strings.Repeat("a", 32), Run: "run-1", Producer: "pipeline", Seq: canonInt.Draw(rt, "seq")&MaxSafeInteger | 1,
			Seed: 4, Time: 2, Correlation: rapid.SampledFrom([]string{"", "req-1"}).Draw(rt, "corr"),
			WallTime: rapid.SampledFrom([]string{"", "2026-12-02T07:00:00.123Z"}).Draw(rt, "wall"), PID: rapid.Int64Range(0, 9).Draw(rt, "pid")}
		e, err := NewEvent(env, p)
		if err != nil {
			return
		}
		switch rapid.IntRange(0, 3).Draw(rt, "change") {
		case 1:
			e.Payload = json.RawMessage(canonRaw.Draw(rt, "payload"))
		case 2:
			if len(e.Payload) > 2 {
				e.Payload[1] = '<'
			}
		case 3:
			e.Type = TypeAbstained
		}
		got, gotErr := Encode(e)
		want, wantErr := json.Marshal(e)
		if (gotErr == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
			rt.Fatalf("Encode = %s (%v)\nwant %s (%v)", got, gotErr, want, wantErr)
		}
		if _, ok := fastEncode(&e); ok {
			fast++
		}
		if d, err := Decode(want); err == nil {
			if got, _ := Encode(d); !bytes.Equal(got, want) {
				rt.Fatalf("Encode(Decode(line)) = %s; want %s", got, want)
			}
		}
	})
	if fast == 0 {
		t.Error("the fast path never applied")
	}
}

// validPayloads are payloads NewEvent accepts, some with text that
// encoding/json escapes and RFC 8785 does not.
var validPayloads = []any{
	QuestionReceived{QuestionID: "q-1", Session: "s-1", Surface: "mcp", Question: "How many devices are FAULT?"},
	QuestionReceived{QuestionID: "q-1", Surface: "http", Question: "a <b> & c\u2028 \"é\""},
	ToolInvoked{QuestionID: "q-1", CallID: "c-1", Tool: "get_device_status", Arguments: json.RawMessage(`{"device_id":"dev-1", "as_of":"2026-01-09T12:00:00Z"}`), ProposedBy: "client", Effect: "none"},
	ToolReturned{QuestionID: "q-1", CallID: "c-1", Tool: "get_device_status", Outcome: "ok", ResultID: "res-1", RowsScanned: 2},
	GroundingChecked{QuestionID: "q-1", ResultIDs: []string{"res-1"}, Passed: true, Numerals: 3},
	AnswerEmitted{QuestionID: "q-1", Outcome: "answered", ResultIDs: []string{"res-1"}, SentenceSHA256: strings.Repeat("ab", 32)},
	BudgetReserved{Scope: "question", ScopeID: "q-1", QuestionID: "q-1", ReservationID: "r-1", Amount: Amount{Tokens: 4}, Remaining: Amount{USDMicros: 9}},
	Abstained{QuestionID: "q-2", Reason: "missing_slot"},
}

// TestValidate_ChangedPayloadDecodedAgain: Validate trusts only the very
// payload NewEvent checked; one replaced, edited in place, or under
// another type or version is decoded strictly again and refused when it
// breaks its schema.
func TestValidate_ChangedPayloadDecodedAgain(t *testing.T) {
	env := Envelope{ID: "evt-" + strings.Repeat("a", 32), Run: "run-1", Producer: "pipeline", Seq: 1, Time: 1}
	build := func(t *testing.T) Event {
		e, err := NewEvent(env, ToolReturned{QuestionID: "q-1", CallID: "c-1", Tool: "get_device_status", Outcome: "ok", RowsScanned: 2})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("the built event: %v", err)
		}
		return e
	}
	for _, tc := range []struct {
		name   string
		change func(e *Event)
	}{
		{"replaced", func(e *Event) {
			e.Payload = json.RawMessage(`{"call_id":"c-1","outcome":"ok","question_id":"q-1","rows_scanned":2,"tool":"Get Device"}`)
		}},
		{"edited in place", func(e *Event) { e.Payload[bytes.Index(e.Payload, []byte(`"get_`))+1] = 'G' }},
		{"unknown member appended in place", func(e *Event) {
			e.Payload = append(e.Payload[:len(e.Payload)-1:len(e.Payload)-1], `,"x":1}`...)
		}},
		{"another type", func(e *Event) { e.Type = TypeAbstained }},
		{"another version", func(e *Event) { e.SchemaVersion = 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := build(t)
			tc.change(&e)
			if err := e.Validate(); err == nil {
				t.Errorf("Validate accepts the changed payload %s", e.Payload)
			}
			if _, err := Encode(e); err == nil {
				if b, _ := json.Marshal(e); !bytes.Equal(b, mustEncode(t, e)) {
					t.Errorf("Encode differs from json.Marshal")
				}
			}
		})
	}
}

func mustEncode(t *testing.T, e Event) []byte {
	t.Helper()
	b, err := Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
