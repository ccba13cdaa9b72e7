package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/provenant/provenant/catalog"
)

// runValidate checks a catalog file strictly and reports every problem on
// standard error as file:line:col: message. A valid catalog prints one
// summary line on standard output; an invalid one is an error (exit 1).
func runValidate(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", "validate --catalog FILE",
		"provenant validate --catalog catalogs/retail.yaml", stderr)
	path := fs.String("catalog", "", "catalog `FILE` (required): the YAML catalog to check")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *path == "" {
		return usagef("--catalog FILE is required")
	}
	f, err := os.Open(*path)
	if err != nil {
		return fmt.Errorf("open catalog file: %w", err)
	}
	defer f.Close()
	c, err := catalog.Load(f, *path)
	if err == nil {
		// A metric's fixture is a file beside the catalog.
		err = c.CheckFixtures(os.DirFS(filepath.Dir(*path)), ".")
	}
	if list := (catalog.ErrorList)(nil); errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintln(stderr, e.Error())
		}
		return fmt.Errorf("validate catalog: %d error(s): %w", len(list), catalog.ErrInvalid)
	}
	if err != nil {
		return fmt.Errorf("validate catalog: %w", err)
	}
	metrics := ""
	if len(c.Metrics) > 0 {
		metrics = fmt.Sprintf(", %d metric(s)", len(c.Metrics))
	}
	_, err = fmt.Fprintf(stdout, "%s: valid (catalog %s version %q: %d dataset(s), %d tool(s)%s)\n",
		*path, c.Name.Value, c.Version.Value, len(c.Datasets), len(c.Tools), metrics)
	return err
}
