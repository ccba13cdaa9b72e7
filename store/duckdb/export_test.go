package duckdb

// SetKeyHash puts fn, which writes the expression hashing a key, in place
// of the files check's key hash until the returned func restores it.
func SetKeyHash(fn func(key string) string) (restore func()) {
	old := keyHash
	keyHash = fn
	return func() { keyHash = old }
}

// SetCheckMemoryLimit puts limit in place of the files check's memory
// limit until the returned func restores it.
func SetCheckMemoryLimit(limit string) (restore func()) {
	old := checkMemoryLimit
	checkMemoryLimit = limit
	return func() { checkMemoryLimit = old }
}
