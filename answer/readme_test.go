package answer_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
)

// TestREADMEReasons keeps the README's reason row equal to the closed
// sets: every kind an answer can carry is documented, and nothing else.
func TestREADMEReasons(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| `reason` |") {
			row = l
		}
	}
	if row == "" {
		t.Fatal("README.md has no | `reason` | row")
	}
	kinds := slices.Concat(answer.AbstainKinds, answer.RejectKinds, answer.FailureClasses, answer.ActionRejectKinds, answer.ErrorKinds)
	for _, k := range kinds {
		if !strings.Contains(row, "`"+string(k)+"`") {
			t.Errorf("README reason row lacks `%s`", k)
		}
	}
}
