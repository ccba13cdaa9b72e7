package ingest

import (
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"strings"

	"github.com/provenant/provenant/catalog"
)

// The SQL dialects DDL and the Layout's SQL support.
const (
	DuckDB   = "duckdb"
	Postgres = "postgres"
)

// SeqColumn is the column that numbers the rows of every import.
const SeqColumn = "_ingest_seq"

// The staging table's bookkeeping columns: the input's index within the
// import and the row's 1-based number within its input.
const (
	srcColumn = "_src"
	rowColumn = "_row"
)

// Kind is what a stored column holds.
type Kind int

// The column kinds.
const (
	KindKey     Kind = iota // the key: non-empty text, unique in the table
	KindTime                // the event time: TIMESTAMP, UTC
	KindEntity              // an entity id matching the entity's pattern
	KindEnum                // one of an enumerated attribute's values
	KindInteger             // a numeric attribute of type integer: BIGINT
	KindNumber              // a numeric attribute of type number: DOUBLE PRECISION
)

// Column is one stored column of a dataset.
type Column struct {
	Name     string // the declared column name (in inputs and in the table)
	Kind     Kind
	Nullable bool // an optional attribute

	pattern *regexp.Regexp  // KindEntity
	values  map[string]bool // KindEnum
}

// Layout is the stored layout of one `table:` dataset: its columns in
// stored order (key, time, entities, attributes; _ingest_seq follows them
// in the table but is not among Columns).
type Layout struct {
	Catalog *catalog.Catalog
	Dataset *catalog.Dataset
	Table   string
	Columns []Column

	index map[string]int // column name -> position in Columns
}

var (
	// ErrNotTable is returned by NewLayout for a dataset that reads files
	// in place: only a `table:` dataset can be imported into.
	ErrNotTable = errors.New("dataset is not a table")
	// ErrNoDataset is returned by NewLayout for a dataset the catalog
	// does not declare.
	ErrNoDataset = errors.New("no such dataset")
)

// NewLayout returns the stored layout of the named dataset of c, which
// must be valid (catalog.Load). The dataset must declare a table.
func NewLayout(c *catalog.Catalog, dataset string) (*Layout, error) {
	var ds *catalog.Dataset
	for _, d := range c.Datasets {
		if d.Name.Value == dataset {
			ds = d
		}
	}
	if ds == nil {
		return nil, fmt.Errorf("lay out dataset: %w", ErrNoDataset)
	}
	if ds.Table.Value == "" {
		return nil, fmt.Errorf("lay out dataset: %w (it reads files in place; declare `table:` to import)", ErrNotTable)
	}
	l := &Layout{Catalog: c, Dataset: ds, Table: ds.Table.Value, index: map[string]int{}}
	l.Columns = append(l.Columns, Column{Name: ds.Key.Value, Kind: KindKey}, Column{Name: ds.Time.Value, Kind: KindTime})
	for _, e := range ds.Entities {
		re, err := regexp.Compile(e.Pattern.Value)
		if err != nil {
			return nil, fmt.Errorf("lay out dataset: entity %s: compile pattern: %w", e.Name.Value, err)
		}
		l.Columns = append(l.Columns, Column{Name: e.Column.Value, Kind: KindEntity, pattern: re})
	}
	for _, a := range ds.Attributes {
		col := Column{Name: a.Column.Value, Nullable: a.Optional}
		switch {
		case a.Enumerated():
			col.Kind = KindEnum
			col.values = map[string]bool{}
			for _, v := range a.Values {
				col.values[v.Value] = true
			}
		case a.Type.Value == "integer":
			col.Kind = KindInteger
		default:
			col.Kind = KindNumber
		}
		l.Columns = append(l.Columns, col)
	}
	for i, col := range l.Columns {
		if col.Name == SeqColumn || col.Name == srcColumn || col.Name == rowColumn {
			return nil, fmt.Errorf("lay out dataset: column %s is reserved", col.Name)
		}
		if _, dup := l.index[col.Name]; dup {
			return nil, fmt.Errorf("lay out dataset: column %s is declared twice", col.Name)
		}
		l.index[col.Name] = i
	}
	return l, nil
}

// ColumnIndex returns the position of the named column in Columns, or -1.
func (l *Layout) ColumnIndex(name string) int {
	if i, ok := l.index[name]; ok {
		return i
	}
	return -1
}

// Quote returns name as a quoted SQL identifier (valid in DuckDB and
// PostgreSQL).
func Quote(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func checkDialect(dialect string) error {
	if dialect != DuckDB && dialect != Postgres {
		return fmt.Errorf("unknown SQL dialect (want %s or %s)", DuckDB, Postgres)
	}
	return nil
}

// sqlType is the column type of k in dialect.
func sqlType(dialect string, k Kind) string {
	switch k {
	case KindTime:
		return "TIMESTAMP"
	case KindInteger:
		return "BIGINT"
	case KindNumber:
		return "DOUBLE PRECISION"
	}
	if dialect == Postgres {
		// Bytewise, whatever the database's default collation: the tie
		// rule's "greatest key" and every text sort must order as Go and
		// DuckDB do (an en-US collation puts "evt-B" after "evt-a"), and
		// C comparisons are memcmp, cheaper to sort and index by.
		return `TEXT COLLATE "C"`
	}
	return "VARCHAR"
}

// columnDefs returns the column definitions of the table, plus extra.
func (l *Layout) columnDefs(dialect string, extra ...string) string {
	var b strings.Builder
	for _, col := range l.Columns {
		b.WriteString("\n\t")
		b.WriteString(Quote(col.Name) + " " + sqlType(dialect, col.Kind))
		if !col.Nullable {
			b.WriteString(" NOT NULL")
		}
		b.WriteString(",")
	}
	b.WriteString("\n\t" + Quote(SeqColumn) + " BIGINT NOT NULL")
	for _, e := range extra {
		b.WriteString(",\n\t" + e)
	}
	return b.String()
}

// Statement is one DDL statement with the reason it exists.
type Statement struct {
	SQL    string
	Reason string // one line, for the README's list of indexes
}

// DDL returns the statements that create the dataset's table and its
// indexes if they are missing, for dialect (DuckDB or Postgres). Every
// statement is idempotent (IF NOT EXISTS).
//
// On PostgreSQL the indexes are the ones the catalog's tools need: for
// latest_value, (series entities..., time, key), which finds a series'
// latest row at or before an instant by one descending index probe; for
// count_entities_where and list_entities_in_state, (time), and for the
// latter also (at entity, time); for count_rows_in_window, (at entity,
// filter attribute, time); a unique index on the key (lookups by key and
// the duplicate check of every import) and one on _ingest_seq (the
// data_version watermark, max(_ingest_seq), by one index probe; unique,
// so two concurrent imports cannot both commit one sequence number).
// DuckDB gets only an index on the key (not unique, so that a repeated
// key is reported by the import's check, which names the row): its zone maps serve range
// scans, but not the lookup of one key among keys that share a long
// prefix, which the resolver makes for every key a result lists.
func (l *Layout) DDL(dialect string) ([]Statement, error) {
	if err := checkDialect(dialect); err != nil {
		return nil, fmt.Errorf("lay out dataset: %w", err)
	}
	out := []Statement{{
		SQL:    "CREATE TABLE IF NOT EXISTS " + Quote(l.Table) + " (" + l.columnDefs(dialect) + "\n)",
		Reason: "the dataset's rows, one column per declared column plus " + SeqColumn,
	}}
	ds := l.Dataset
	key, ts := ds.Key.Value, ds.Time.Value
	if dialect == DuckDB {
		return append(out, Statement{
			SQL:    "CREATE INDEX IF NOT EXISTS " + Quote(indexName(l.Table, []string{key})) + " ON " + Quote(l.Table) + " (" + Quote(key) + ")",
			Reason: "key: the resolver's lookups of asserted keys, one index probe each (not unique: the import's own check names the row of a repeated key)",
		}), nil
	}
	// An index serves uses: a use is a purpose (a shape's and what it
	// reads) and the tools that have it.
	type use struct {
		purpose string
		tools   []string
	}
	type index struct {
		unique bool
		cols   []string
		uses   []*use
	}
	var idx []*index
	add := func(unique bool, cols []string, purpose, tool string) {
		sig := strings.Join(cols, "\x00")
		var x *index
		for _, y := range idx {
			if strings.Join(y.cols, "\x00") == sig {
				x = y
			}
		}
		if x == nil {
			x = &index{unique: unique, cols: cols}
			idx = append(idx, x)
		}
		for _, u := range x.uses {
			if u.purpose == purpose {
				if tool != "" {
					u.tools = append(u.tools, tool)
				}
				return
			}
		}
		u := &use{purpose: purpose}
		if tool != "" {
			u.tools = []string{tool}
		}
		x.uses = append(x.uses, u)
	}
	add(true, []string{key}, "unique key: lookups of asserted keys, and each import's check for keys already stored", "")
	add(true, []string{SeqColumn}, "data_version watermark: max("+SeqColumn+") by one index probe; unique, so concurrent imports cannot share a sequence number", "")
	entityCol := func(name string) string {
		for _, e := range ds.Entities {
			if e.Name.Value == name {
				return e.Column.Value
			}
		}
		return name
	}
	attrCol := func(name string) string {
		for _, a := range ds.Attributes {
			if a.Name.Value == name {
				return a.Column.Value
			}
		}
		return name
	}
	for _, t := range l.Catalog.Tools {
		if t.Dataset.Value != ds.Name.Value {
			continue
		}
		name := t.Name.Value
		switch t.Shape.Value {
		case catalog.ShapeLatestValue:
			var cols []string
			for _, s := range ds.Series {
				cols = append(cols, entityCol(s.Value))
			}
			add(false, append(cols, ts, key), "latest_value: a series' latest row at or before as_of by one backward index probe (ties to the greatest key)", name)
		case catalog.ShapeCountEntitiesWhere:
			add(false, []string{ts}, "count_entities_where, list_entities_in_state: the rows at or before as_of, by time", name)
		case catalog.ShapeListEntitiesInState:
			add(false, []string{ts}, "count_entities_where, list_entities_in_state: the rows at or before as_of, by time", name)
			add(false, []string{entityCol(t.At.Value), ts}, "list_entities_in_state: the rows of one "+t.At.Value+" at or before as_of", name)
		case catalog.ShapeCountRowsInWindow:
			cols := []string{entityCol(t.At.Value)}
			what := "the rows of one " + t.At.Value
			if t.Filter != nil && t.Filter.Attribute.Value != "" {
				cols = append(cols, attrCol(t.Filter.Attribute.Value))
				what += " and " + t.Filter.Attribute.Value
			}
			// The key last: the index holds every column the executor's
			// keys and the resolver's rows read, so that PostgreSQL
			// answers from the index alone (an index-only scan, once
			// VACUUM has set the visibility map) instead of reading a
			// table page for nearly every row: a window of 4,549 rows at
			// 10M events took 73 ms through (time) and 1 ms so.
			add(false, append(cols, ts, key), "count_rows_in_window: "+what+" in the window with their keys, one index-only range scan", name)
		}
	}
	for _, x := range idx {
		quoted := make([]string, len(x.cols))
		for i, c := range x.cols {
			quoted[i] = Quote(c)
		}
		kw := "INDEX"
		if x.unique {
			kw = "UNIQUE INDEX"
		}
		reasons := make([]string, len(x.uses))
		for i, u := range x.uses {
			reasons[i] = u.purpose
			if len(u.tools) > 0 {
				reasons[i] += " (" + strings.Join(u.tools, ", ") + ")"
			}
		}
		out = append(out, Statement{
			SQL: "CREATE " + kw + " IF NOT EXISTS " + Quote(indexName(l.Table, x.cols)) +
				" ON " + Quote(l.Table) + " (" + strings.Join(quoted, ", ") + ")",
			Reason: strings.Join(reasons, "; "),
		})
	}
	return out, nil
}

// indexName is table_col1_col2..._idx, shortened with a hash to fit
// PostgreSQL's 63-byte identifiers.
func indexName(table string, cols []string) string {
	n := table + "_" + strings.Join(cols, "_") + "_idx"
	if len(n) <= 63 {
		return n
	}
	h := fnv.New32a()
	h.Write([]byte(n))
	return fmt.Sprintf("%.50s_%08x", n, h.Sum32())
}

// StagingDDL returns the statement that creates the temporary staging
// table name: the table's columns plus _src INTEGER and _row BIGINT. On
// PostgreSQL it is dropped at commit.
func (l *Layout) StagingDDL(dialect, name string) (string, error) {
	if err := checkDialect(dialect); err != nil {
		return "", fmt.Errorf("lay out staging: %w", err)
	}
	s := "CREATE TEMPORARY TABLE " + Quote(name) + " (" +
		l.columnDefs(dialect, Quote(srcColumn)+" INTEGER NOT NULL", Quote(rowColumn)+" BIGINT NOT NULL") + "\n)"
	if dialect == Postgres {
		s += " ON COMMIT DROP"
	}
	return s, nil
}

// StagingColumns are the staging table's columns in order: Columns,
// _ingest_seq, _src, _row.
func (l *Layout) StagingColumns() []string {
	out := make([]string, 0, len(l.Columns)+3)
	for _, c := range l.Columns {
		out = append(out, c.Name)
	}
	return append(out, SeqColumn, srcColumn, rowColumn)
}

// MaxSeqSQL selects the table's greatest _ingest_seq, 0 when empty.
func (l *Layout) MaxSeqSQL() string {
	return "SELECT coalesce(max(" + Quote(SeqColumn) + "), 0) FROM " + Quote(l.Table)
}

// DuplicatesSQL selects, for at most limit staged rows whose key an
// earlier staged row already has, (_src, _row, first _src, first _row),
// in input order.
func (l *Layout) DuplicatesSQL(staging string, limit int) string {
	k, src, row := Quote(l.Dataset.Key.Value), Quote(srcColumn), Quote(rowColumn)
	w := "OVER (PARTITION BY " + k + " ORDER BY " + src + ", " + row + ")"
	return "SELECT " + src + ", " + row + ", first_src, first_row FROM (SELECT " + src + ", " + row +
		", row_number() " + w + " AS n, first_value(" + src + ") " + w + " AS first_src, first_value(" + row + ") " + w + " AS first_row" +
		" FROM " + Quote(staging) + ") d WHERE n > 1 ORDER BY " + src + ", " + row + fmt.Sprintf(" LIMIT %d", limit)
}

// StoredSQL selects (_src, _row) of at most limit staged rows whose key
// the table held before the import (a row with _ingest_seq at most base),
// in input order.
func (l *Layout) StoredSQL(staging string, base int64, limit int) string {
	k, src, row := Quote(l.Dataset.Key.Value), Quote(srcColumn), Quote(rowColumn)
	return "SELECT s." + src + ", s." + row + " FROM " + Quote(staging) + " s WHERE EXISTS (SELECT 1 FROM " +
		Quote(l.Table) + " t WHERE t." + k + " = s." + k + fmt.Sprintf(" AND t.%s <= %d", Quote(SeqColumn), base) +
		") ORDER BY s." + src + ", s." + row + fmt.Sprintf(" LIMIT %d", limit)
}

// RepeatsSQL selects how many staged keys repeat an earlier staged key: a
// cheap test before DuplicatesSQL, which sorts.
func (l *Layout) RepeatsSQL(staging string) string {
	return "SELECT count(*) - count(DISTINCT " + Quote(l.Dataset.Key.Value) + ") FROM " + Quote(staging)
}

// KeysDDL returns the statement that creates a temporary table name of
// staged keys alone: key, _src, _row. A backend that appends rows
// straight into the table inside the import's transaction stages only
// their keys, to check them.
func (l *Layout) KeysDDL(dialect, name string) (string, error) {
	if err := checkDialect(dialect); err != nil {
		return "", fmt.Errorf("lay out staging: %w", err)
	}
	s := "CREATE TEMPORARY TABLE " + Quote(name) + " (\n\t" + Quote(l.Dataset.Key.Value) + " " + sqlType(dialect, KindKey) +
		" NOT NULL,\n\t" + Quote(srcColumn) + " INTEGER NOT NULL,\n\t" + Quote(rowColumn) + " BIGINT NOT NULL\n)"
	if dialect == Postgres {
		s += " ON COMMIT DROP"
	}
	return s, nil
}

// InsertSQL moves every staged row into the table.
func (l *Layout) InsertSQL(staging string) string {
	cols := make([]string, 0, len(l.Columns)+1)
	for _, c := range l.Columns {
		cols = append(cols, Quote(c.Name))
	}
	cols = append(cols, Quote(SeqColumn))
	list := strings.Join(cols, ", ")
	return "INSERT INTO " + Quote(l.Table) + " (" + list + ") SELECT " + list + " FROM " + Quote(staging)
}

// ColumnNames returns the names of Columns in order.
func (l *Layout) ColumnNames() []string {
	out := make([]string, len(l.Columns))
	for i, c := range l.Columns {
		out[i] = c.Name
	}
	return slices.Clip(out)
}

// AppendedRepeatsSQL counts the rows numbered above base whose key repeats
// another of them: the cheap test before AppendedDuplicatesSQL, for a
// backend that appends rows straight into the table inside the import's
// transaction.
func (l *Layout) AppendedRepeatsSQL(base int64) string {
	return "SELECT count(*) - count(DISTINCT " + Quote(l.Dataset.Key.Value) + ") FROM " + Quote(l.Table) +
		fmt.Sprintf(" WHERE %s > %d", Quote(SeqColumn), base)
}

// AppendedDuplicatesSQL selects, for at most limit rows numbered above
// base whose key a lower-numbered one of them has, (_ingest_seq, the first
// row's _ingest_seq), in order.
func (l *Layout) AppendedDuplicatesSQL(base int64, limit int) string {
	k, seq := Quote(l.Dataset.Key.Value), Quote(SeqColumn)
	return "SELECT " + seq + ", first_seq FROM (SELECT " + seq + ", row_number() OVER (PARTITION BY " + k + " ORDER BY " + seq +
		") AS n, min(" + seq + ") OVER (PARTITION BY " + k + ") AS first_seq FROM " + Quote(l.Table) +
		fmt.Sprintf(" WHERE %s > %d) d WHERE n > 1 ORDER BY %s LIMIT %d", seq, base, seq, limit)
}

// AppendedStoredSQL selects _ingest_seq of at most limit rows numbered
// above base whose key a row numbered at most base has, in order.
func (l *Layout) AppendedStoredSQL(base int64, limit int) string {
	k, seq, t := Quote(l.Dataset.Key.Value), Quote(SeqColumn), Quote(l.Table)
	return "SELECT n." + seq + " FROM " + t + " n WHERE n." + seq + fmt.Sprintf(" > %d", base) +
		" AND EXISTS (SELECT 1 FROM " + t + " o WHERE o." + k + " = n." + k + " AND o." + seq + fmt.Sprintf(" <= %d)", base) +
		" ORDER BY n." + seq + fmt.Sprintf(" LIMIT %d", limit)
}
