package eval

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/shape"
)

//go:embed warehouse-demo-v1.gold.yaml
var warehouseGold []byte

// catalogGolds are the embedded gold files of the embedded catalogs, by
// catalog name.
var catalogGolds = map[string][]byte{"warehouse": warehouseGold}

// CatalogGoldFile returns the embedded gold file of an embedded catalog
// (warehouse: its demo database's), false when the catalog has none.
func CatalogGoldFile(name string) ([]byte, bool) {
	b, ok := catalogGolds[name]
	return slices.Clone(b), ok
}

// CatalogGold parses the embedded gold set of an embedded catalog and
// validates it against the catalog's tools.
func CatalogGold(name string) (*GoldSet, error) {
	b, ok := catalogGolds[name]
	if !ok {
		return nil, fmt.Errorf("load gold set: catalog %s has no embedded gold set", name)
	}
	cat, err := catalogs.Load(name)
	if err != nil {
		return nil, fmt.Errorf("load gold set: %w", err)
	}
	g, err := Parse(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if err := g.ValidateCatalog(cat); err != nil {
		return nil, err
	}
	return g, nil
}

// ValidateCatalog checks that the set names cat (its catalog key) and
// validates it against the tool registry derived from cat, as the
// catalog engine's wall builds it.
func (g *GoldSet) ValidateCatalog(cat *catalog.Catalog) error {
	if g.Catalog != cat.Name.Value {
		p := g.idx.at("catalog")
		reason := "is required for a catalog engine's gold set (the catalog's name)"
		switch {
		case g.Catalog != "" && !catalogPattern.MatchString(g.Catalog):
			reason = catalogReason
		case g.Catalog != "":
			reason = "names another catalog than the engine's"
		}
		return &Error{Op: "validate", Field: "catalog", Line: p.line, Column: p.column, Reason: reason}
	}
	reg, err := shape.NewMenuRegistry(cat)
	if err != nil {
		return fmt.Errorf("validate gold set: %w", err)
	}
	return g.Validate(reg)
}

// maxKeysPerQuery bounds the placeholders of one key lookup.
const maxKeysPerQuery = 500

// CatalogTarget is the Target of a catalog engine over src: keys are
// looked up in every dataset's relation (its src.Relations entry, else
// its table), and each tool's absence attestations must carry its
// dataset's data version in one snapshot taken now (shape's version:
// the maximum ingestion sequence, or src.Versions). The target reads
// src.DB until the run ends; it does not close it.
func CatalogTarget(ctx context.Context, cat *catalog.Catalog, src shape.Source) (Target, error) {
	eng, err := shape.New(ctx, cat, src, nil)
	if err != nil {
		return Target{}, fmt.Errorf("open catalog target: %w", err)
	}
	defer eng.Close() // only the data versions are read through it
	snap, err := eng.Begin(ctx)
	if err != nil {
		return Target{}, fmt.Errorf("open catalog target: %w", err)
	}
	defer snap.Close()
	t := Target{DataVersions: map[string]string{}, WithNow: provider.WithNow}
	for _, tl := range cat.Tools {
		v, err := snap.DataVersion(ctx, tl.Dataset.Value)
		if err != nil {
			return Target{}, fmt.Errorf("open catalog target: %w", err)
		}
		t.DataVersions[tl.Name.Value] = v
	}
	// query_metric: its metrics' datasets' version, when they share one
	// (else an absence is judged against the set's dataset_version).
	metricVersion, seen := "", false
	for _, m := range cat.Metrics {
		model := cat.ModelOf(m)
		if model == nil {
			continue
		}
		v, err := snap.DataVersion(ctx, model.Dataset.Value)
		if err != nil {
			return Target{}, fmt.Errorf("open catalog target: %w", err)
		}
		if seen && v != metricVersion {
			metricVersion = ""
			break
		}
		metricVersion, seen = v, true
	}
	if metricVersion != "" {
		t.DataVersions[shape.QueryMetric] = metricVersion
	}
	type relation struct{ name, key string }
	var rels []relation
	for _, ds := range cat.Datasets {
		name, ok := src.Relations[ds.Name.Value]
		if !ok {
			name = ds.Table.Value
		}
		if name == "" {
			return Target{}, fmt.Errorf("open catalog target: dataset %s: no table or relation to look keys up in", ds.Name.Value)
		}
		rels = append(rels, relation{quoteName(name), quoteIdent(ds.Key.Value)})
	}
	db := src.DB
	t.Keys = func(ctx context.Context, ids []string) ([]string, error) {
		var found []string
		for chunk := range slices.Chunk(ids, maxKeysPerQuery) {
			ph := make([]string, len(chunk))
			args := make([]any, len(chunk))
			for i, id := range chunk {
				ph[i] = fmt.Sprintf("$%d", i+1)
				args[i] = id
			}
			for _, r := range rels {
				q := "SELECT CAST(" + r.key + " AS VARCHAR) FROM " + r.name + " WHERE CAST(" + r.key + " AS VARCHAR) IN (" + strings.Join(ph, ", ") + ")"
				rows, err := db.QueryContext(ctx, q, args...)
				if err != nil {
					return nil, fmt.Errorf("look up keys: %w", err)
				}
				for rows.Next() {
					var k string
					if err := rows.Scan(&k); err != nil {
						rows.Close()
						return nil, fmt.Errorf("look up keys: %w", err)
					}
					found = append(found, k)
				}
				err = rows.Err()
				if cerr := rows.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return nil, fmt.Errorf("look up keys: %w", err)
				}
			}
		}
		return found, nil
	}
	return t, nil
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteName quotes a table name, schema.table allowed.
func quoteName(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = quoteIdent(p)
	}
	return strings.Join(parts, ".")
}
