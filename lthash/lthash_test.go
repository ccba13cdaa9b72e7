package lthash_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/provenant/provenant/lthash"
	"pgregory.net/rapid"
)

// The construction is pinned: a change to the expansion, the lane order or
// the digest's text changes these, and needs a new Scheme. The expected
// values were computed apart, with Python's hashlib.sha256 and the openssl command's aes-256-ctr,
// following the package doc.
func TestDigest_Vectors(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
		want string
	}{
		{"empty", nil, "lthash16x1024:e5a00aa9991ac8a5ee3109844d84a55583bd20572ad3ffcd42792f3c36b183ad"},
		{"one", []string{"evt-1"}, "lthash16x1024:04aab3e64574e2014ce697872a8982df52a544a4c7c016cff8d911146f6da262"},
		{"two", []string{"evt-1", "evt-2"}, "lthash16x1024:dc7bade4270ddc5450e7b9897c560c8f5f4fb29a966f61c01c49fd515ff4b225"},
		{"empty key", []string{""}, "lthash16x1024:bfd9d8f563cee9a75685f50ee71f53fa941ee830c50a4d1232686c379ba0bee5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := lthash.Of(tc.keys...)
			if got := h.Digest(); got != tc.want {
				t.Errorf("Digest(%q) = %s, want %s", tc.keys, got, tc.want)
			}
		})
	}
}

func TestHash_ZeroIsEmpty(t *testing.T) {
	var h lthash.Hash
	if !h.IsZero() {
		t.Fatal("zero Hash is not empty")
	}
	h.AddString("a")
	if h.IsZero() {
		t.Fatal("Hash of {a} is zero")
	}
	h.RemoveString("a")
	if !h.IsZero() {
		t.Fatal("Hash of {a} minus a is not zero")
	}
}

// Keys that concatenate alike hash apart (the length prefix).
func TestHash_Injective(t *testing.T) {
	a, b := lthash.Of("ab", "c"), lthash.Of("a", "bc")
	if a.Equal(&b) {
		t.Fatal("{ab, c} and {a, bc} hash alike")
	}
	once, twice := lthash.Of("k"), lthash.Of("k", "k")
	if once.Equal(&twice) {
		t.Fatal("{k} and {k, k} hash alike: multiplicity is lost")
	}
}

func TestBinary_RoundTrip(t *testing.T) {
	h := lthash.Of("x", "y", "z")
	b, err := h.MarshalBinary()
	if err != nil || len(b) != lthash.Size {
		t.Fatalf("MarshalBinary: %d bytes, %v", len(b), err)
	}
	var g lthash.Hash
	if err := g.UnmarshalBinary(b); err != nil || !g.Equal(&h) {
		t.Fatalf("UnmarshalBinary: equal %v, %v", g.Equal(&h), err)
	}
	var c lthash.Hash
	if err := c.CombineBinary(b); err != nil || !c.Equal(&h) {
		t.Fatalf("CombineBinary: equal %v, %v", c.Equal(&h), err)
	}
	for _, n := range []int{0, 1, lthash.Size - 1, lthash.Size + 1} {
		before := g
		if err := g.UnmarshalBinary(make([]byte, n)); !errors.Is(err, lthash.ErrSize) || !g.Equal(&before) {
			t.Errorf("UnmarshalBinary(%d bytes) = %v, changed %v", n, err, !g.Equal(&before))
		}
		if err := g.CombineBinary(make([]byte, n)); !errors.Is(err, lthash.ErrSize) || !g.Equal(&before) {
			t.Errorf("CombineBinary(%d bytes) = %v, changed %v", n, err, !g.Equal(&before))
		}
	}
}

func TestIsDigest(t *testing.T) {
	a := lthash.Of("a")
	d := a.Digest()
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{d, true},
		{strings.TrimPrefix(d, lthash.Scheme+":"), false},
		{strings.ToUpper(d), false},
		{d[:len(d)-1], false},
		{d + "0", false},
		{"lthash16x1024:" + strings.Repeat("g", 64), false},
		{"sha256:" + strings.Repeat("0", 64), false},
		{"", false},
	} {
		if got := lthash.IsDigest(tc.in); got != tc.want {
			t.Errorf("IsDigest(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// The homomorphism, on random multisets: the hash of a disjoint union is
// the combination of the parts' hashes; the order of additions does not
// matter; removing a part (Subtract, or key by key) gives the rest back.
func TestHash_Properties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := rapid.StringMatching(`[a-z0-9-]{0,12}`)
		a := rapid.SliceOf(key).Draw(t, "a")
		b := rapid.SliceOf(key).Draw(t, "b")
		ha, hb := lthash.Of(a...), lthash.Of(b...)
		union := lthash.Of(append(append([]string(nil), a...), b...)...)
		combined := ha
		combined.Combine(&hb)
		if !combined.Equal(&union) || combined.Digest() != union.Digest() {
			t.Fatalf("Of(a ∪ b) != Of(a) + Of(b)")
		}
		perm := rapid.Permutation(append(append([]string(nil), b...), a...)).Draw(t, "perm")
		if p := lthash.Of(perm...); !p.Equal(&union) {
			t.Fatalf("hash depends on the order of keys")
		}
		rest := union
		rest.Subtract(&hb)
		if !rest.Equal(&ha) {
			t.Fatalf("(a ∪ b) - b != a")
		}
		rest = union
		for _, k := range a {
			rest.RemoveString(k)
		}
		if !rest.Equal(&hb) {
			t.Fatalf("removing a's keys one by one does not leave b")
		}
		// Distinct sets hash apart (a collision here would be news).
		if extra := rapid.StringMatching(`[A-Z]{1,4}`).Draw(t, "extra"); true {
			more := union
			more.AddString(extra)
			if more.Equal(&union) {
				t.Fatalf("adding a key left the hash unchanged")
			}
		}
	})
}

// Decoding arbitrary bytes never panics, accepts exactly Size bytes, and
// what it accepts encodes back to the same bytes.
func FuzzUnmarshalBinary(f *testing.F) {
	h := lthash.Of("a", "b")
	b, _ := h.MarshalBinary()
	f.Add(b)
	f.Add([]byte{})
	f.Add(make([]byte, lthash.Size+1))
	f.Fuzz(func(t *testing.T, in []byte) {
		var g lthash.Hash
		err := g.UnmarshalBinary(in)
		if (err == nil) != (len(in) == lthash.Size) {
			t.Fatalf("UnmarshalBinary(%d bytes) = %v", len(in), err)
		}
		if err != nil {
			return
		}
		out, _ := g.MarshalBinary()
		if !bytes.Equal(out, in) {
			t.Fatal("encoding does not round-trip")
		}
		if !lthash.IsDigest(g.Digest()) {
			t.Fatal("Digest is not a digest")
		}
	})
}

// Adding then removing any key restores the hash.
func FuzzAddRemove(f *testing.F) {
	f.Add("evt-1", "evt-2")
	f.Add("", "\x00")
	f.Fuzz(func(t *testing.T, base, k string) {
		h := lthash.Of(base)
		before := h
		h.AddString(k)
		if h.Equal(&before) {
			t.Fatal("adding a key left the hash unchanged")
		}
		h.RemoveString(k)
		if !h.Equal(&before) {
			t.Fatal("add then remove did not restore the hash")
		}
	})
}

func BenchmarkAdd(b *testing.B) {
	var h lthash.Hash
	key := []byte("status_events-0001234567")
	for b.Loop() {
		h.Add(key)
	}
}

func BenchmarkCombineBinary(b *testing.B) {
	h := lthash.Of("a")
	enc, _ := h.MarshalBinary()
	var acc lthash.Hash
	b.SetBytes(lthash.Size)
	for b.Loop() {
		if err := acc.CombineBinary(enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAddString(b *testing.B) {
	var h lthash.Hash
	for b.Loop() {
		h.AddString("status_events-0001234567")
	}
}

func BenchmarkAddStrings(b *testing.B) {
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("wh-evt-%08d", i)
	}
	var h lthash.Hash
	for b.Loop() {
		h.AddStrings(keys)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
}

// Every way in agrees: Add, AddString, AddStrings and Of, and Remove
// undoes Add.
func TestHash_AddForms(t *testing.T) {
	keys := []string{"", "a", "wh-evt-00000001", strings.Repeat("k", 300)}
	want := lthash.Of(keys...)
	var byBytes, byString, batch lthash.Hash
	for _, k := range keys {
		byBytes.Add([]byte(k))
		byString.AddString(k)
	}
	batch.AddStrings(keys)
	for name, h := range map[string]*lthash.Hash{"Add": &byBytes, "AddString": &byString, "AddStrings": &batch} {
		if !h.Equal(&want) {
			t.Errorf("%s differs from Of", name)
		}
	}
	byBytes.Remove([]byte(keys[2]))
	byString.RemoveString(keys[2])
	less := lthash.Of(keys[0], keys[1], keys[3])
	if !byBytes.Equal(&less) || !byString.Equal(&less) {
		t.Error("Remove does not undo Add")
	}
}

// A batch large enough to be split across the processors hashes as the
// keys added one at a time do, whatever GOMAXPROCS, and onto a hash that
// already holds keys.
func TestHash_AddStringsSplit(t *testing.T) {
	keys := make([]string, 20_001)
	for i := range keys {
		keys[i] = fmt.Sprintf("wh-evt-%08d", i)
	}
	var want lthash.Hash
	want.AddString("before")
	for _, k := range keys {
		want.AddString(k)
	}
	for _, procs := range []int{1, 2, 3, 8} {
		prev := runtime.GOMAXPROCS(procs)
		got := lthash.Of("before")
		got.AddStrings(keys)
		runtime.GOMAXPROCS(prev)
		if !got.Equal(&want) {
			t.Errorf("GOMAXPROCS %d: AddStrings of %d keys differs from AddString one at a time", procs, len(keys))
		}
	}
}

func BenchmarkAddStringsLarge(b *testing.B) {
	keys := make([]string, 30_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("wh-evt-%08d", i)
	}
	var h lthash.Hash
	for b.Loop() {
		h.AddStrings(keys)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
}
