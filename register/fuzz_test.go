package register

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzLoadVerify loads arbitrary bytes as a register file and verifies
// what loads: neither panics, every failure is typed, and a file that
// loads is exactly what Export writes of it.
func FuzzLoadVerify(f *testing.F) {
	file := exported(f, 2)
	f.Add(file)
	f.Add(file[:len(file)-1])
	f.Add([]byte("{}\n"))
	f.Add([]byte("\n"))
	f.Add(bytes.Replace(file, []byte(`"tier":"L2"`), []byte(`"tier":"L3"`), 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		s, err := Load(ctx, bytes.NewReader(data))
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Line < 1 {
				t.Fatalf("Load = %v, want a *DecodeError with a line", err)
			}
			return
		}
		var out bytes.Buffer
		if err := Export(ctx, &out, s); err != nil {
			t.Fatalf("export of a loaded file: %v", err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("a loaded file exports differently:\n%q\n%q", data, out.Bytes())
		}
		head, err := Verify(ctx, s)
		if err != nil {
			var ve *VerifyError
			if !errors.As(err, &ve) || ve.Index < 0 || ve.Index >= s.Len() {
				t.Fatalf("Verify = %v, want a *VerifyError at a record", err)
			}
			return
		}
		if head.Len != s.Len() {
			t.Fatalf("head %+v of %d records", head, s.Len())
		}
	})
}

// FuzzAppend appends a record decoded leniently from arbitrary JSON to a
// small register: it is appended and the register still verifies, or it
// is refused with a typed error and nothing changes.
func FuzzAppend(f *testing.F) {
	for _, r := range []Record{decision("d9", 1), outcome("o9", "d1", 2), outcome("o9", "o1", 2), decision("d1", 1)} {
		b, _ := json.Marshal(r)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Record
		if json.Unmarshal(data, &r) != nil {
			return
		}
		ctx := context.Background()
		s := sample(t, 1)
		g, err := Open(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		before := g.Head()
		_, err = g.Append(ctx, r)
		var fe *FieldError
		var re *RefError
		switch {
		case err == nil:
		case errors.As(err, &fe), errors.As(err, &re), errors.Is(err, ErrDuplicateID), errors.Is(err, ErrPreset):
			if g.Head() != before || s.Len() != before.Len {
				t.Fatalf("a refused append changed the register")
			}
		default:
			t.Fatalf("Append = %v, an untyped error", err)
		}
		if h, err := Verify(ctx, s); err != nil || h != g.Head() {
			t.Fatalf("after append: Verify = %+v, %v", h, err)
		}
	})
}
