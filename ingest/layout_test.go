package ingest_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestLayout_DDL pins the DDL of the two example catalogs' datasets (the
// warehouse one stored as a table) on both dialects, each statement after
// its reason, in testdata/*.sql.
func TestLayout_DDL(t *testing.T) {
	f, err := os.Open("../catalogs/retail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	retail, err := catalog.Load(f, "retail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	layouts := map[string]*ingest.Layout{"warehouse": ingesttest.WarehouseLayout(t)}
	if layouts["retail"], err = ingest.NewLayout(retail, "scans"); err != nil {
		t.Fatal(err)
	}
	for name, l := range layouts {
		for _, dialect := range []string{ingest.DuckDB, ingest.Postgres} {
			t.Run(name+"."+dialect, func(t *testing.T) {
				ddl, err := l.DDL(dialect)
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				for _, s := range ddl {
					b.WriteString("-- " + s.Reason + "\n" + s.SQL + ";\n\n")
				}
				path := filepath.Join("testdata", name+"."+dialect+".sql")
				if *update {
					if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if b.String() != string(want) {
					t.Errorf("DDL differs from %s (run with -update to rewrite it):\n%s", path, b.String())
				}
			})
		}
	}
}

func TestLayout_Errors(t *testing.T) {
	c := ingesttest.WarehouseCatalog(t)
	if _, err := ingest.NewLayout(c, "nope"); err == nil || !strings.Contains(err.Error(), "no such dataset") {
		t.Errorf("unknown dataset: %v", err)
	}
	c.Datasets[0].Table.Value, c.Datasets[0].Files.Value = "", "x/*.parquet"
	if _, err := ingest.NewLayout(c, "status_events"); err == nil || !strings.Contains(err.Error(), "dataset is not a table") {
		t.Errorf("files dataset: %v", err)
	}
	c = ingesttest.WarehouseCatalog(t)
	c.Datasets[0].Key.Value = ingest.SeqColumn
	if _, err := ingest.NewLayout(c, "status_events"); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("reserved column: %v", err)
	}
	l := ingesttest.WarehouseLayout(t)
	if _, err := l.DDL("mysql"); err == nil {
		t.Error("unknown dialect: no error")
	}
}

func TestQuote(t *testing.T) {
	if got, want := ingest.Quote(`a"b`), `"a""b"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
}
