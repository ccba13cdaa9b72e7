package eventlog

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// canonical returns the RFC 8785 form of v's JSON: written directly when
// v is a struct of the kinds fastCanonical knows (every payload type of
// this package), else by its definition, jcs.Transform(json.Marshal(v)).
// The two are held byte for byte to each other by
// TestCanonical_FastEqualsJCS and FuzzCanonical.
func canonical(v any) ([]byte, error) {
	if b, ok := fastCanonical(v); ok {
		return b, nil
	}
	return jcsCanonical(v)
}

// jcsCanonical is the definition: marshal, then canonicalise with the
// maintained RFC 8785 implementation.
func jcsCanonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshal: %w", err)
	}
	c, err := jcs.Transform(b)
	if err != nil {
		return nil, fmt.Errorf("canonicalise: %w", err)
	}
	return c, nil
}

// fastCanonical writes the RFC 8785 form of json.Marshal(v) for a struct
// v whose fields (by their json tags, with omitempty as encoding/json
// reads it) are strings, integers within ±(2^53-1), booleans, string
// slices, json.RawMessage (canonicalised by jcs alone) and nested such
// structs, with ASCII member names: members in byte order of their names
// (UTF-16 order, for ASCII), strings escaped as RFC 8785 says (\b \t \n
// \f \r \" \\ and \u00xx for the other control characters, every other
// character as itself), integers in decimal. ok is false for anything
// else (another kind, a method that marshals, invalid UTF-8, an integer
// beyond 2^53-1, a RawMessage encoding/json refuses); the caller then
// takes the definition.
func fastCanonical(v any) (b []byte, ok bool) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Struct {
		return nil, false
	}
	p := planFor(rv.Type())
	if p == nil {
		return nil, false
	}
	return p.append(make([]byte, 0, 256), rv)
}

// structPlan is how fastCanonical writes one struct type: its members
// in canonical order.
type structPlan struct {
	fields []fieldPlan
}

type fieldKind int

const (
	kString fieldKind = iota
	kInt
	kUint
	kBool
	kStrings
	kRaw
	kStruct
)

type fieldPlan struct {
	name      string
	index     int
	omitempty bool
	kind      fieldKind
	sub       *structPlan
}

// plans caches planFor by type (a nil *structPlan: not written fast).
var plans sync.Map

var (
	rawType       = reflect.TypeFor[json.RawMessage]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

func planFor(t reflect.Type) *structPlan {
	if p, ok := plans.Load(t); ok {
		return p.(*structPlan)
	}
	p := buildPlan(t, 0)
	plans.Store(t, p)
	return p
}

// marshals reports whether encoding/json writes t through a method of
// its own.
func marshals(t reflect.Type) bool {
	return t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

func buildPlan(t reflect.Type, depth int) *structPlan {
	if t.Kind() != reflect.Struct || marshals(t) || depth > 4 {
		return nil
	}
	p := &structPlan{}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil // embedded fields promote members: not written fast
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fp := fieldPlan{name: name, index: i}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "":
			case "omitempty":
				fp.omitempty = true
			default:
				return nil // string, omitzero, ...: not written fast
			}
		}
		if fp.name == "" {
			fp.name = f.Name
		}
		if !plainKey(fp.name) || seen[fp.name] {
			return nil
		}
		seen[fp.name] = true
		ft := f.Type
		switch {
		case ft == rawType:
			fp.kind = kRaw
		case marshals(ft):
			return nil
		case ft.Kind() == reflect.String:
			fp.kind = kString
		case ft.Kind() == reflect.Bool:
			fp.kind = kBool
		case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Int64:
			fp.kind = kInt
		case ft.Kind() >= reflect.Uint && ft.Kind() <= reflect.Uint64:
			fp.kind = kUint
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String && !marshals(ft.Elem()):
			fp.kind = kStrings
		case ft.Kind() == reflect.Struct:
			fp.kind = kStruct
			if fp.sub = buildPlan(ft, depth+1); fp.sub == nil {
				return nil
			}
		default:
			return nil
		}
		p.fields = append(p.fields, fp)
	}
	slices.SortFunc(p.fields, func(a, b fieldPlan) int { return strings.Compare(a.name, b.name) })
	return p
}

// plainKey: a member name written as itself, whose byte order is its
// UTF-16 order (printable ASCII without a quote or backslash), and that
// encoding/json keeps as the tag gives it.
func plainKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func (p *structPlan) append(b []byte, v reflect.Value) ([]byte, bool) {
	b = append(b, '{')
	first := true
	for i := range p.fields {
		f := &p.fields[i]
		fv := v.Field(f.index)
		if f.omitempty && emptyValue(f.kind, fv) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, f.name...)
		b = append(b, '"', ':')
		var ok bool
		switch f.kind {
		case kString:
			b, ok = appendString(b, fv.String())
		case kInt:
			n := fv.Int()
			if ok = n <= MaxSafeInteger && n >= -MaxSafeInteger; ok {
				b = strconv.AppendInt(b, n, 10)
			}
		case kUint:
			n := fv.Uint()
			if ok = n <= MaxSafeInteger; ok {
				b = strconv.AppendUint(b, n, 10)
			}
		case kBool:
			b, ok = strconv.AppendBool(b, fv.Bool()), true
		case kStrings:
			b, ok = appendStrings(b, fv)
		case kRaw:
			b, ok = appendRaw(b, fv.Bytes())
		case kStruct:
			b, ok = f.sub.append(b, fv)
		}
		if !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// emptyValue is encoding/json's omitempty test for the kinds planned.
func emptyValue(k fieldKind, v reflect.Value) bool {
	switch k {
	case kString, kStrings, kRaw:
		return v.Len() == 0
	case kInt:
		return v.Int() == 0
	case kUint:
		return v.Uint() == 0
	case kBool:
		return !v.Bool()
	}
	return false // a struct is never empty
}

func appendStrings(b []byte, v reflect.Value) ([]byte, bool) {
	if v.IsNil() {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i := range v.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendString(b, v.Index(i).String()); !ok {
			return nil, false
		}
	}
	return append(b, ']'), true
}

// appendRaw writes a json.RawMessage member: what encoding/json writes
// for it ("null" when nil; an error when it is not valid JSON), then
// canonicalised by jcs, the definition, alone.
func appendRaw(b []byte, raw []byte) ([]byte, bool) {
	if raw == nil {
		return append(b, "null"...), true
	}
	if !json.Valid(raw) {
		return nil, false
	}
	c, err := jcs.Transform(raw)
	if err != nil {
		return nil, false
	}
	return append(b, c...), true
}

const hexDigits = "0123456789abcdef"

// appendString writes s as RFC 8785 does; ok is false for invalid UTF-8
// (which encoding/json would replace).
func appendString(b []byte, s string) ([]byte, bool) {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			continue // checked as UTF-8 below
		}
		var esc byte
		switch c {
		case '"', '\\':
			esc = c
		case '\b':
			esc = 'b'
		case '\f':
			esc = 'f'
		case '\n':
			esc = 'n'
		case '\r':
			esc = 'r'
		case '\t':
			esc = 't'
		default:
			if c >= 0x20 {
				continue
			}
		}
		b = append(b, s[start:i]...)
		if esc != 0 {
			b = append(b, '\\', esc)
		} else {
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	if !utf8.ValidString(s) {
		return nil, false
	}
	b = append(b, s[start:]...)
	return append(b, '"'), true
}

// htmlOrSeparator reports whether b holds a byte encoding/json escapes
// in a string even where RFC 8785 does not (<, >, &, and U+2028 and
// U+2029, which start with 0xe2 0x80).
func htmlOrSeparator(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '<', '>', '&':
			return true
		case 0xe2:
			if i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xa8 || b[i+2] == 0xa9) {
				return true
			}
		}
	}
	return false
}

// sealed is what NewEvent and Decode checked of an event's payload: its
// type, its schema version and its canonical bytes (a copy of its own,
// so that a change to the event's Payload, in place or not, is seen).
// Validate skips the strict decoding of a payload its seal covers.
type sealed struct {
	typ     Type
	version int
	payload []byte
}

func seal(typ Type, version int, payload []byte) *sealed {
	return &sealed{typ: typ, version: version, payload: bytes.Clone(payload)}
}

// covers reports whether s was made for e's type, version and payload
// exactly.
func (s *sealed) covers(e *Event) bool {
	return s != nil && s.typ == e.Type && s.version == e.SchemaVersion && bytes.Equal(s.payload, e.Payload)
}

// Encode returns e's JSON line (without a newline): exactly the bytes of
// json.Marshal(e), which the stores write. An event whose payload
// NewEvent built or Decode read (canonical, so already compact) and
// whose strings need no escaping is written directly; any other through
// json.Marshal (TestEncode_EqualsMarshal holds the two to each other).
func Encode(e Event) ([]byte, error) {
	if b, ok := fastEncode(&e); ok {
		return b, nil
	}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode event: %w", err)
	}
	return b, nil
}

func fastEncode(e *Event) ([]byte, bool) {
	if !e.checked.covers(e) || htmlOrSeparator(e.Payload) {
		return nil, false
	}
	for _, s := range []string{e.ID, string(e.Type), e.Run, e.Producer, e.Causation, e.Correlation, e.WallTime, e.Host} {
		if !plainASCII(s) || strings.ContainsAny(s, "<>&") {
			return nil, false
		}
	}
	b := make([]byte, 0, 320+len(e.Payload))
	str := func(key, v string) {
		b = append(b, ",\""...)
		b = append(b, key...)
		b = append(b, "\":\""...)
		b = append(b, v...)
		b = append(b, '"')
	}
	num := func(key string, n int64) {
		b = append(b, ",\""...)
		b = append(b, key...)
		b = append(b, "\":"...)
		b = strconv.AppendInt(b, n, 10)
	}
	b = append(b, `{"id":"`...)
	b = append(b, e.ID...)
	b = append(b, '"')
	str("type", string(e.Type))
	num("schema_version", int64(e.SchemaVersion))
	str("run", e.Run)
	str("producer", e.Producer)
	num("seq", e.Seq)
	num("seed", e.Seed)
	if e.Causation != "" {
		str("causation", e.Causation)
	}
	if e.Correlation != "" {
		str("correlation", e.Correlation)
	}
	num("time", e.Time)
	if e.WallTime != "" {
		str("wall_time", e.WallTime)
	}
	if e.Host != "" {
		str("host", e.Host)
	}
	if e.PID != 0 {
		num("pid", e.PID)
	}
	b = append(b, `,"payload":`...)
	b = append(b, e.Payload...)
	return append(b, '}'), true
}
