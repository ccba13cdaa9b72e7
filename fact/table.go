package fact

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"time"
)

// CellType is the type of a table column's cells.
type CellType string

// The cell types.
const (
	CellText    CellType = "text"    // a string
	CellInstant CellType = "instant" // a UTC instant, written 2006-01-02T15:04:05Z
	CellNumber  CellType = "number"  // a finite float64 in the column's unit
)

// Column is one column of a table: its name, its cells' type, and, for a
// number, its unit ("share", "seconds", "count"), or "".
type Column struct {
	Name string   `json:"name"`
	Type CellType `json:"type"`
	Unit string   `json:"unit,omitempty"`
}

// Cell is one typed cell; a cell that is not Valid is null (an empty
// dimension, a value over nothing).
type Cell struct {
	Valid   bool
	Text    string    // CellText
	Instant time.Time // CellInstant, UTC
	Num     float64   // CellNumber, finite
}

// TextCell is a text cell.
func TextCell(s string) Cell { return Cell{Valid: true, Text: s} }

// InstantCell is an instant cell (in UTC).
func InstantCell(t time.Time) Cell { return Cell{Valid: true, Instant: t.UTC()} }

// NumberCell is a number cell; -0 is written 0.
func NumberCell(x float64) Cell {
	if x == 0 {
		x = 0
	}
	return Cell{Valid: true, Num: x}
}

// NullCell is a null cell.
func NullCell() Cell { return Cell{} }

func (c Cell) equal(d Cell) bool {
	if !c.Valid || !d.Valid {
		return c.Valid == d.Valid
	}
	return c.Text == d.Text && c.Instant.Equal(d.Instant) && c.Num == d.Num
}

func (c Cell) shape(t CellType) any {
	if !c.Valid {
		return nil
	}
	switch t {
	case CellInstant:
		return c.Instant.UTC().Format("2006-01-02T15:04:05Z")
	case CellNumber:
		return c.Num
	}
	return c.Text
}

// Table is a table value: named, typed columns and rows of cells, one
// cell per column. Its JSON shape is
//
//	{"columns": [{"name": "zone", "type": "text"},
//	             {"name": "value", "type": "number", "unit": "share"}],
//	 "rows": [["zone-01", 0.5714], ["zone-02", null]]}
//
// a text cell a string, an instant a string in the timestamp layout, a
// number a JSON number, a null cell null.
type Table struct {
	Columns []Column
	Rows    [][]Cell
}

// ErrBadTable is returned by NewTable for a malformed table.
var ErrBadTable = errors.New("table is malformed")

// NewTable checks a table: at least one column, known cell types, unique
// non-empty column names, every row as wide as the columns, every number
// finite. The table keeps the slices: do not modify them afterwards.
func NewTable(cols []Column, rows [][]Cell) (*Table, error) {
	if len(cols) == 0 {
		return nil, ErrBadTable
	}
	for i, c := range cols {
		if c.Name == "" || slices.ContainsFunc(cols[:i], func(d Column) bool { return d.Name == c.Name }) {
			return nil, ErrBadTable
		}
		if c.Type != CellText && c.Type != CellInstant && c.Type != CellNumber {
			return nil, ErrBadTable
		}
	}
	for _, r := range rows {
		if len(r) != len(cols) {
			return nil, ErrBadTable
		}
		for j, c := range r {
			if c.Valid && cols[j].Type == CellNumber && (math.IsNaN(c.Num) || math.IsInf(c.Num, 0)) {
				return nil, ErrNotFinite
			}
		}
	}
	return &Table{Columns: cols, Rows: rows}, nil
}

// TableValue is a table as a value.
func TableValue(t *Table) Value { return Value{Kind: KindTable, Observed: true, Table: t} }

// IsZero reports whether the table holds no number other than zero (no
// rows, or only zeros and nulls): a grounded zero.
func (t *Table) IsZero() bool {
	if t == nil {
		return true
	}
	for _, r := range t.Rows {
		for j, c := range r {
			if t.Columns[j].Type == CellNumber && c.Valid && c.Num != 0 {
				return false
			}
		}
	}
	return true
}

// Equal reports whether two tables have the same columns and cells (two
// nil tables are equal).
func (t *Table) Equal(u *Table) bool {
	if t == nil || u == nil {
		return t == u
	}
	return slices.Equal(t.Columns, u.Columns) && slices.EqualFunc(t.Rows, u.Rows, func(a, b []Cell) bool {
		return slices.EqualFunc(a, b, Cell.equal)
	})
}

// MarshalJSON writes the documented shape.
func (t *Table) MarshalJSON() ([]byte, error) {
	rows := make([][]any, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = make([]any, len(r))
		for j, c := range r {
			rows[i][j] = c.shape(t.Columns[j].Type)
		}
	}
	cols := t.Columns
	if cols == nil {
		cols = []Column{}
	}
	return json.Marshal(struct {
		Columns []Column `json:"columns"`
		Rows    [][]any  `json:"rows"`
	}{cols, rows})
}
