package register

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"regexp"
	"testing"
)

var hashMember = regexp.MustCompile(`"hash":"([0-9a-f]{64})",`)

var update = flag.Bool("update", false, "rewrite testdata/v1.jsonl")

// v1Head is the head of testdata/v1.jsonl. The file is the format's
// fixture: every later version of this package must read and verify it,
// to this head, byte for byte.
const v1Head = "e3170ad676df771eed7e79790535b867039efb3c807afadda8a6576a23830adc"

func TestFixtureV1(t *testing.T) {
	const path = "testdata/v1.jsonl"
	if *update {
		var buf bytes.Buffer
		if err := Export(context.Background(), &buf, sample(t, 3)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(t.Context(), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	head, err := Verify(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if head.Len != 5 || head.Hash != v1Head {
		t.Errorf("head = %+v, want 5 records ending %s", head, v1Head)
	}
	// The documented formula, computed from the file's bytes alone: a
	// line without its "hash" member is the canonical JSON the hash covers.
	prev := GenesisHash
	for i, line := range bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		m := hashMember.FindSubmatchIndex(line)
		if m == nil {
			t.Fatalf("line %d has no hash member", i+1)
		}
		body := append(bytes.Clone(line[:m[0]]), line[m[1]:]...)
		p, _ := hex.DecodeString(prev)
		sum := sha256.Sum256(append(p, body...))
		if got, want := string(line[m[2]:m[3]]), hex.EncodeToString(sum[:]); got != want {
			t.Fatalf("line %d: hash %s, SHA-256(prev || line without hash) = %s", i+1, got, want)
		}
		prev = string(line[m[2]:m[3]])
	}
	if prev != v1Head {
		t.Errorf("recomputed head %s, want %s", prev, v1Head)
	}
	var again bytes.Buffer
	if err := Export(t.Context(), &again, s); err != nil || !bytes.Equal(again.Bytes(), data) {
		t.Errorf("the fixture does not export to itself: %v", err)
	}
}
