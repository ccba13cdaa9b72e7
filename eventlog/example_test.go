package eventlog_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventschema"
)

// Example records a question's events in deterministic mode, exports the
// log in canonical order and verifies it against the schemas. The hash
// does not depend on the wall clock, the host or the process.
func Example() {
	ctx := context.Background()
	hash := func(now time.Time, host string) eventlog.Digest {
		store := &eventlog.MemStore{}
		log, _ := eventlog.NewLog(ctx, store, &eventlog.Options{
			Seed: 42, Deterministic: true, Now: func() time.Time { return now }, Host: host, PID: 1234,
		})
		q, _ := log.Append(ctx, eventlog.Entry{Producer: "pipeline", Time: 1, Correlation: "q-1",
			Payload: eventlog.QuestionReceived{QuestionID: "q-1", Surface: "cli", Question: "How many stores are out of stock?"}})
		log.Append(ctx, eventlog.Entry{Producer: "pipeline", Time: 2, Causation: q.ID, Correlation: "q-1",
			Payload: eventlog.Abstained{QuestionID: "q-1", Reason: "budget_exhausted"}})

		var export bytes.Buffer
		rep, _ := eventlog.Export(ctx, &export, store)
		schemas, _ := eventschema.Load()
		if _, err := eventlog.Verify(ctx, &export, &eventlog.VerifyOptions{Schema: schemas, Canonical: true, Want: &rep.Hash}); err != nil {
			fmt.Println(err)
		}
		return rep.Hash
	}
	a := hash(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "host-a")
	b := hash(time.Date(2027, 6, 1, 9, 30, 0, 0, time.UTC), "host-b")
	fmt.Println(a)
	fmt.Println(a == b)
	// Output:
	// 859eac1453bf9ce7fc09f7d1ee12499cf912de03e961c9b25750282f7e916b34
	// true
}

func ExampleEventID() {
	fmt.Println(eventlog.EventID(42, "run-1", "pipeline", 1))
	fmt.Println(eventlog.EventID(42, "run-1", "pipeline", 2))
	// Output:
	// evt-27ae01a5d420c681667792c9b395f4c6
	// evt-a7190ebca080f75526920ce326dbacde
}

func ExampleVerify() {
	lines := `{"id":"evt-00000000000000000000000000000001","type":"abstained","schema_version":1,"run":"r","producer":"p","seq":1,"seed":0,"time":0,"payload":{"question_id":"q","reason":"missing_slot"}}
{"id":"evt-00000000000000000000000000000002","type":"abstained","schema_version":1,"run":"r","producer":"p","seq":3,"seed":0,"time":0,"payload":{"question_id":"q","reason":"missing_slot"}}
`
	_, err := eventlog.Verify(context.Background(), bytes.NewReader([]byte(lines)), nil)
	fmt.Println(err)
	// Output:
	// verify event log: event 1: seq: sequence broken: seq 3, want 2
}

// ExampleOpenFileStore shows a torn last line — a crash during an
// append that was never acknowledged — refused on open, then repaired on
// request.
func ExampleOpenFileStore() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "eventlog")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "events.jsonl")

	store, _ := eventlog.OpenFileStore(ctx, path, nil)
	log, _ := eventlog.NewLog(ctx, store, &eventlog.Options{Deterministic: true, Anonymous: true})
	log.Append(ctx, eventlog.Entry{Producer: "pipeline", Payload: eventlog.Abstained{QuestionID: "q-1", Reason: "not_understood"}})
	store.Close()

	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"evt-`) // the crash
	f.Close()

	_, err := eventlog.OpenFileStore(ctx, path, nil)
	fmt.Println(err)
	store, _ = eventlog.OpenFileStore(ctx, path, &eventlog.FileOptions{RepairTornTail: true})
	fmt.Println(store.Len(), "event kept; removed", store.Repaired.Bytes, "bytes")
	store.Close()
	// Output:
	// open event log: torn last line: 11 bytes after offset 219
	// 1 event kept; removed 11 bytes
}
