package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readme returns the module's README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeCommands returns the argument lists of the README's
// `go run ./cmd/provenant ...` command lines (in code blocks, with or
// without a "$ " prompt), as a shell would split them, up to a comment,
// a redirection or a pipe.
func readmeCommands(t *testing.T) [][]string {
	t.Helper()
	var cmds [][]string
	const prefix = "go run ./cmd/provenant "
	for _, line := range strings.Split(readme(t), "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "$ ")
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		args, ok := shellWords(strings.TrimPrefix(line, prefix))
		if !ok {
			t.Fatalf("README command has unbalanced quotes: %s", line)
		}
		cmds = append(cmds, args)
	}
	return cmds
}

// shellWords splits s as sh would for plain words and quoted strings,
// stopping at an unquoted #, >, < or |.
func shellWords(s string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case !inWord && (c == '#' || c == '>' || c == '<' || c == '|'):
			return words, true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}

// TestREADME_ReplayExample runs the README's replay commands, exactly as
// written, through Run from the module root: they must work on a fresh
// clone, with no network and no key.
func TestREADME_ReplayExample(t *testing.T) {
	var replays [][]string
	for _, args := range readmeCommands(t) {
		if slices.Contains(args, "replay") {
			replays = append(replays, args)
		}
	}
	if len(replays) == 0 {
		t.Fatal("README shows no runnable replay command (go run ./cmd/provenant ... --provider replay ...)")
	}
	t.Chdir(filepath.Join("..", ".."))
	for _, args := range replays {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			args = append(slices.Clone(args), "--log-level", "error")
			code, stdout, stderr := runMainCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			switch args[0] {
			case "ask":
				if !strings.Contains(stdout, "outcome: answered") || !strings.Contains(stdout, "verified") {
					t.Errorf("replayed answer:\n%s", stdout)
				}
			case "eval":
				// The report names the provider: the API the cassettes
				// hold (--api, openai by default) and the model.
				api, model := "openai", ""
				for i := 0; i+1 < len(args); i++ {
					switch args[i] {
					case "--api":
						api = args[i+1]
					case "--model":
						model = args[i+1]
					}
				}
				if !strings.Contains(stdout, api+":"+model) || model == "" || strings.Contains(stdout, "model_unavailable") {
					t.Errorf("replayed eval:\n%s", stdout)
				}
			}
		})
	}
}

// TestREADME_OutputsAreIgnored: a file the README's commands write into
// the working tree (--out FILE) is git-ignored, so following the README
// leaves git status clean.
func TestREADME_OutputsAreIgnored(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	ignored := strings.Split(string(b), "\n")
	n := 0
	for _, args := range readmeCommands(t) {
		i := slices.Index(args, "--out")
		if i < 0 || i+1 == len(args) {
			continue
		}
		out := args[i+1]
		if filepath.IsAbs(out) || strings.HasPrefix(out, "$") {
			continue
		}
		n++
		if !slices.Contains(ignored, "/"+out) && !slices.Contains(ignored, out) {
			t.Errorf("README writes %s, which .gitignore does not ignore", out)
		}
	}
	if n == 0 {
		t.Fatal("found no README command with --out")
	}
}

// TestREADME_NodeVersion: the README, CI and the e2e test state the Node.js
// version the TypeScript client's packages require (their largest
// engines.node minimum in e2e/ts/package-lock.json), and only that one.
func TestREADME_NodeVersion(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "e2e", "ts", "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct {
			Engines map[string]string `json:"engines"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	need := 0
	minRE := regexp.MustCompile(`^>=\s*(\d+)$`)
	for _, p := range lock.Packages {
		if m := minRE.FindStringSubmatch(p.Engines["node"]); m != nil {
			v, _ := strconv.Atoi(m[1])
			need = max(need, v)
		}
	}
	if need == 0 {
		t.Fatal("no package in e2e/ts/package-lock.json states a node engine")
	}
	stated := regexp.MustCompile(`Node\.js (\d+) or later`)
	found := 0
	for _, f := range []string{"README.md", ".ci/run", "e2e/e2e_test.go"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range stated.FindAllStringSubmatch(string(b), -1) {
			found++
			if m[1] != strconv.Itoa(need) {
				t.Errorf("%s says Node.js %s or later; the e2e client's packages need %d", f, m[1], need)
			}
		}
	}
	if found < 3 {
		t.Errorf("found %d statements of the Node.js version, want one in each of README.md, .ci/run and e2e/e2e_test.go", found)
	}
}

// TestREADME_ImagesOnce: every image is shown once (the calibration plot
// used to appear twice, with its explanation).
func TestREADME_ImagesOnce(t *testing.T) {
	seen := map[string]int{}
	for _, m := range regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`).FindAllStringSubmatch(readme(t), -1) {
		seen[m[1]]++
	}
	if len(seen) == 0 {
		t.Fatal("README shows no image")
	}
	for img, n := range seen {
		if n > 1 {
			t.Errorf("README shows %s %d times", img, n)
		}
	}
}
