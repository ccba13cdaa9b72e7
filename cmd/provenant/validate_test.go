package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate_ExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	retail, err := os.ReadFile("../../catalogs/retail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := write("bad.yaml", strings.Replace(strings.Replace(string(retail),
		"    attribute: state\n    phrasings", "    attribute: stat\n    phrasings", 1),
		"        op: ne", "        op: neq", 1))
	typo := write("typo.yaml", strings.Replace(string(retail), "    time: timestamp", "    tme: timestamp", 1))
	// lineOf is the 1-based line of the first line of text holding s.
	lineOf := func(text, s string) int {
		i := strings.Index(text, s)
		if i < 0 {
			t.Fatalf("no %q in the catalog", s)
		}
		return strings.Count(text[:i], "\n") + 1
	}
	at := func(path, text, s string, col int) string {
		return fmt.Sprintf("%s:%d:%d:", path, lineOf(text, s), col)
	}
	// A copy of the retail catalog with no fixtures beside it, and one
	// whose ratio names a measure that does not exist.
	nofix := write("nofix.yaml", string(retail))
	ratio := write("ratio.yaml", strings.Replace(string(retail), "    numerator: price_mismatch_scans\n", "    numerator: price_mismatch\n", 1))
	// A copy of the warehouse catalog with its fixtures, one value wrong.
	wrongDir := t.TempDir()
	if err := os.CopyFS(filepath.Join(wrongDir, "fixtures"), os.DirFS("../../catalogs/fixtures")); err != nil {
		t.Fatal(err)
	}
	wh, err := os.ReadFile("../../catalogs/warehouse.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wrong := filepath.Join(wrongDir, "warehouse.yaml")
	if err := os.WriteFile(wrong, wh, 0o644); err != nil {
		t.Fatal(err)
	}
	mttr := filepath.Join(wrongDir, "fixtures", "warehouse", "mean_time_to_repair.yaml")
	if err := os.WriteFile(mttr, []byte(strings.Replace(readFile(t, mttr), "{dims: [zone-02], value: 2700}", "{dims: [zone-02], value: 2600}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	// Copies of the retail catalog, with its fixtures, whose sql: section
	// denies the dataset's table (every metric reads it) or the products
	// reference (the category dimension joins it), or whose hand-written
	// allowlist disagrees with the derived one.
	sqlDir := t.TempDir()
	if err := os.CopyFS(filepath.Join(sqlDir, "fixtures"), os.DirFS("../../catalogs/fixtures")); err != nil {
		t.Fatal(err)
	}
	writeIn := func(name, body string) string {
		p := filepath.Join(sqlDir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	denyEvents := writeIn("deny_events.yaml", string(retail)+"sql:\n  deny: [events]\n")
	denyProducts := writeIn("deny_products.yaml", string(retail)+"sql:\n  deny: [products]\n")
	allowWrong := writeIn("allow_wrong.yaml", string(retail)+"sql:\n  allow: [events, stores]\n  deny: [product]\n")
	allowRight := writeIn("allow_right.yaml", string(retail)+"sql:\n  allow: [events, stores]\n  deny: [products]\n")
	retailText := string(retail)
	metricAt := func(path, name string) string {
		return at(path, retailText, "  - name: "+name+"\n", 11) + " metric `" + name + "`: compiled query (grain none"
	}
	denyEventsWant := []string{}
	for _, name := range []string{"scan_count", "out_of_stock_share", "price_mismatch_share", "non_compliance_share",
		"compliant_share", "average_shelf_price", "distinct_products_observed", "cumulative_scans"} {
		denyEventsWant = append(denyEventsWant, metricAt(denyEvents, name)+") reads table `events`, which is outside the read allowlist (in `sql.deny`)")
	}
	denyEventsWant = append(denyEventsWant, "provenant: validate catalog: 8 error(s): invalid catalog")
	badText, typoText := readFile(t, bad), readFile(t, typo)
	nofixText, ratioText := readFile(t, nofix), readFile(t, ratio)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr []string // lines, in order, that stderr must contain
	}{
		{"retail is valid", []string{"validate", "--catalog", "../../catalogs/retail.yaml", "--fixtures=false"}, 0,
			"../../catalogs/retail.yaml: valid (catalog retail version \"1\": 1 dataset(s), 6 tool(s), 8 metric(s), 435 compiled quer(ies) within the SQL allowlist)\n", nil},
		{"warehouse is valid, its fixtures run by default", []string{"validate", "--catalog", "../../catalogs/warehouse.yaml"}, 0,
			"../../catalogs/warehouse.yaml: valid (catalog warehouse version \"1\": 1 dataset(s), 6 tool(s), 8 metric(s), 210 compiled quer(ies) within the SQL allowlist, 20 fixture case(s) match)\n", nil},
		{"every validation error with its position", []string{"validate", "--catalog", bad}, 1, "",
			[]string{at(bad, badText, "op: neq", 13) + " unknown operator `neq`; did you mean `ne`?",
				at(bad, badText, "attribute: stat\n", 16) + " unknown attribute `stat`; did you mean `state`?",
				"provenant: validate catalog: 2 error(s): invalid catalog"}},
		{"unknown key with suggestion", []string{"validate", "--catalog", typo}, 1, "",
			[]string{at(typo, typoText, "  - name: scans", 5) + " dataset: missing key `time`",
				at(typo, typoText, "tme: timestamp", 5) + " unknown key `tme`; did you mean `time`?"}},
		{"fixtures match", []string{"validate", "--catalog", "../../catalogs/retail.yaml", "--fixtures"}, 0,
			"../../catalogs/retail.yaml: valid (catalog retail version \"1\": 1 dataset(s), 6 tool(s), 8 metric(s), 435 compiled quer(ies) within the SQL allowlist, 23 fixture case(s) match)\n", nil},
		{"a fixture value wrong", []string{"validate", "--catalog", wrong, "--fixtures"}, 1, "",
			[]string{at(wrong, string(wh), "fixture: fixtures/warehouse/mean_time_to_repair.yaml", 14) +
				" metric `mean_time_to_repair`: fixture: case \"by zone\": compiled SQL: row [zone-02]: value 2700, want 2600",
				"re-derivation: row [zone-02]: value 2700, want 2600"}},
		{"a fixture value wrong, without the flag", []string{"validate", "--catalog", wrong}, 1, "",
			[]string{" metric `mean_time_to_repair`: fixture: case \"by zone\": compiled SQL: row [zone-02]: value 2700, want 2600"}},
		{"a fixture value wrong, fixtures skipped", []string{"validate", "--catalog", wrong, "--fixtures=false"}, 0,
			wrong + ": valid (catalog warehouse version \"1\": 1 dataset(s), 6 tool(s), 8 metric(s), 210 compiled quer(ies) within the SQL allowlist)\n", nil},
		{"metric fixtures missing", []string{"validate", "--catalog", nofix}, 1, "",
			[]string{at(nofix, nofixText, "fixture: fixtures/retail/scan_count.yaml", 14) + " metric `scan_count`: fixture file `fixtures/retail/scan_count.yaml` does not exist",
				"provenant: validate catalog: 8 error(s): invalid catalog"}},
		{"ratio of an undeclared measure", []string{"validate", "--catalog", ratio}, 1, "",
			[]string{at(ratio, ratioText, "numerator: price_mismatch\n", 16) + " unknown measure `price_mismatch`; did you mean `price_mismatch_scans`?"}},
		{"denying the dataset's table fails every metric", []string{"validate", "--catalog", denyEvents}, 1, "", denyEventsWant},
		{"denying a reference fails the metrics that join it", []string{"validate", "--catalog", denyProducts}, 1, "",
			[]string{metricAt(denyProducts, "scan_count") + ", dimensions category) reads table `products`, which is outside the read allowlist (in `sql.deny`)"}},
		{"a hand-written allowlist that disagrees", []string{"validate", "--catalog", allowWrong}, 1, "",
			[]string{at(allowWrong, readFile(t, allowWrong), "  allow: [events, stores]", 10) +
				" `allow` is not the derived allowlist (the tables the datasets, their references and the metrics declare, minus `deny`): missing `products`",
				at(allowWrong, readFile(t, allowWrong), "  deny: [product]", 10) + " `deny`: unknown table `product`; did you mean `products`?",
				"provenant: validate catalog: 2 error(s): invalid catalog"}},
		{"a hand-written allowlist that agrees, with a reference denied", []string{"validate", "--catalog", allowRight}, 1, "",
			[]string{"metric `scan_count`: compiled query (grain none, dimensions category) reads table `products`"}},
		{"missing --catalog is a usage error", []string{"validate"}, 2, "",
			[]string{"provenant validate: --catalog FILE is required"}},
		{"unknown flag is a usage error", []string{"validate", "--catalgo", "x"}, 2, "",
			[]string{"provenant validate: unknown flag --catalgo"}},
		{"positional argument is a usage error", []string{"validate", "--catalog", bad, "extra"}, 2, "",
			[]string{"provenant validate: unexpected argument"}},
		{"missing file", []string{"validate", "--catalog", filepath.Join(dir, "none.yaml")}, 1, "",
			[]string{"provenant: open catalog file:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runMain(t.Context(), tt.args, &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %s)", code, tt.wantCode, stderr.String())
			}
			if stdout.String() != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.wantStdout)
			}
			rest := stderr.String()
			for _, w := range tt.wantStderr {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("stderr lacks %q (in order)\n%s", w, stderr.String())
				}
				rest = rest[i+len(w):]
			}
			if tt.wantCode == 0 && stderr.Len() > 0 {
				t.Errorf("stderr = %q, want empty", stderr.String())
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
