package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"testing"
	"unicode/utf8"
)

// refEachMember is eachMember as encoding/json's Decoder reads an object:
// the reference the fast lane's own scanner is checked against.
func refEachMember(data []byte, fn func(key string, raw json.RawMessage) bool) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		key, ok := t.(string)
		if !ok || slices.Contains(keys, key) {
			return false
		}
		keys = append(keys, key)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil || !fn(key, raw) {
			return false
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return false
	}
	_, err := dec.Token()
	return err == io.EOF
}

type member struct {
	key string
	raw string
}

func members(each func([]byte, func(string, json.RawMessage) bool) bool, data []byte) ([]member, bool) {
	var out []member
	ok := each(data, func(k string, raw json.RawMessage) bool {
		out = append(out, member{k, string(raw)})
		return true
	})
	return out, ok
}

// FuzzEachMember: on valid JSON, eachMember accepts only what the
// Decoder-based reference accepts, with the same members and values, and
// refuses what the reference accepts only for a key with an escape or
// invalid UTF-8, or more than maxMembers members.
func FuzzEachMember(f *testing.F) {
	for _, c := range wireSeeds {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		got, ok := members(eachMember, data)
		want, refOK := members(refEachMember, data)
		if ok && (!refOK || !slices.Equal(got, want)) {
			t.Fatalf("eachMember(%q) = %v, %v; reference %v, %v", data, got, ok, want, refOK)
		}
		if !ok && refOK && len(want) <= maxMembers && !unusualKey(data) {
			t.Fatalf("eachMember(%q) refused what the reference reads: %v", data, want)
		}
	})
}

// unusualKey reports whether data may hold a key eachMember refuses to
// read: one with an escape or invalid UTF-8.
func unusualKey(data []byte) bool { return bytes.Contains(data, []byte(`\`)) || !utf8.Valid(data) }

// wireSeeds are object shapes the fast lane meets.
var wireSeeds = []string{
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_price","arguments":{"as_of":"2026-01-06T08:00:00Z"}}}`,
	` { "a" : [1, {"b": "}"}] , "c":null,"d":-1.5e3, "e":"\"x\\"} `,
	`{"a":1,"a":2}`,
	`{}`,
	`{"k\u0041":true}`,
	`{"a":1} {}`,
	`[{"a":1}]`,
	`{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9}`,
}
