package eval_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/eval"
)

// TestReadmeTable_StrictJSON: the calibration artifact is read by the one
// strict decoder: a repeated or differently cased key is an error, not a
// silent last-wins.
func TestReadmeTable_StrictJSON(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("calibration", eval.CurveFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eval.ReadmeTable("calibration"); err != nil {
		t.Fatalf("committed artifact: %v", err)
	}
	for name, edit := range map[string]string{
		"repeated key":        `"target": 0.5, "target":`,
		"key in another case": `"TARGET":`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			bad := strings.Replace(string(b), `"target":`, edit, 1)
			if err := os.WriteFile(filepath.Join(dir, eval.CurveFile), []byte(bad), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := eval.ReadmeTable(dir); err == nil {
				t.Error("ReadmeTable accepted it")
			}
		})
	}
}
