package shape

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
)

// Record is one row of a dataset, as a provenance key names it: its
// fields in the order key, entities, time, attributes (the catalog's
// columns), which is also the order MarshalJSON writes them in.
type Record struct {
	Dataset string
	Key     string
	Fields  []Field
}

// Field is one column of a Record: nil (NULL), a string (text, and times
// as YYYY-MM-DDTHH:MM:SSZ), an int64 (an integer attribute) or a float64.
type Field struct {
	Name  string
	Value any
}

// MarshalJSON writes the record as one JSON object, fields in order.
func (r Record) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range r.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(f.Name)
		if err != nil {
			return nil, err
		}
		value, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// MaxRecordKeys bounds the keys one Records call looks up.
const MaxRecordKeys = 1000

// Records returns the rows, of any dataset, whose keys are among keys and
// whose scope entity s allows, sorted by dataset then key. The scope is
// part of the query, so a row outside it and a key that names nothing are
// the same: not returned.
func (s *Snapshot) Records(ctx context.Context, keys []string, sc Scope) ([]Record, error) {
	if len(keys) > MaxRecordKeys {
		return nil, fmt.Errorf("read records: more than %d keys", MaxRecordKeys)
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	keys = distinctSorted(keys)
	var out []Record
	for _, ds := range s.e.cat.Datasets {
		if len(keys) == 0 {
			break
		}
		recs, err := s.datasetRecords(ctx, ds, keys, sc)
		if err != nil {
			return nil, fmt.Errorf("read records of %s: %w", ds.Name.Value, err)
		}
		out = append(out, recs...)
	}
	return out, nil
}

// recordColumns lists a dataset's columns in Record order.
func recordColumns(ds *catalog.Dataset) []string {
	cols := []string{ds.Key.Value}
	for _, e := range ds.Entities {
		cols = append(cols, e.Column.Value)
	}
	cols = append(cols, ds.Time.Value)
	for _, a := range ds.Attributes {
		cols = append(cols, a.Column.Value)
	}
	return cols
}

func (s *Snapshot) datasetRecords(ctx context.Context, ds *catalog.Dataset, keys []string, sc Scope) ([]Record, error) {
	scope := ds.Entity(s.e.cat.ScopeEntity.Value)
	if scope == nil && !sc.IsAll() {
		return nil, nil // a limited caller sees no dataset without the scope entity
	}
	cols := recordColumns(ds)
	proj := make([]string, len(cols))
	for i, c := range cols {
		proj[i] = col("x", c)
	}
	// A table's key is text (ingest's layout): compared as it is stored,
	// so its index serves the lookup. A file's may be of another type.
	keyCol := proj[0]
	proj[0] = "CAST(" + proj[0] + " AS VARCHAR)"
	if ds.Table.Value == "" {
		keyCol = proj[0]
	}
	q := &query{}
	text := "SELECT " + strings.Join(proj, ", ") + " FROM " + relation(ds, s.e.src) + " x WHERE " + keyCol + " IN " + q.list(keys)
	if !sc.IsAll() {
		if len(sc.values) == 0 {
			return nil, nil
		}
		text += " AND " + col("x", scope.Column.Value) + " IN " + q.list(sc.values)
	}
	text += " ORDER BY 1"
	rows, err := s.tx.QueryContext(ctx, text, q.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		cells := make([]any, len(cols))
		dest := make([]any, len(cols))
		for i := range cells {
			dest[i] = &cells[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		r := Record{Dataset: ds.Name.Value, Fields: make([]Field, len(cols))}
		for i, c := range cols {
			v, err := recordValue(ds, c, cells[i])
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", c, err)
			}
			r.Fields[i] = Field{Name: c, Value: v}
		}
		r.Key, _ = r.Fields[0].Value.(string)
		out = append(out, r)
	}
	return out, rows.Err()
}

// recordValue normalises a scanned cell to a Field value.
func recordValue(ds *catalog.Dataset, column string, v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case time.Time:
		return x.UTC().Format(timeLayout), nil
	case []byte:
		return string(x), nil
	case string:
		if column == ds.Time.Value { // a text time column (a CSV file read in place)
			if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
				return t.UTC().Format(timeLayout), nil
			}
		}
		return x, nil
	case int64, float64:
		return x, nil
	case int32:
		return int64(x), nil
	case int:
		return int64(x), nil
	case float32:
		return float64(x), nil
	}
	return nil, fmt.Errorf("unexpected type %T", v)
}

// Summary describes what a snapshot holds, for a caller's scope.
type Summary struct {
	Catalog        string           `json:"catalog"`
	CatalogVersion string           `json:"catalog_version"`
	Datasets       []DatasetSummary `json:"datasets"`
	// Scope lists the scope-entity values of a limited caller (empty for
	// one who sees none); nil for one who sees everything.
	Scope *[]string `json:"scope,omitempty"`
}

// DatasetSummary describes one dataset: its data version, rows, time
// span and the distinct values of each entity, all within the scope.
type DatasetSummary struct {
	Name        string         `json:"name"`
	DataVersion string         `json:"data_version"`
	Rows        int64          `json:"rows"`
	First       string         `json:"first_time,omitempty"`
	Last        string         `json:"last_time,omitempty"`
	Entities    map[string]int `json:"entities"`
}

// Summary summarises every dataset within sc: one aggregate query each.
func (s *Snapshot) Summary(ctx context.Context, sc Scope) (Summary, error) {
	if err := s.begin(ctx); err != nil {
		return Summary{}, err
	}
	cat := s.e.cat
	out := Summary{Catalog: cat.Name.Value, CatalogVersion: cat.Version.Value, Datasets: []DatasetSummary{}}
	if !sc.IsAll() {
		values := append([]string{}, sc.values...)
		out.Scope = &values
	}
	for _, ds := range cat.Datasets {
		version, err := s.DataVersion(ctx, ds.Name.Value)
		if err != nil {
			return Summary{}, err
		}
		sum := DatasetSummary{Name: ds.Name.Value, DataVersion: version, Entities: map[string]int{}}
		scope := ds.Entity(cat.ScopeEntity.Value)
		if !sc.IsAll() && (scope == nil || len(sc.values) == 0) {
			for _, e := range ds.Entities {
				sum.Entities[e.Name.Value] = 0
			}
			out.Datasets = append(out.Datasets, sum)
			continue
		}
		q := &query{}
		proj := []string{"COUNT(*)", "MIN(" + col("x", ds.Time.Value) + ")", "MAX(" + col("x", ds.Time.Value) + ")"}
		for _, e := range ds.Entities {
			proj = append(proj, "COUNT(DISTINCT "+col("x", e.Column.Value)+")")
		}
		text := "SELECT " + strings.Join(proj, ", ") + " FROM " + relation(ds, s.e.src) + " x"
		if !sc.IsAll() {
			text += " WHERE " + col("x", scope.Column.Value) + " IN " + q.list(sc.values)
		}
		var first, last any
		counts := make([]int64, len(ds.Entities))
		dest := []any{&sum.Rows, &first, &last}
		for i := range counts {
			dest = append(dest, &counts[i])
		}
		if err := s.tx.QueryRowContext(ctx, text, q.args...).Scan(dest...); err != nil {
			return Summary{}, fmt.Errorf("summarise %s: %w", ds.Name.Value, err)
		}
		for i, e := range ds.Entities {
			sum.Entities[e.Name.Value] = int(counts[i])
		}
		for _, t := range []struct {
			v   any
			dst *string
		}{{first, &sum.First}, {last, &sum.Last}} {
			v, err := recordValue(ds, ds.Time.Value, t.v)
			if err != nil {
				return Summary{}, fmt.Errorf("summarise %s: %w", ds.Name.Value, err)
			}
			if str, ok := v.(string); ok {
				*t.dst = str
			}
		}
		out.Datasets = append(out.Datasets, sum)
	}
	return out, nil
}

// DeclaredIDs reads the ids every entity with a reference table declares,
// by entity name: the wall admits only those. An entity without a
// reference is absent from the map (any id matching its pattern is
// admitted, and one that names nothing is a grounded zero).
func (s *Snapshot) DeclaredIDs(ctx context.Context) (map[string]map[string]bool, error) {
	names, err := s.DeclaredNames(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string]bool, len(names))
	for entity, byID := range names {
		ids := make(map[string]bool, len(byID))
		for id := range byID {
			ids[id] = true
		}
		out[entity] = ids
	}
	return out, nil
}

// DeclaredNames reads the ids and display names every entity with a
// reference table declares, by entity name: what a question may name an
// id by ("Riverside" for st-003). An entity without a reference is absent
// from the map; an id whose name is empty maps to "".
func (s *Snapshot) DeclaredNames(ctx context.Context) (map[string]map[string]string, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, ds := range s.e.cat.Datasets {
		for _, e := range ds.Entities {
			r := e.Reference
			if r == nil {
				continue
			}
			if _, done := out[e.Name.Value]; done {
				continue
			}
			rel := r.Table.Value
			if rel == "" {
				// Declared with files: the source must have opened them;
				// ids that were not read cannot be admitted.
				if rel = s.e.src.References[e.Name.Value]; rel == "" {
					return nil, fmt.Errorf("read reference of entity %s: its files are not open in the source", e.Name.Value)
				}
			}
			names, err := s.referenceNames(ctx, r, rel)
			if err != nil {
				return nil, fmt.Errorf("read reference of entity %s: %w", e.Name.Value, err)
			}
			out[e.Name.Value] = names
		}
	}
	return out, nil
}

func (s *Snapshot) referenceNames(ctx context.Context, r *catalog.Reference, rel string) (map[string]string, error) {
	rows, err := s.tx.QueryContext(ctx, "SELECT CAST("+ident(r.ID.Value)+" AS VARCHAR), CAST("+ident(r.DisplayName.Value)+" AS VARCHAR) FROM "+quoteName(rel))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := map[string]string{}
	for rows.Next() {
		var id, name sql.NullString
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		if id.Valid {
			names[id.String] = name.String
		}
	}
	return names, rows.Err()
}
