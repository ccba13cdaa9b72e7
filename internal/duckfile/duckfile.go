// Package duckfile tells a DuckDB database file from other files before
// DuckDB opens one.
package duckfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotDatabase: the file exists and is not a DuckDB database. DuckDB
// (1.5) opens a CSV, Parquet or JSON file given as a database as an
// in-memory database with a view over the file, so what is written to
// it is lost when it closes.
var ErrNotDatabase = errors.New("the file exists and is not a DuckDB database file")

// magic is at offset 8 of a DuckDB database file, after the header's
// checksum.
var magic = []byte("DUCK")

// Check returns an error wrapping ErrNotDatabase when path names an
// existing, non-empty regular file that does not begin as a DuckDB
// database file does; nil for "", ":memory:", a file that does not exist
// (DuckDB creates it), an empty one and anything else (DuckDB's own
// error names it).
func Check(path string) error {
	if path == "" || path == ":memory:" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return nil
	}
	head := make([]byte, 12)
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head[8:], magic) {
		return fmt.Errorf("%s: %w", path, ErrNotDatabase)
	}
	return nil
}
