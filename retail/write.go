package retail

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Write writes d as a store file that Load reads back: one record per
// line, so large files stay diffable and streamable.
func Write(w io.Writer, d *Dataset) error {
	bw := bufio.NewWriter(w)
	version, err := json.Marshal(d.Version)
	if err != nil {
		return fmt.Errorf("write store: %w", err)
	}
	fmt.Fprintf(bw, "{\"dataset_version\": %s,\n", version)
	if err := writeArray(bw, "stores", d.Stores, false); err != nil {
		return err
	}
	if err := writeArray(bw, "products", d.Products, false); err != nil {
		return err
	}
	if err := writeArray(bw, "events", d.Events, true); err != nil {
		return err
	}
	bw.WriteString("}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write store: %w", err)
	}
	return nil
}

func writeArray[T any](bw *bufio.Writer, key string, items []T, last bool) error {
	fmt.Fprintf(bw, " %q: [", key)
	for i, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return fmt.Errorf("write store: %s[%d]: %w", key, i, err)
		}
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n  ")
		bw.Write(b)
	}
	if len(items) > 0 {
		bw.WriteString("\n ")
	}
	bw.WriteString("]")
	if !last {
		bw.WriteString(",")
	}
	bw.WriteString("\n")
	return nil
}
