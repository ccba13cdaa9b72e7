package lthash

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"runtime"
	"strings"
	"sync"
)

// Scheme names this construction in a Digest.
const Scheme = "lthash16x1024"

// Lanes is the number of 16-bit lanes of a hash; Size its bytes.
const (
	Lanes = 1024
	Size  = 2 * Lanes
)

// domain separates this package's expansion from any other use of SHA-256.
const domain = "provenant/lthash16x1024/v1"

// ErrSize is returned by UnmarshalBinary for input that is not Size bytes.
var ErrSize = errors.New("lthash: encoding is not 2048 bytes")

// Hash is the hash of a multiset of keys. The zero value is the hash of
// the empty multiset, ready to use. A Hash is a value (an array); copy it
// freely.
type Hash struct {
	// w packs the lanes four to a word, lane 4i+j in bits 16j..16j+15 of
	// w[i] (so a word's little-endian bytes are its lanes' encoding), and
	// adds them four at a time (add).
	w [Lanes / 4]uint64
}

// hi is each lane's top bit.
const hi = 0x8000800080008000

// add adds the four lanes of b to those of a, each modulo 2^16: the low
// 15 bits add without crossing into the next lane, the top bits by XOR.
func add(a, b uint64) uint64 { return ((a &^ hi) + (b &^ hi)) ^ ((a ^ b) & hi) }

// neg negates each of the four lanes modulo 2^16.
func neg(b uint64) uint64 { return add(^b, 0x0001000100010001) }

// expander holds the buffers expand reuses from key to key.
type expander struct {
	in  []byte     // the seed's input: domain, 0, length, key
	out [Size]byte // the keystream, h(key)
}

var expanders = sync.Pool{New: func() any { return new(expander) }}

// expand sets e.out to h(key), the key's 1,024 lanes in their
// little-endian encoding: the AES-256-CTR keystream (zero IV) under the
// key SHA-256(domain, 0, len(key) as 8 bytes big-endian, key). key is a
// string or a byte slice; neither is copied to the heap.
func expand[K string | []byte](e *expander, key K) {
	e.in = append(e.in[:0], domain...)
	e.in = append(e.in, 0)
	e.in = binary.BigEndian.AppendUint64(e.in, uint64(len(key)))
	e.in = append(e.in, key...)
	seed := sha256.Sum256(e.in)
	block, err := aes.NewCipher(seed[:])
	if err != nil {
		panic("lthash: aes: " + err.Error()) // a 32-byte key is always valid
	}
	var iv [aes.BlockSize]byte
	clear(e.out[:])
	cipher.NewCTR(block, iv[:]).XORKeyStream(e.out[:], e.out[:])
}

// addOut adds e.out's lanes to h's, or subtracts them (remove).
func (h *Hash) addOut(e *expander, remove bool) {
	v := &e.out
	if remove {
		for i := range h.w {
			h.w[i] = add(h.w[i], neg(binary.LittleEndian.Uint64(v[8*i:])))
		}
		return
	}
	for i := range h.w {
		h.w[i] = add(h.w[i], binary.LittleEndian.Uint64(v[8*i:]))
	}
}

// Add adds one occurrence of key.
func (h *Hash) Add(key []byte) {
	e := expanders.Get().(*expander)
	expand(e, key)
	h.addOut(e, false)
	expanders.Put(e)
}

// AddString adds one occurrence of key.
func (h *Hash) AddString(key string) {
	e := expanders.Get().(*expander)
	expand(e, key)
	h.addOut(e, false)
	expanders.Put(e)
}

// parallelKeys is the least keys per goroutine AddStrings splits a batch
// into (a key costs about 2 µs: the goroutines pay for themselves from a
// few thousand keys).
const parallelKeys = 2048

// AddStrings adds one occurrence of each key, reusing its buffers from
// key to key. A batch of several times parallelKeys is split across the
// processors (GOMAXPROCS), each part summed apart and the sums combined:
// addition is commutative, so the hash is the same.
func (h *Hash) AddStrings(keys []string) {
	parts := min(runtime.GOMAXPROCS(0), len(keys)/parallelKeys)
	if parts < 2 {
		h.addStrings(keys)
		return
	}
	sums := make([]Hash, parts)
	var wg sync.WaitGroup
	for i := range parts {
		part := keys[i*len(keys)/parts : (i+1)*len(keys)/parts]
		wg.Go(func() { sums[i].addStrings(part) })
	}
	wg.Wait()
	for i := range sums {
		h.Combine(&sums[i])
	}
}

func (h *Hash) addStrings(keys []string) {
	e := expanders.Get().(*expander)
	for _, k := range keys {
		expand(e, k)
		h.addOut(e, false)
	}
	expanders.Put(e)
}

// Remove removes one occurrence of key. Removing a key never added gives
// the hash of a multiset with a negative count of it: add it back to
// undo.
func (h *Hash) Remove(key []byte) {
	e := expanders.Get().(*expander)
	expand(e, key)
	h.addOut(e, true)
	expanders.Put(e)
}

// RemoveString removes one occurrence of key.
func (h *Hash) RemoveString(key string) {
	e := expanders.Get().(*expander)
	expand(e, key)
	h.addOut(e, true)
	expanders.Put(e)
}

// Combine adds o's multiset to h's: afterwards h is the hash of their
// union (with multiplicities added).
func (h *Hash) Combine(o *Hash) {
	for i := range h.w {
		h.w[i] = add(h.w[i], o.w[i])
	}
}

// Subtract removes o's multiset from h's: the inverse of Combine.
func (h *Hash) Subtract(o *Hash) {
	for i := range h.w {
		h.w[i] = add(h.w[i], neg(o.w[i]))
	}
}

// Equal reports whether h and o hash the same multiset (up to collisions).
func (h *Hash) Equal(o *Hash) bool { return h.w == o.w }

// IsZero reports whether h is the hash of the empty multiset.
func (h *Hash) IsZero() bool { return h.w == [Lanes / 4]uint64{} }

// Of returns the hash of the given keys, each added once per occurrence.
func Of(keys ...string) Hash {
	var h Hash
	h.AddStrings(keys)
	return h
}

// MarshalBinary returns the lanes as Size bytes, little-endian, lane 0
// first.
func (h *Hash) MarshalBinary() ([]byte, error) { return h.AppendBinary(make([]byte, 0, Size)) }

// AppendBinary appends the lanes' encoding (MarshalBinary's) to b.
func (h *Hash) AppendBinary(b []byte) ([]byte, error) {
	for _, w := range h.w {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b, nil
}

// UnmarshalBinary sets h from MarshalBinary's encoding; any other length
// is ErrSize, and h is left unchanged.
func (h *Hash) UnmarshalBinary(b []byte) error {
	if len(b) != Size {
		return ErrSize
	}
	for i := range h.w {
		h.w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return nil
}

// CombineBinary adds the multiset encoded in b (MarshalBinary's form) to
// h's without decoding it first; any other length is ErrSize, and h is
// left unchanged.
func (h *Hash) CombineBinary(b []byte) error {
	if len(b) != Size {
		return ErrSize
	}
	for i := range h.w {
		h.w[i] = add(h.w[i], binary.LittleEndian.Uint64(b[8*i:]))
	}
	return nil
}

// Digest returns the text form of the hash: Scheme, ":", and the
// lowercase hex SHA-256 of MarshalBinary's bytes.
func (h *Hash) Digest() string {
	b, _ := h.MarshalBinary()
	s := sha256.Sum256(b)
	return Scheme + ":" + hex.EncodeToString(s[:])
}

// IsDigest reports whether s has the form of a Digest: the scheme, a
// colon, 64 lowercase hex digits.
func IsDigest(s string) bool {
	rest, ok := strings.CutPrefix(s, Scheme+":")
	if !ok || len(rest) != 2*sha256.Size {
		return false
	}
	for _, c := range rest {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
