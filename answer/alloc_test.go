package answer_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/provenant/provenant/fact"
)

// TestAnswer_MarshalJSONWritesEventsOnce guards the price of encoding a
// window's answer, whose provenance lists every event in the window: the
// event ids are encoded once, into the answer's own buffer, and the
// object is the one Provenance.MarshalJSON and Value.MarshalJSON write.
func TestAnswer_MarshalJSONWritesEventsOnce(t *testing.T) {
	ids := make([]string, 150)
	for i := range ids {
		ids[i] = fmt.Sprintf("evt-%06d", 1000+i)
	}
	a := staple(t, fact.RowCount(len(ids)), ids, "150 scans.")
	got, err := a.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := fact.Events(ids)
	wantProv, _ := p.MarshalJSON()
	wantValue, _ := fact.RowCount(len(ids)).MarshalJSON()
	if !bytes.Contains(got, append([]byte(`"provenance":`), wantProv...)) || !bytes.Contains(got, append([]byte(`"value":`), wantValue...)) {
		t.Fatalf("answer JSON does not carry the provenance and value as they marshal:\n%s", got)
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatal(err)
	}
	// 13 bytes an id (quoted, comma): one copy of the list is about 2 KB.
	perRun := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			a.MarshalJSON()
		}
	})
	t.Logf("%d B/op, %d allocs/op for %d bytes", perRun.AllocedBytesPerOp(), perRun.AllocsPerOp(), len(got))
	if bytes := perRun.AllocedBytesPerOp(); bytes > int64(len(got))*2 {
		t.Errorf("MarshalJSON allocates %d bytes for a %d-byte answer; want at most twice its size", bytes, len(got))
	}
}
