package eval_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/eval"
)

// -update (declared in gold_test.go) also rewrites the README block.

const (
	readmeBegin = "<!-- calibration:begin -->\n"
	readmeEnd   = "<!-- calibration:end -->"
)

// TestREADMECalibration fails when the README's calibration numbers differ
// from the committed artifact. Regenerate with
//
//	go run ./cmd/provenant eval --calibrate --out eval/calibration
//	go test ./eval -run TestREADME -update
func TestREADMECalibration(t *testing.T) {
	path := filepath.Join("..", "README.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := eval.ReadmeTable("calibration")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(readme, []byte(readmeBegin))
	j := bytes.Index(readme, []byte(readmeEnd))
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q ... %q block", readmeBegin, readmeEnd)
	}
	got := string(readme[i+len(readmeBegin) : j])
	if got == want {
		return
	}
	if *update {
		out := append([]byte{}, readme[:i+len(readmeBegin)]...)
		out = append(out, want...)
		out = append(out, readme[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md calibration block differs from eval/calibration; regenerate with\n"+
		"  go test ./eval -run TestREADME -update\ngot:\n%s\nwant:\n%s", got, want)
}
