package retail_test

import (
	"bytes"
	"testing"

	"github.com/provenant/provenant/retail"
)

// BenchmarkLoad reads a generated 100,000-event store file.
//
//	go test -run XXX -bench Load -benchtime 3x ./retail/
func BenchmarkLoad(b *testing.B) {
	data := generatedFile(b, smallOptions(1, 20, 50, 100_000, 7))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := retail.Load(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
