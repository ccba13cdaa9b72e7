package main

import (
	"context"
	"fmt"
	"io"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return fmt.Errorf("serve: not built yet")
}
