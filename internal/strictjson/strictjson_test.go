package strictjson_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/provenant/provenant/internal/strictjson"
)

type inner struct {
	N int64   `json:"n"`
	F float64 `json:"f"`
}

type target struct {
	Question *string           `json:"question"`
	Window   *[2]string        `json:"window"`
	Inner    *inner            `json:"inner"`
	List     []inner           `json:"list"`
	Raw      json.RawMessage   `json:"raw"`
	Any      any               `json:"any"`
	Map      map[string]string `json:"map"`
	Skip     string            `json:"-"`
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantKind strictjson.Kind
		wantPath string
	}{
		{"ok", `{"question":"q","inner":{"n":3,"f":1.5},"list":[{"n":1}],"raw":{"a":[1,2]},"any":1e400,"map":{"k":"v"},"window":["a","b"]}`, "", ""},
		{"ok null", `{"question":null}`, "", ""},
		{"empty", ``, strictjson.Empty, ""},
		{"white space only", " \n", strictjson.Empty, ""},
		{"syntax", `{"question":}`, strictjson.Syntax, ""},
		{"unterminated", `{"question":"q"`, strictjson.Syntax, ""},
		{"trailing", `{"question":"q"} {}`, strictjson.Trailing, ""},
		{"trailing garbage", `{"question":"q"}x`, strictjson.Trailing, ""},
		{"duplicate top", `{"question":"a","question":"b"}`, strictjson.Duplicate, "$.question"},
		{"duplicate nested in raw", `{"raw":{"a":1,"a":2}}`, strictjson.Duplicate, "$.raw.#1"},
		{"duplicate in any array", `{"any":[{"x":1,"x":1}]}`, strictjson.Duplicate, "$.any[0].#1"},
		{"case folded key", `{"QUESTION":"q"}`, strictjson.Unknown, "$.#0"},
		{"unknown key", `{"question":"q","secret-key":1}`, strictjson.Unknown, "$.#1"},
		{"unknown nested", `{"inner":{"n":1,"N":2}}`, strictjson.Unknown, "$.inner.#1"},
		{"skipped field", `{"Skip":"x"}`, strictjson.Unknown, "$.#0"},
		{"wrong type", `{"question":5}`, strictjson.Type, "$.question"},
		{"not an object", `[1]`, strictjson.Type, "$"},
		{"float64 overflow", `{"inner":{"f":1e400}}`, strictjson.Range, "$.inner.f"},
		{"int64 overflow", `{"inner":{"n":9223372036854775808}}`, strictjson.Range, "$.inner.n"},
		{"fraction for int", `{"inner":{"n":1.5}}`, strictjson.Type, "$.inner.n"},
		{"short fixed array", `{"window":["a"]}`, strictjson.Type, "$.window"},
		{"long fixed array", `{"window":["a","b","c"]}`, strictjson.Type, "$.window"},
		{"invalid utf8", "{\"question\":\"\xff\"}", strictjson.UTF8, ""},
		{"lone surrogate", `{"question":"\ud800"}`, strictjson.UTF8, ""},
		{"lone low surrogate", `{"question":"\udc00x"}`, strictjson.UTF8, ""},
		{"pair ok", `{"question":"\ud83d\ude00"}`, "", ""},
		{"too deep", `{"any":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, strictjson.Depth, ""},
		{"leading zero", `{"inner":{"n":01}}`, strictjson.Syntax, ""},
		{"control char", "{\"question\":\"a\x01\"}", strictjson.Syntax, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v target
			err := strictjson.Decode([]byte(tt.in), &v, nil)
			if tt.wantKind == "" {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				return
			}
			var e *strictjson.Error
			if !errors.As(err, &e) {
				t.Fatalf("Decode = %v, want a *strictjson.Error of kind %s", err, tt.wantKind)
			}
			if e.Kind != tt.wantKind || e.Path != tt.wantPath {
				t.Errorf("Decode = kind %s path %q, want %s %q (%v)", e.Kind, e.Path, tt.wantKind, tt.wantPath, err)
			}
		})
	}
}

func TestDecode_AnyKeepsNumbers(t *testing.T) {
	var v map[string]any
	if err := strictjson.Decode([]byte(`{"a":1e400,"b":12345678901234567890}`), &v, nil); err != nil {
		t.Fatal(err)
	}
	if v["a"] != json.Number("1e400") || v["b"] != json.Number("12345678901234567890") {
		t.Errorf("numbers = %#v, want them kept as json.Number", v)
	}
}

// TestDecodeObject: a document that is not an object is not_an_object
// whatever the target, null included (which Decode gives a struct, map or
// pointer target as nothing at all), and leaves the target unchanged; a
// malformed document is still reported as such first.
func TestDecodeObject(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		target   func() any
		wantCode string // "" for success
	}{
		{"object into a struct", ` {"question":"q"} `, func() any { return new(target) }, ""},
		{"object into any", `{}`, func() any { return new(any) }, ""},
		{"null into a struct", `null`, func() any { return new(target) }, strictjson.CodeNotAnObject},
		{"null in white space", " \n null\t", func() any { return new(target) }, strictjson.CodeNotAnObject},
		{"null into a map", `null`, func() any { return new(map[string]any) }, strictjson.CodeNotAnObject},
		{"null into a pointer", `null`, func() any { return new(*target) }, strictjson.CodeNotAnObject},
		{"null into any", `null`, func() any { return new(any) }, strictjson.CodeNotAnObject},
		{"array into any", `[1]`, func() any { return new(any) }, strictjson.CodeNotAnObject},
		{"string into raw", `"s"`, func() any { return new(json.RawMessage) }, strictjson.CodeNotAnObject},
		{"number into a map", `1`, func() any { return new(map[string]any) }, strictjson.CodeNotAnObject},
		{"true into a struct", `true`, func() any { return new(target) }, strictjson.CodeNotAnObject},
		{"malformed null", `nul`, func() any { return new(target) }, strictjson.CodeInvalidJSON},
		{"null with trailing data", `null x`, func() any { return new(target) }, strictjson.CodeInvalidJSON},
		{"empty", ` `, func() any { return new(target) }, strictjson.CodeEmptyBody},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.target()
			err := strictjson.DecodeObject([]byte(tt.in), v, nil)
			if got := strictjson.CodeOf(err); got != tt.wantCode {
				t.Fatalf("DecodeObject(%q) code = %q (%v), want %q", tt.in, got, err, tt.wantCode)
			}
			if tt.wantCode == strictjson.CodeNotAnObject {
				if msg := strictjson.Message(err, ""); msg != "$: want an object" {
					t.Errorf("message = %q, want %q", msg, "$: want an object")
				}
				if fresh := tt.target(); !reflect.DeepEqual(v, fresh) {
					t.Errorf("target changed to %#v", v)
				}
			}
		})
	}
}

func TestDecode_Names(t *testing.T) {
	var v map[string]any
	err := strictjson.Decode([]byte(`{"store_id":"a","store_id":"b"}`), &v, &strictjson.Options{Names: []string{"store_id"}})
	if err == nil || !strings.Contains(err.Error(), "$.store_id") {
		t.Errorf("Decode = %v, want the declared name in the path", err)
	}
	err = strictjson.Decode([]byte(`{"zz-probe":"a","zz-probe":"b"}`), &v, &strictjson.Options{Names: []string{"store_id"}})
	if err == nil || strings.Contains(err.Error(), "zz-probe") {
		t.Errorf("Decode = %v, want an error that does not name an undeclared key", err)
	}
}

func TestMessage(t *testing.T) {
	var v target
	err := strictjson.Decode([]byte(`{"question":1}`), &v, nil)
	if got := strictjson.Message(err, "fallback"); got != "$.question: want a string" {
		t.Errorf("Message = %q", got)
	}
	if got := strictjson.Message(errors.New("probe-value"), "fallback"); got != "fallback" {
		t.Errorf("Message of an unmarked error = %q, want the fallback", got)
	}
}

// safeMessage is the shape of every message: fixed words, numbers, and a
// path made of declared names and positions.
var safeMessage = regexp.MustCompile(`^decode json: (\$((\.(question|window|inner|list|raw|any|map|n|f|#[0-9]+))|\[[0-9]+\])*: )?[a-zA-Z0-9 ,()-]+$`)

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"question":"q","inner":{"n":3,"f":1.5}}`, `{"a":1,"a":2}`, `{"QUESTION":1}`, `[1,2,{"x":null}]`,
		`{"inner":{"f":1e400}}`, "\"\xff\"", `"\ud800"`, `{"question":"q"} x`, `{"window":["a"]}`, `{"any":{"k":[true,false,null]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v target
		err := strictjson.Decode(data, &v, nil)
		if err != nil {
			var e *strictjson.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not a *strictjson.Error", err)
			}
			if !safeMessage.MatchString(err.Error()) {
				t.Fatalf("message %q is not made of fixed words and declared names", err.Error())
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted input encoding/json calls invalid: %q", data)
		}
		var a any
		if err := strictjson.Decode(data, &a, nil); err != nil {
			t.Fatalf("accepted into a struct but not into any: %v", err)
		}
	})
}
