package duckdb

// SetKeyHash puts fn in place of the files check's key hash until the
// returned func restores it.
func SetKeyHash(fn string) (restore func()) {
	old := keyHash
	keyHash = fn
	return func() { keyHash = old }
}
