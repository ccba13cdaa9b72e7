package main

import (
	"errors"
	"os"
)

// errNotRegular: a flag names a DuckDB database file that exists and is
// not a regular file (a named pipe, a directory, a device). DuckDB opens
// its file itself, in C, where no context reaches: on a named pipe no one
// writes it blocked the command in open(2), deaf to the interrupt.
var errNotRegular = errors.New("not a regular file")

// dbFile is the value of a flag naming a DuckDB database file (--db,
// --journal): Set refuses errNotRegular, so that every command refuses it
// before DuckDB opens it. A file that does not exist is left to the
// command (import and the journal create it).
type dbFile string

func (f *dbFile) String() string {
	if f == nil {
		return ""
	}
	return string(*f)
}

func (f *dbFile) Set(s string) error {
	if err := checkDBFile(s); err != nil {
		return err
	}
	*f = dbFile(s)
	return nil
}

// checkDBFile returns errNotRegular when path exists and is not a regular
// file (os.Stat follows a symbolic link).
func checkDBFile(path string) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return errNotRegular
	}
	return nil
}
