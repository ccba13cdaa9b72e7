// Package fakemodel is the deterministic "model" behind the fake servers
// (provider/openai/openaitest, provider/anthropic/anthropictest): it
// selects a tool with the rules provider's parser over the retail
// catalog's menu and composes with tool.Sentence, so a recording made from
// either server is the same on every machine. The servers speak their
// vendor's wire format around it.
package fakemodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/tool"
)

// registry is the fake model's menu: the retail catalog's tools, whose
// phrasings the rules parser matches.
var registry = catalogstest.Retail()

// Select returns the rules parser's proposal for question as a tool name
// and JSON arguments, or ok false to abstain.
func Select(question string) (name, args string, ok bool) {
	p, _ := rules.Provider{}.Select(context.Background(), question, registry.Menu())
	if p == nil {
		return "", "", false
	}
	b, err := json.Marshal(p.Params)
	if err != nil {
		return "", "", false
	}
	return p.Tool, string(b), true
}

// ComposeRequest is the user message of a compose call, as both providers
// write it.
type ComposeRequest struct {
	Question  string            `json:"question"`
	Tool      string            `json:"tool"`
	Arguments map[string]string `json:"arguments"`
	Value     json.RawMessage   `json:"value"`
}

// ParseCompose reads a compose call's user message; unknown fields are
// an error.
func ParseCompose(user string) (ComposeRequest, error) {
	var in ComposeRequest
	dec := json.NewDecoder(strings.NewReader(user))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return ComposeRequest{}, fmt.Errorf("decode compose input: %w", err)
	}
	return in, nil
}

// Sentence renders the request's value with the tool's template.
func (in ComposeRequest) Sentence() (string, error) {
	v, err := decodeValue(in.Tool, in.Value)
	if err != nil {
		return "", err
	}
	d, _ := registry.Lookup(in.Tool)
	return tool.Sentence(d, in.Arguments, v), nil
}

// decodeValue reads a value in fact.Value's JSON shapes back, for the
// tool's value kind.
func decodeValue(toolName string, raw json.RawMessage) (fact.Value, error) {
	d, ok := registry.Lookup(toolName)
	if !ok {
		return fact.Value{}, errors.New("decode value: unknown tool")
	}
	if d.Value.Scalar() && string(raw) == "null" {
		return fact.NoObservation(d.Value), nil
	}
	switch d.Value {
	case fact.KindText:
		var s string
		err := json.Unmarshal(raw, &s)
		return fact.Text(s), err
	case fact.KindInteger:
		var n int64
		err := json.Unmarshal(raw, &n)
		return fact.Integer(n, d.Unit), err
	case fact.KindNumber:
		var x float64
		if err := json.Unmarshal(raw, &x); err != nil {
			return fact.Value{}, err
		}
		return fact.Number(x, d.Unit)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fact.Value{}, err
	}
	var (
		count int
		ids   []string
	)
	if c, ok := obj["count"]; ok {
		if err := json.Unmarshal(c, &count); err != nil {
			return fact.Value{}, err
		}
	}
	if l, ok := obj[d.IDsField]; ok && d.IDsField != "" {
		if err := json.Unmarshal(l, &ids); err != nil {
			return fact.Value{}, err
		}
	}
	switch d.Value {
	case fact.KindEntityCount:
		return fact.EntityCount(d.IDsField, ids), nil
	case fact.KindEntityList:
		return fact.EntityList(d.IDsField, ids), nil
	}
	return fact.RowCount(count), nil
}
