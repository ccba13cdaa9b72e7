package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/retail"
)

// openStream opens path to be read once from start to end, as a stream:
// a regular file, or a named pipe or a process substitution such as
// --catalog <(gen-catalog). An interrupt (ctx done) ends the wait for a
// pipe's writer (see openContext) and any read after it, even one
// blocked on a writer that writes nothing: the file is closed and the
// read fails with ctx's error. Close the stream when done.
func openStream(ctx context.Context, path string) (io.ReadCloser, error) {
	f, err := openContext(ctx, path)
	if err != nil {
		return nil, err
	}
	s := &stream{ctx: ctx, f: f}
	s.stop = context.AfterFunc(ctx, func() { f.Close() })
	return s, nil
}

type stream struct {
	ctx  context.Context
	f    *os.File
	stop func() bool
}

func (s *stream) Read(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := s.f.Read(p)
	if err != nil && s.ctx.Err() != nil {
		// The file closed under the read: say why.
		return n, s.ctx.Err()
	}
	return n, err
}

func (s *stream) Close() error {
	if !s.stop() {
		return nil // closed by the interrupt
	}
	return s.f.Close()
}

// loadStore reads the retail store file at path (the demo's when path is
// empty) as a stream an interrupt stops (openStream).
func loadStore(ctx context.Context, path string) (*retail.Dataset, error) {
	if path == "" {
		return engine.LoadDataset("")
	}
	r, err := openStream(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open store file: %w", err)
	}
	defer r.Close()
	d, err := retail.Load(r)
	if err != nil && ctx.Err() != nil {
		// The store's decoder reports a read cut short as a defect of
		// the document; it was the interrupt.
		return nil, fmt.Errorf("read store file: %w", ctx.Err())
	}
	return d, err
}

// Stat makes a stream an fs.File (streamFS).
func (s *stream) Stat() (fs.FileInfo, error) { return s.f.Stat() }

// streamFS is os.DirFS(dir) whose files open as streams an interrupt
// stops (openStream), confined to dir (symbolic links too): a catalog's
// fixture files, one of which may be a named pipe no one writes. Its errors are os.DirFS's, naming the file
// by its name in the FS.
type streamFS struct {
	ctx context.Context
	dir string
}

var (
	_ fs.StatFS     = streamFS{}
	_ fs.ReadFileFS = streamFS{}
)

// catalogDirFS is the directory of the catalog file at path, where its
// metrics' fixture files are.
func catalogDirFS(ctx context.Context, path string) fs.FS {
	return streamFS{ctx: ctx, dir: filepath.Dir(path)}
}

func (s streamFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if _, err := s.Stat(name); err != nil {
		return nil, err
	}
	r, err := openStream(s.ctx, s.dir+string(filepath.Separator)+filepath.FromSlash(name))
	if err != nil {
		return nil, s.named(err, "open", name)
	}
	return r.(*stream), nil
}

// Stat stats name inside the directory: a symbolic link that leads out
// of it is an error, as a path with ".." is. A stat never waits for a
// writer.
func (s streamFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := fs.Stat(os.DirFS(s.dir), name)
	if err != nil {
		return nil, err
	}
	base, err := filepath.EvalSymlinks(s.dir)
	if err != nil {
		return nil, s.named(err, "stat", name)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(s.dir, filepath.FromSlash(name)))
	if err != nil {
		return nil, s.named(err, "stat", name)
	}
	if rel, err := filepath.Rel(base, real); err != nil || !filepath.IsLocal(rel) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: errOutsideDir}
	}
	return fi, nil
}

// errOutsideDir: a symbolic link leads out of the catalog's directory.
var errOutsideDir = catalog.ErrFixtureOutside

func (s streamFS) ReadFile(name string) ([]byte, error) {
	f, err := s.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, s.named(err, "read", name)
	}
	return b, nil
}

// named is err with the file named as os.DirFS names it (name, not the
// directory's path joined to it); ctx's error becomes a *fs.PathError of
// op too.
func (s streamFS) named(err error, op, name string) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}
