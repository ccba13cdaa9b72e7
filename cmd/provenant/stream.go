package main

import (
	"context"
	"fmt"
	"io"
	"os"

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
