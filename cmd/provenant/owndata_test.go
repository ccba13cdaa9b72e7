package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/store/postgres/pgtest"
)

// ownDataSection returns the README's "## Your own data" section.
func ownDataSection(t *testing.T) string {
	t.Helper()
	r := readme(t)
	start := strings.Index(r, "\n## Your own data\n")
	if start < 0 {
		t.Fatal(`README has no "## Your own data" section`)
	}
	rest := r[start+1:]
	if end := strings.Index(rest[3:], "\n## "); end >= 0 {
		rest = rest[:end+3]
	}
	return rest
}

// walkStep is one "$ provenant ..." line of the walkthrough and the output
// printed under it.
type walkStep struct {
	args []string
	want string
}

// TestREADME_OwnData runs the README's walkthrough from a CSV file to an
// answer: it writes the files the README shows (each code block after a
// "<!-- file: NAME -->" line), runs every "$ provenant ..." line in order
// in that directory, and compares each command's standard output with the
// lines printed under it. The PostgreSQL lines run against a schema of
// their own.
func TestREADME_OwnData(t *testing.T) {
	sec := ownDataSection(t)
	dir := t.TempDir()
	files := regexp.MustCompile("(?s)<!-- file: ([^ ]+) -->\n```[a-z]*\n(.*?)```").FindAllStringSubmatch(sec, -1)
	if len(files) < 2 {
		t.Fatalf("the walkthrough shows %d files, want a catalog and data", len(files))
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f[1]), []byte(f[2]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var steps []walkStep
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(sec, -1) {
		for _, line := range strings.Split(strings.TrimRight(block[1], "\n"), "\n") {
			if cmd, ok := strings.CutPrefix(line, "$ provenant "); ok {
				args, ok := shellWords(cmd)
				if !ok {
					t.Fatalf("unbalanced quotes: %s", line)
				}
				steps = append(steps, walkStep{args: args})
				continue
			}
			if len(steps) == 0 {
				t.Fatalf("output before any command: %s", line)
			}
			steps[len(steps)-1].want += line + "\n"
		}
	}
	if len(steps) < 4 {
		t.Fatalf("the walkthrough runs %d commands, want validate, import and asks", len(steps))
	}
	const readmeDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	var dsn, schema string
	t.Chdir(dir)
	for _, s := range steps {
		args := s.args
		if i := slices.Index(args, "--postgres"); i >= 0 && i+1 < len(args) {
			if args[i+1] != readmeDSN {
				t.Fatalf("the walkthrough's PostgreSQL lines use another DSN than %s", readmeDSN)
			}
			if dsn == "" {
				dsn, schema = pgtest.SchemaNamed(t) // skips outside CI without PROVENANT_POSTGRES_DSN
			}
			args = append(append([]string{}, args[:i+1]...), append([]string{dsn}, args[i+2:]...)...)
			if args[0] != "import" {
				// The audit state a catalog over --postgres keeps by
				// default goes to schema provenant, which search_path
				// does not move: in the test's own schema, dropped after
				// it, not in the shared database's provenant schema.
				args = append(args, "--state-schema", schema)
			}
		}
		t.Run(strings.Join(s.args[:min(2, len(s.args))], " "), func(t *testing.T) {
			code, stdout, stderr := runMainCLI(t, args...)
			if code != 0 {
				t.Fatalf("provenant %s: exit %d\n%s", strings.Join(s.args, " "), code, stderr)
			}
			if stdout != s.want {
				t.Errorf("provenant %s:\n got  %q\n want %q", strings.Join(s.args, " "), stdout, s.want)
			}
		})
	}
}
