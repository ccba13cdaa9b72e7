package eventlog

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// TestHashInput_FastEqualsGeneric (rapid): wherever the fast path
// applies it writes exactly what the definition (marshal, remove the
// listed members, RFC 8785) writes, for events valid or not.
func TestHashInput_FastEqualsGeneric(t *testing.T) {
	str := rapid.OneOf(
		rapid.SampledFrom([]string{"", "q-1", "evt-0123456789abcdef0123456789abcdef", "run-1", "2026-01-01T00:00:00Z", "a\"b", "a\\b", "<&>", "\u2028", "é", "\x7f", "\t"}),
		rapid.String(),
	)
	num := rapid.OneOf(rapid.Int64Range(-3, 3), rapid.Int64Range(MaxSafeInteger-2, MaxSafeInteger+2), rapid.Int64())
	payloads := []string{`{}`, `{"b":1,"a":[true,null,"x"]}`, `{"x":1e2,"y":-0.0,"z":"\u00e9\ud83d\ude00<"}`, `[1]`, `"s"`,
		`{"question_id":"q-1","reason":"missing_slot"}`, `{"a":{"c":1,"b":2}}`, `{"n":123456789012345678}`}
	fastHits := 0
	plainStr := rapid.OneOf(
		rapid.SampledFrom([]string{"", "q-1", "evt-0123456789abcdef0123456789abcdef", "run-1", "2026-01-01T00:00:00Z", "<&>", "~/"}),
		rapid.StringMatching(`[ !#-\[\]-~]{0,10}`),
	)
	rapid.Check(t, func(rt *rapid.T) {
		str := str
		if rapid.Bool().Draw(rt, "plain") {
			str = plainStr
		}
		e := Event{
			ID: str.Draw(rt, "id"), Type: Type(str.Draw(rt, "type")), SchemaVersion: int(rapid.Int64Range(-2, 3).Draw(rt, "v")),
			Run: str.Draw(rt, "run"), Producer: str.Draw(rt, "producer"), Seq: num.Draw(rt, "seq"), Seed: num.Draw(rt, "seed"),
			Causation: str.Draw(rt, "causation"), Correlation: str.Draw(rt, "correlation"), Time: num.Draw(rt, "time"),
			WallTime: str.Draw(rt, "wall"), Host: str.Draw(rt, "host"), PID: num.Draw(rt, "pid"),
			Payload: json.RawMessage(rapid.SampledFrom(payloads).Draw(rt, "payload")),
		}
		fast, ok := fastHashInput(e)
		if !ok {
			return
		}
		fastHits++
		want, err := genericHashInput(e)
		if err != nil {
			rt.Fatalf("the fast path accepts what the definition refuses: %v", err)
		}
		if !bytes.Equal(fast, want) {
			rt.Fatalf("fast %s\nwant %s", fast, want)
		}
	})
	if fastHits == 0 {
		t.Error("the fast path never applied")
	}
}
