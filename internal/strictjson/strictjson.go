// Package strictjson is the one JSON decoder for everything the engine
// reads from outside: request bodies, MCP tool arguments, ledgers, gold
// files, calibration tables and cassettes. It imports only the standard
// library, so pure packages may use it.
//
// Decode is stricter than encoding/json, which it uses only to fill the
// target once the input has passed every check:
//
//   - a key that appears twice in one object, at any depth, is an error
//     (encoding/json keeps the last);
//   - keys match struct fields exactly: "QUESTION" is not "question"
//     (encoding/json folds case);
//   - a key that names no field of a struct target is an error;
//   - a number that does not fit its target (beyond float64, beyond an
//     integer type, a fraction for an integer) is an error, never a zero;
//   - anything after the one JSON value but white space is an error;
//   - invalid UTF-8, and an escape that is half a surrogate pair, are
//     errors (encoding/json replaces them with U+FFFD);
//   - nesting is bounded.
//
// A malformed document (syntax, UTF-8, a duplicate key, depth, trailing
// data) is reported before a well-formed one that does not fit its target
// (an unknown field, a wrong type, a number out of range).
//
// Every failure is an *Error whose message is safe to show a client: it
// names the problem and where (a byte offset, a path), and names only keys
// the target declares (a struct's field names, Options.Names); any other
// key is named by its position in its object (#3), because a key a client
// chose is client input, and client input is never echoed.
package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind names what is wrong with the input.
type Kind string

// The kinds of decoding failure.
const (
	Empty     Kind = "empty"           // no JSON value at all
	Syntax    Kind = "invalid_json"    // not well-formed JSON
	Trailing  Kind = "trailing_data"   // something after the one JSON value
	UTF8      Kind = "invalid_utf8"    // invalid UTF-8, or a lone surrogate escape
	Depth     Kind = "too_deep"        // nesting beyond Options.MaxDepth
	Duplicate Kind = "duplicate_field" // a key appears twice in one object
	Unknown   Kind = "unknown_field"   // a key that names no field of a struct target
	Type      Kind = "wrong_type"      // a value of the wrong JSON type for its target
	Range     Kind = "out_of_range"    // a number that does not fit its target
)

// Error is a decoding failure. Its message is safe to show a client.
type Error struct {
	Kind Kind
	// Path locates the value at fault: "$" is the document, ".name" a
	// declared field, ".#3" the fourth member of an object whose key is not
	// declared, "[2]" an array element. Empty for Empty, Syntax, Trailing,
	// UTF8 and Depth, which Offset locates instead.
	Path string
	// Offset is the byte offset at which the problem was found.
	Offset int
	// Want says what the target wanted, for Type and Range: "a string",
	// "an integer", "a number that fits a float64".
	Want string
}

func (e *Error) Error() string { return "decode json: " + e.SafeMessage() }

// SafeMessage returns the message without the "decode json" prefix.
func (e *Error) SafeMessage() string {
	switch e.Kind {
	case Empty:
		return "no JSON value"
	case Syntax:
		return fmt.Sprintf("malformed JSON near byte %d", e.Offset)
	case Trailing:
		return fmt.Sprintf("data after the JSON value at byte %d", e.Offset)
	case UTF8:
		return fmt.Sprintf("invalid UTF-8 near byte %d", e.Offset)
	case Depth:
		return fmt.Sprintf("nesting too deep at byte %d", e.Offset)
	case Duplicate:
		return e.Path + ": field appears more than once"
	case Unknown:
		return e.Path + ": unknown field"
	case Type:
		return e.Path + ": want " + e.Want
	case Range:
		return e.Path + ": number out of range (want " + e.Want + ")"
	}
	return "invalid JSON"
}

// Safe is an error whose message may be shown to a client: it holds
// nothing the client sent. *Error is one; a package whose own errors name
// only declared fields may mark them Safe too.
type Safe interface {
	error
	SafeMessage() string
}

// Message returns the safe message of the first Safe error in err's chain,
// or fallback (fixed text) when there is none: a surface prints only what
// this returns.
func Message(err error, fallback string) string {
	var s Safe
	if errors.As(err, &s) {
		return s.SafeMessage()
	}
	return fallback
}

// The codes the surfaces give a decoding failure: REST's 400 error codes,
// and the kind of an MCP argument rejection.
const (
	CodeEmptyBody      = "empty_body"
	CodeInvalidJSON    = "invalid_json"
	CodeDuplicateField = "duplicate_field"
	CodeUnknownField   = "unknown_field"
	CodeNotAnObject    = "not_an_object"
	CodeWrongType      = "wrong_type"
)

// CodeOf returns the code of a decoding failure: a value of the wrong type
// for the document itself is not_an_object, below it wrong_type; a number
// out of range is wrong_type too. It is "" for a nil error.
func CodeOf(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if !errors.As(err, &e) {
		return CodeInvalidJSON
	}
	switch e.Kind {
	case Empty:
		return CodeEmptyBody
	case Duplicate:
		return CodeDuplicateField
	case Unknown:
		return CodeUnknownField
	case Type, Range:
		if e.Path == "$" {
			return CodeNotAnObject
		}
		return CodeWrongType
	}
	return CodeInvalidJSON
}

// IsJSONMediaType reports whether a Content-Type is application/json with,
// at most, a UTF-8 charset: the only JSON the surfaces read.
func IsJSONMediaType(contentType string) bool {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "application/json" {
		return false
	}
	for k, v := range params {
		if k != "charset" || !strings.EqualFold(v, "utf-8") {
			return false
		}
	}
	return true
}

// DefaultMaxDepth bounds nesting when Options.MaxDepth is 0.
const DefaultMaxDepth = 64

// Options configures Decode. nil means defaults.
type Options struct {
	// Names are map keys an error may name (a tool's parameter names, for
	// a map[string]any of arguments). A struct's field names are always
	// named; every other key is named by position.
	Names []string
	// MaxDepth bounds the nesting of objects and arrays; 0 means
	// DefaultMaxDepth.
	MaxDepth int
}

// Decode decodes data, which must hold exactly one JSON value, into v, a
// non-nil pointer. An interface{} target receives json.Number for numbers,
// so none is lost to float64's range. On failure v is left unchanged and
// the error is an *Error.
func Decode(data []byte, v any, opts *Options) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("strictjson: Decode needs a non-nil pointer")
	}
	d := decoder{data: data, maxDepth: DefaultMaxDepth}
	if opts != nil {
		if opts.MaxDepth > 0 {
			d.maxDepth = opts.MaxDepth
		}
		d.names = opts.Names
	}
	if !utf8.Valid(data) {
		return &Error{Kind: UTF8, Offset: invalidUTF8(data)}
	}
	d.ws()
	if d.pos == len(data) {
		return &Error{Kind: Empty}
	}
	if err := d.value(rv.Type().Elem(), "$"); err != nil {
		return err
	}
	d.ws()
	if d.pos != len(data) {
		return &Error{Kind: Trailing, Offset: d.pos}
	}
	if d.schema != nil {
		return d.schema
	}
	// Every key is distinct and spelt exactly as its field, every value has
	// its target's type: encoding/json can no longer fold, drop or keep
	// the last of anything.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		// A target's own UnmarshalJSON refused its value; its message may
		// quote it, so it is not passed on.
		return &Error{Kind: Type, Path: "$", Want: "a value its type accepts"}
	}
	return nil
}

// DecodeObject is Decode for a document that must be a JSON object, as
// every request body and every set of tool arguments must: any other
// value is a Type error at "$" (CodeOf: not_an_object), whatever v is.
// That includes null, which Decode gives a struct, map or pointer target
// as nothing at all. A malformed document is reported as Decode reports
// it, first; on failure v is left unchanged.
func DecodeObject(data []byte, v any, opts *Options) error {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] != '{' {
		if err := Decode(data, new(any), opts); err != nil {
			return err
		}
		return &Error{Kind: Type, Path: "$", Offset: len(data) - len(t), Want: "an object"}
	}
	return Decode(data, v, opts)
}

func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

type decoder struct {
	// schema is the first Unknown, Type or Range error: the walk goes on
	// past it (treating the value as any JSON), so that malformed JSON, a
	// duplicate key or invalid UTF-8 anywhere is reported first.
	schema   *Error
	data     []byte
	pos      int
	depth    int
	maxDepth int
	names    []string
}

func (d *decoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) syntax() error { return &Error{Kind: Syntax, Offset: d.pos} }

// mismatch records a schema error; the walk goes on.
func (d *decoder) mismatch(e *Error) error {
	if d.schema == nil {
		d.schema = e
	}
	return nil
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
	unmarshalType  = reflect.TypeFor[json.Unmarshaler]()
	textType       = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// target reduces t to what the walk checks against: nil means any JSON
// value is accepted (interface{}, json.RawMessage, a type with its own
// decoding).
func target(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == nil, t == rawMessageType, t.Kind() == reflect.Interface:
		return nil
	case t == numberType:
		return t
	case reflect.PointerTo(t).Implements(unmarshalType), reflect.PointerTo(t).Implements(textType):
		return nil
	}
	return t
}

// value checks the value at d.pos against t and moves past it.
func (d *decoder) value(t reflect.Type, path string) error {
	t = target(t)
	d.ws()
	if d.pos >= len(d.data) {
		return d.syntax()
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(t, path)
	case c == '[':
		return d.array(t, path)
	case c == '"':
		start := d.pos
		if _, err := d.str(); err != nil {
			return err
		}
		if t != nil && t.Kind() != reflect.String && !(t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8) {
			return d.mismatch(&Error{Kind: Type, Path: path, Offset: start, Want: want(t)})
		}
		return nil
	case c == '-' || c >= '0' && c <= '9':
		return d.number(t, path)
	case c == 't':
		return d.literal("true", t, path, reflect.Bool)
	case c == 'f':
		return d.literal("false", t, path, reflect.Bool)
	case c == 'n':
		return d.literal("null", nil, path, 0)
	}
	return d.syntax()
}

func (d *decoder) literal(lit string, t reflect.Type, path string, k reflect.Kind) error {
	start := d.pos
	if !bytes.HasPrefix(d.data[d.pos:], []byte(lit)) {
		return d.syntax()
	}
	d.pos += len(lit)
	if t != nil && t.Kind() != k {
		return d.mismatch(&Error{Kind: Type, Path: path, Offset: start, Want: want(t)})
	}
	return nil
}

func (d *decoder) enter() error {
	d.depth++
	if d.depth > d.maxDepth {
		return &Error{Kind: Depth, Offset: d.pos}
	}
	return nil
}

func (d *decoder) object(t reflect.Type, path string) error {
	start := d.pos
	if err := d.enter(); err != nil {
		return err
	}
	d.pos++ // '{'
	var (
		fields map[string]reflect.Type
		elem   reflect.Type // a map's values
	)
	switch {
	case t == nil:
	case t.Kind() == reflect.Struct:
		fields = structFields(t)
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		elem = t.Elem()
	default:
		d.mismatch(&Error{Kind: Type, Path: path, Offset: start, Want: want(t)})
	}
	var seen []string
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.depth--
		return nil
	}
	for i := 0; ; i++ {
		d.ws()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return d.syntax()
		}
		keyAt := d.pos
		key, err := d.str()
		if err != nil {
			return err
		}
		var (
			child     reflect.Type
			declared  bool
			childPath string
		)
		if fields != nil {
			child, declared = fields[key]
		} else {
			child = elem
			declared = containsString(d.names, key)
		}
		if declared {
			childPath = path + "." + key
		} else {
			childPath = path + ".#" + strconv.Itoa(i)
		}
		if containsString(seen, key) {
			return &Error{Kind: Duplicate, Path: childPath, Offset: keyAt}
		}
		seen = append(seen, key)
		if fields != nil && !declared {
			d.mismatch(&Error{Kind: Unknown, Path: childPath, Offset: keyAt})
		}
		d.ws()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return d.syntax()
		}
		d.pos++
		if err := d.value(child, childPath); err != nil {
			return err
		}
		d.ws()
		if d.pos >= len(d.data) {
			return d.syntax()
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			d.depth--
			return nil
		default:
			return d.syntax()
		}
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (d *decoder) array(t reflect.Type, path string) error {
	start := d.pos
	if err := d.enter(); err != nil {
		return err
	}
	d.pos++ // '['
	var elem reflect.Type
	fixed := -1
	switch {
	case t == nil:
	case t.Kind() == reflect.Slice:
		elem = t.Elem()
	case t.Kind() == reflect.Array:
		elem, fixed = t.Elem(), t.Len()
	default:
		d.mismatch(&Error{Kind: Type, Path: path, Offset: start, Want: want(t)})
	}
	n := 0
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
	} else {
		for {
			if err := d.value(elem, path+"["+strconv.Itoa(n)+"]"); err != nil {
				return err
			}
			n++
			d.ws()
			if d.pos >= len(d.data) {
				return d.syntax()
			}
			if d.data[d.pos] == ']' {
				d.pos++
				break
			}
			if d.data[d.pos] != ',' {
				return d.syntax()
			}
			d.pos++
		}
	}
	d.depth--
	if fixed >= 0 && n != fixed {
		// encoding/json would drop extra elements and zero missing ones.
		return d.mismatch(&Error{Kind: Type, Path: path, Offset: start, Want: fmt.Sprintf("an array of exactly %d elements", fixed)})
	}
	return nil
}

// str reads a string at d.pos, checking its escapes, and returns its value.
func (d *decoder) str() (string, error) {
	d.pos++ // '"'
	start := d.pos
	simple := true
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			s := d.data[start:d.pos]
			d.pos++
			if simple {
				return string(s), nil
			}
			return unquote(s), nil
		case c == '\\':
			simple = false
			if err := d.escape(); err != nil {
				return "", err
			}
		case c < 0x20:
			return "", d.syntax()
		default:
			d.pos++
		}
	}
	return "", d.syntax()
}

// escape checks the escape at d.pos (a backslash) and moves past it.
func (d *decoder) escape() error {
	if d.pos+1 >= len(d.data) {
		return d.syntax()
	}
	switch d.data[d.pos+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		d.pos += 2
		return nil
	case 'u':
	default:
		return d.syntax()
	}
	at := d.pos
	r, ok := hex4(d.data, d.pos+2)
	if !ok {
		return d.syntax()
	}
	d.pos += 6
	switch {
	case utf16.IsSurrogate(r) && r < 0xDC00: // a high half needs a low half
		if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
			if r2, ok := hex4(d.data, d.pos+2); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
				d.pos += 6
				return nil
			}
		}
		return &Error{Kind: UTF8, Offset: at}
	case utf16.IsSurrogate(r):
		return &Error{Kind: UTF8, Offset: at}
	}
	return nil
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	return rune(v), err == nil
}

// unquote decodes a string body whose escapes were checked.
func unquote(s []byte) string {
	var out string
	if err := json.Unmarshal(append(append([]byte{'"'}, s...), '"'), &out); err != nil {
		return string(s)
	}
	return out
}

// number reads a number at d.pos and checks that it fits t.
func (d *decoder) number(t reflect.Type, path string) error {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case digits() == 0:
		return d.syntax()
	}
	integral := true
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		integral = false
		if digits() == 0 {
			return d.syntax()
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		integral = false
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return d.syntax()
		}
	}
	if t == nil || t == numberType {
		return nil
	}
	lit := string(d.data[start:d.pos])
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		if _, err := strconv.ParseFloat(lit, t.Bits()); err != nil {
			return d.mismatch(&Error{Kind: Range, Path: path, Offset: start, Want: fmt.Sprintf("a number that fits a float%d", t.Bits())})
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !integral {
			return d.mismatch(&Error{Kind: Type, Path: path, Offset: start, Want: "an integer"})
		}
		if _, err := strconv.ParseInt(lit, 10, t.Bits()); err != nil {
			return d.mismatch(&Error{Kind: Range, Path: path, Offset: start, Want: fmt.Sprintf("an integer that fits %d bits", t.Bits())})
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !integral || lit[0] == '-' {
			return d.mismatch(&Error{Kind: Type, Path: path, Offset: start, Want: "a non-negative integer"})
		}
		if _, err := strconv.ParseUint(lit, 10, t.Bits()); err != nil {
			return d.mismatch(&Error{Kind: Range, Path: path, Offset: start, Want: fmt.Sprintf("an integer that fits %d bits", t.Bits())})
		}
	default:
		return d.mismatch(&Error{Kind: Type, Path: path, Offset: start, Want: want(t)})
	}
	return nil
}

// want describes what a target type accepts.
func want(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	if t == numberType {
		return "a number"
	}
	return "another type"
}

var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// structFields returns the JSON names of t's fields as encoding/json sees
// them (tags, "-", embedded structs flattened), with their types.
func structFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	out := map[string]reflect.Type{}
	collectFields(t, out, 0)
	fieldCache.Store(t, out)
	return out
}

func collectFields(t reflect.Type, out map[string]reflect.Type, depth int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := cutComma(tag)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && depth < 8 {
				collectFields(ft, out, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := out[name]; !dup {
			out[name] = f.Type
		}
	}
}

func cutComma(s string) (before, after string, found bool) {
	if i := bytes.IndexByte([]byte(s), ','); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}
