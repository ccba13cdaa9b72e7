package eventlog_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/provenant/provenant/eventlog"
)

// mutateLeaf returns the value a leaf becomes to test a change: a
// different value of the same kind that the event would still carry.
func changed(v any) any {
	switch v := v.(type) {
	case string:
		if strings.HasPrefix(v, "evt-") {
			return "evt-" + strings.Repeat("9", 32)
		}
		return v + "x"
	case json.Number:
		n, _ := v.Int64()
		return json.Number(strconv.FormatInt(n+1, 10))
	case bool:
		return !v
	case []any:
		return append(slices.Clone(v), "extra")
	}
	return "other"
}

// TestHash_NonDeterministicFields: changing a field on the committed list
// never changes an event's hash input; changing any other field of any
// event type does.
func TestHash_NonDeterministicFields(t *testing.T) {
	nd := map[string]bool{}
	for _, f := range eventlog.NonDeterministic() {
		nd[f.Pointer] = true
	}
	if len(nd) == 0 {
		t.Fatal("the non-deterministic list is empty")
	}
	for _, e := range sampleLog(t) {
		t.Run(string(e.Type), func(t *testing.T) {
			base, err := eventlog.HashInput(e)
			if err != nil {
				t.Fatal(err)
			}
			doc := toDoc(t, line(t, e))
			for _, p := range leaves(doc, "") {
				if _, isObj := lookup(doc, p).(map[string]any); isObj {
					continue
				}
				d := toDoc(t, line(t, e))
				setPointer(d, p, changed(lookup(d, p)))
				b, err := json.Marshal(d)
				if err != nil {
					t.Fatal(err)
				}
				var m eventlog.Event
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatal(err)
				}
				got, err := eventlog.HashInput(m)
				if err != nil {
					t.Fatal(err)
				}
				if same := string(got) == string(base); same != nd[p] {
					t.Errorf("changing %s: hash input unchanged = %v; want %v (non-deterministic: %v)", p, same, nd[p], nd[p])
				}
			}
			for p := range nd {
				if lookup(doc, p) == nil {
					t.Errorf("sample event lacks non-deterministic field %s: the test would not exercise it", p)
				}
			}
		})
	}
}

func lookup(doc map[string]any, pointer string) any {
	var cur any = doc
	for _, p := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// TestHash_NoClockInSchemas: no schema declares a field that looks like a
// wall-clock reading or a machine's identity but the ones on the
// non-deterministic list; durations belong in the profile.
func TestHash_NoClockInSchemas(t *testing.T) {
	suspicious := regexp.MustCompile(`(?i)(wall|elapsed|duration|latency|_ns$|_us$|^ms$|clock|host|pid|process|timestamp)`)
	allowed := map[string]bool{}
	for _, f := range eventlog.NonDeterministic() {
		allowed[strings.TrimPrefix(f.Pointer, "/")] = true
	}
	entries, err := os.ReadDir(filepath.Join("schemas"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range entries {
		b, err := os.ReadFile(filepath.Join("schemas", ent.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if props, ok := v["properties"].(map[string]any); ok {
					for name := range props {
						if suspicious.MatchString(name) && !allowed[name] {
							t.Errorf("%s declares %q, which looks non-deterministic but is not on nondeterministic.json", ent.Name(), name)
						}
					}
				}
				for _, c := range v {
					walk(c)
				}
			case []any:
				for _, c := range v {
					walk(c)
				}
			}
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		walk(doc)
	}
}

// TestHash_Chain pins the chain's definition on two events.
func TestHash_Chain(t *testing.T) {
	events := sampleLog(t)[:2]
	var c eventlog.Chain
	h1, _ := c.Add(events[0])
	h2, _ := c.Add(events[1])
	if h1 == h2 || c.Len() != 2 || c.Head() != h2 {
		t.Fatalf("chain heads %s, %s", h1, h2)
	}
	got, err := eventlog.Hash([]eventlog.Event{events[1], events[0]})
	if err != nil {
		t.Fatal(err)
	}
	if got != h2 {
		t.Errorf("Hash of the events out of order = %s; want the canonical chain %s", got, h2)
	}
	d, err := eventlog.ParseDigest(got.String())
	if err != nil || d != got {
		t.Errorf("ParseDigest(String()) = %v, %v", d, err)
	}
	if _, err := eventlog.ParseDigest("zz"); err == nil {
		t.Error("ParseDigest accepts zz")
	}
}

// TestHash_ByHand recomputes a two-event log's hash from canonical JSON
// written by hand (keys sorted, no white space, the non-deterministic
// fields left out) and an event id from its definition, sharing no code
// with the package.
func TestHash_ByHand(t *testing.T) {
	idInput := append([]byte("provenant/eventlog/id\x00"), 0, 0, 0, 0, 0, 0, 0, 42)
	idInput = append(idInput, "run-1\x00pipeline\x00"...)
	idInput = append(idInput, 0, 0, 0, 0, 0, 0, 0, 1)
	sum := sha256.Sum256(idInput)
	if got, want := eventlog.EventID(42, "run-1", "pipeline", 1), "evt-"+hex.EncodeToString(sum[:16]); got != want {
		t.Errorf("EventID = %s; want %s", got, want)
	}
	env := eventlog.Envelope{ID: "evt-" + strings.Repeat("1", 32), Run: "run-1", Producer: "pipeline", Seq: 1, Seed: 42, Time: 3,
		WallTime: "2026-01-01T00:00:00Z", Host: "h", PID: 9}
	e1, err := eventlog.NewEvent(env, eventlog.Abstained{QuestionID: "q-1", Reason: "missing_slot"})
	if err != nil {
		t.Fatal(err)
	}
	env.ID, env.Producer, env.Time, env.Causation = "evt-"+strings.Repeat("2", 32), "budget", 2, ""
	e2, err := eventlog.NewEvent(env, eventlog.ElevationExpired{Session: "s", GrantID: "g", Tools: []string{"b_tool", "a_tool"}, Reason: "age", TierRestored: "L1"})
	if err != nil {
		t.Fatal(err)
	}
	// Canonical order: e2 (time 2) before e1 (time 3).
	c2 := `{"id":"evt-22222222222222222222222222222222","payload":{"grant_id":"g","reason":"age","session":"s","tier_restored":"L1","tools":["b_tool","a_tool"]},"producer":"budget","run":"run-1","schema_version":1,"seed":42,"seq":1,"time":2,"type":"elevation.expired"}`
	c1 := `{"id":"evt-11111111111111111111111111111111","payload":{"question_id":"q-1","reason":"missing_slot"},"producer":"pipeline","run":"run-1","schema_version":1,"seed":42,"seq":1,"time":3,"type":"abstained"}`
	var h [32]byte
	for _, c := range []string{c2, c1} {
		h = sha256.Sum256(append(h[:], c...))
	}
	got, err := eventlog.Hash([]eventlog.Event{e1, e2})
	if err != nil {
		t.Fatal(err)
	}
	if got != eventlog.Digest(h) {
		in1, _ := eventlog.HashInput(e1)
		in2, _ := eventlog.HashInput(e2)
		t.Errorf("Hash = %s; want %s\nhash inputs:\n%s\n%s", got, eventlog.Digest(h), in2, in1)
	}
}

// TestHash_SeededRunPinned pins the log hash of a seeded run (every
// payload type once, through a deterministic Log) to the value the
// package gave before payloads were canonicalised and re-checked by the
// direct writer: building an event must not change a byte it hashes.
func TestHash_SeededRunPinned(t *testing.T) {
	got, err := eventlog.Hash(sampleLog(t))
	if err != nil {
		t.Fatal(err)
	}
	if want := "a02d89b5543e5b2ec4f3409c73bfb556f321e65a52bba9f661110f525fee7d08"; got.String() != want {
		t.Errorf("log hash of the seeded run = %s; want %s", got, want)
	}
}
