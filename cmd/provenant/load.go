package main

import (
	"context"
	"fmt"
	"io"
)

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return fmt.Errorf("load: not built yet")
}
