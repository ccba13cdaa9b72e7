package register

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// exported returns the register file of a sample register.
func exported(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Export(context.Background(), &buf, sample(t, n)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkFlip loads and verifies file with the byte at pos replaced by b, and
// fails unless decoding fails at the line holding pos, or decoding succeeds
// and Verify fails at that record. A record's line includes its newline.
func checkFlip(t interface {
	Helper()
	Fatalf(string, ...any)
}, file []byte, pos int, b byte) {
	t.Helper()
	if file[pos] == b {
		return
	}
	record := bytes.Count(file[:pos], []byte("\n")) // 0-based index of the record holding pos
	bad := bytes.Clone(file)
	bad[pos] = b
	ctx := context.Background()
	s, err := Load(ctx, bytes.NewReader(bad))
	if err != nil {
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("byte %d (record %d) set to %#x: Load = %v, want a *DecodeError", pos, record, b, err)
		}
		if de.Line != record+1 {
			t.Fatalf("byte %d (record %d) set to %#x: decoding failed at line %d (%s), want line %d", pos, record, b, de.Line, de.Problem, record+1)
		}
		return
	}
	_, err = Verify(ctx, s)
	var ve *VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("byte %d (record %d) set to %#x: the register still verifies (err %v)", pos, record, b, err)
	}
	if ve.Index != record {
		t.Fatalf("byte %d (record %d) set to %#x: Verify failed at record %d (%s), want %d", pos, record, b, ve.Index, ve.Problem, record)
	}
}

// TestFlipEveryByte changes every byte of a stored register (three
// records: a decision, its outcome, a decision), each in three ways (its
// low bit, its case bit, and into a newline), and sees decoding or Verify
// fail at exactly the record that holds it. TestFlipAnyByte tries any
// other value.
func TestFlipEveryByte(t *testing.T) {
	file := exported(t, 2)
	for pos := range file {
		for _, b := range []byte{file[pos] ^ 0x01, file[pos] ^ 0x20, '\n'} {
			checkFlip(t, file, pos, b)
		}
	}
}

// TestFlipAnyByte: the same for a rapid-chosen byte, value and register.
func TestFlipAnyByte(t *testing.T) {
	files := [][]byte{exported(t, 1), exported(t, 4), exported(t, 7)}
	rapid.Check(t, func(t *rapid.T) {
		file := rapid.SampledFrom(files).Draw(t, "file")
		pos := rapid.IntRange(0, len(file)-1).Draw(t, "pos")
		b := rapid.Byte().Draw(t, "byte")
		checkFlip(t, file, pos, b)
	})
}
