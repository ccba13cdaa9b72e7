package eventlog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

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
		})
	}
}
