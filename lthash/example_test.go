package lthash_test

import (
	"fmt"

	"github.com/provenant/provenant/lthash"
)

// A digest kept per bucket combines into the digest of the whole,
// whatever the order the buckets are summed in.
func Example() {
	var monday, tuesday lthash.Hash
	monday.AddString("evt-1")
	monday.AddString("evt-2")
	tuesday.AddString("evt-3")

	week := monday
	week.Combine(&tuesday)

	all := lthash.Of("evt-3", "evt-1", "evt-2")
	fmt.Println(week.Equal(&all))
	fmt.Println(week.Digest() == all.Digest())
	fmt.Println(lthash.IsDigest(week.Digest()))

	// Removal undoes an addition.
	week.RemoveString("evt-3")
	fmt.Println(week.Equal(&monday))
	// Output:
	// true
	// true
	// true
	// true
}
