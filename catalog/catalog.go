// Package catalog declares the data and the tools a provenant engine
// serves: one YAML file names a source's datasets (a table or Parquet/CSV
// files, with a key column, a time column, entities, attributes and named
// conditions) and its tools, each an instance of a closed set of shapes.
//
// A catalog may also declare governed metrics (metric.go), shaped like dbt
// MetricFlow: semantic models over a dataset (dimensions and measures) and
// metrics built from the measures (simple, ratio, derived over a closed
// expression tree, cumulative), each with a fixture file beside the
// catalog. Package metric compiles them; nothing here is SQL.
//
// Parse decodes a catalog strictly: an unknown or duplicate key, a value of
// the wrong type, or broken YAML is an error at its file, line and column,
// and an unknown key names the nearest valid one. Validate then checks the
// references between fields. Load does both. Every failure is an ErrorList,
// sorted by position, that matches ErrInvalid.
//
// Names of catalogs, datasets, entities, attributes, tools and filter
// parameters are snake_case (^[a-z][a-z0-9_]*$); condition names are upper
// snake case (^[A-Z][A-Z0-9_]*$) because callers pass them as enumerated
// values, as they do an enumerated attribute's values.
package catalog

// Pos is a 1-based position in a catalog file.
type Pos struct{ Line, Column int }

// Ref is a string value from the file with its position.
type Ref struct {
	Value string
	Pos   Pos
}

// Catalog is one catalog file.
type Catalog struct {
	File    string
	Name    Ref
	Version Ref
	// Description names the data the tools answer over ("the shelf-scan
	// data"); optional.
	Description Ref
	ScopeEntity Ref // the entity whose values a principal's scope lists
	// Currency is the ISO 4217 code (lowercase) that cents and whole
	// currency amounts are shown in; optional.
	Currency Ref
	Datasets []*Dataset
	Tools    []*Tool
	// Prompts are the catalog's MCP prompts: instructions a client's user
	// starts a task from; optional.
	Prompts []*Prompt
	// SemanticModels declare the dimensions and measures governed metrics
	// are built from; optional.
	SemanticModels []*SemanticModel
	// Metrics are the governed metrics (see metric.go); optional.
	Metrics []*Metric
	// SQL is the `sql:` section: the deny list and a hand-written copy
	// of the read allowlist (sql.go); nil when absent.
	SQL *SQL
	// Writes is the `writes:` section: whether write tools are served
	// (write.go); nil when absent, which means they are not.
	Writes *Writes
}

// Prompt is a prompt template over the catalog's tools: text with {name}
// placeholders for its arguments, each of which takes the domain of a
// tool parameter of the same name.
type Prompt struct {
	Pos         Pos
	Name        Ref
	Description Ref
	Arguments   []*PromptArgument
	Text        Ref
}

// PromptArgument is one argument of a prompt: Name is a parameter of Tool,
// whose domain (an entity's ids, an instant, enumerated values) the value
// must be in.
type PromptArgument struct {
	Pos         Pos
	Name        Ref
	Tool        Ref
	Description Ref // shown to the client; the parameter's own when empty
}

// Dataset is one table, or one set of Parquet or CSV files, of events.
type Dataset struct {
	Pos   Pos
	Name  Ref
	Table Ref // a table name; exactly one of Table and Files is set
	Files Ref // a Parquet or CSV path or glob
	Key   Ref // the provenance id column: unique and stable
	// RowName is what one row is called in descriptions ("scan",
	// "event"); "row" when unset.
	RowName Ref
	Time    Ref // the event time column
	// Series lists the entities whose tuple identifies a series: "latest"
	// means the latest row per series (greatest time, then greatest key).
	Series     []Ref
	Entities   []*Entity
	Attributes []*Attribute
	Conditions []*Condition
}

// Entity is an id column.
type Entity struct {
	Pos       Pos
	Name      Ref
	Column    Ref // also the parameter name tools take for it
	Pattern   Ref // a Go regexp anchored with ^ and $ that every id matches
	Reference *Reference
	// Nouns are the words a question names the entity with ("store",
	// "shop"): "store 3" is the declared id carrying the number 3.
	// Optional.
	Nouns []Ref
}

// Reference is a table that declares an entity's ids and display names.
type Reference struct {
	Pos         Pos
	Table       Ref
	Files       Ref
	ID          Ref // the id column
	DisplayName Ref // the display-name column
	// Columns are further text columns of the reference table (a
	// product's category), which metric dimensions may join; optional.
	Columns []Ref
}

// Attribute is an enumerated column (Values set) or a numeric one (Unit
// set); exactly one of the two.
type Attribute struct {
	Pos      Pos
	Name     Ref
	Column   Ref
	Values   []Ref
	Unit     Ref
	Type     Ref  // numeric only: "integer" or "number" (the default)
	Optional bool // the column may be empty (null) on some rows
	// Synonyms are, for values of an enumerated attribute, the everyday
	// words a question names them with ("in stock", "available" for
	// IN_STOCK), in declared order. Optional.
	Synonyms []*Synonyms
}

// Synonyms are the phrases that name one enumerated value: lowercase
// words separated by single spaces, hyphens or apostrophes.
type Synonyms struct {
	Pos     Pos
	Value   Ref
	Phrases []Ref
}

// Enumerated reports whether the attribute lists its values.
func (a *Attribute) Enumerated() bool { return a.Values != nil }

// Condition is a named predicate over a dataset's attributes.
type Condition struct {
	Pos  Pos
	Name Ref
	// Synonyms are the phrases a question names the condition with
	// ("wrong price", "mispriced"). Optional.
	Synonyms []Ref
	Predicate
}

// Predicate is either a comparison (Attribute, Op, Value) or a combination
// (exactly one of Any and All, each non-empty). It is never SQL text.
type Predicate struct {
	Pos       Pos
	Attribute Ref
	Op        Ref
	Value     *Value
	Any       []*Predicate
	All       []*Predicate
}

// Value is a comparison's right-hand side: one scalar, or a list of them
// (for in and not_in).
type Value struct {
	Pos    Pos
	IsList bool
	Items  []Scalar
}

// Scalar is a string or a number.
type Scalar struct {
	Pos   Pos
	IsNum bool
	Str   string
	Num   float64
}

// Tool is one tool of the menu: an instance of a shape over a dataset.
type Tool struct {
	Pos         Pos
	Name        Ref
	Description Ref
	Shape       Ref
	Class       Ref
	Dataset     Ref
	Attribute   Ref // latest_value: the attribute returned
	Entity      Ref // count_entities_where: counted; list_entities_in_state: listed
	At          Ref // list_entities_in_state, count_rows_in_window: the fixed entity
	Filter      *Filter
	Phrasings   []Ref
	// Keywords are phrases any of which marks a question as asking for
	// this tool ("price", "how much"), whatever the order of its words:
	// the model-free parser's vocabulary beside the slots' own words.
	// Optional.
	Keywords []Ref
	Answer   *Answer
	// Tier and Effect are the tool's autonomy tier (L1, L2, L3) and
	// side-effect class (none, simulate, write); unset means L1 and none
	// (see write.go).
	Tier   Ref
	Effect Ref
	// Task is an append_task tool's task: what row it appends.
	Task *Task
}

// Answer holds the sentence templates (package phrase) an answer is
// rendered from by code: Value for an answer, None for a grounded zero
// (no observation, a count of 0, an empty list; Value when unset).
type Answer struct {
	Pos   Pos
	Value Ref
	None  Ref
	// Check is the sentence of a yes/no question about an enumerated
	// value ("is pr-007 in stock?"), for latest_value over an enumerated
	// attribute: it may write {asked} and {match?yes|no} beside {value}.
	// Optional.
	Check Ref
}

// Filter is a tool's filtering parameter: named Param, ranging either over
// an enumerated attribute's values (Attribute, optionally narrowed to
// Values) or over named conditions of the dataset (Conditions).
type Filter struct {
	Pos   Pos
	Param Ref
	// Description describes the parameter in schemas; a default is
	// derived when unset.
	Description Ref
	Attribute   Ref
	Values      []Ref
	Conditions  []Ref
}

// The tool shapes. "Latest" is always per series (Dataset.Series): the row
// with the greatest time at or before as_of, ties going to the greatest
// key. Each shape has a grounded zero, an answer and not a default.
const (
	// ShapeLatestValue returns Attribute from the latest row of one series
	// (parameters: the series' entity columns and as_of). Class scalar.
	// Zero: no row at or before as_of is "no observation" (null).
	ShapeLatestValue = "latest_value"
	// ShapeCountEntitiesWhere counts the distinct values of Entity over
	// the series whose latest row meets the condition chosen by Filter,
	// with the ids. Class aggregate. Zero: a count of 0 and no ids.
	ShapeCountEntitiesWhere = "count_entities_where"
	// ShapeListEntitiesInState lists, sorted, the values of Entity over
	// the series whose latest row is at the given At value and in the
	// state chosen by Filter. Class list. Zero: an empty list.
	ShapeListEntitiesInState = "list_entities_in_state"
	// ShapeCountRowsInWindow counts every row (not just the latest) at the
	// given At value meeting Filter in the half-open window [start, end).
	// Class window. Zero: a count of 0.
	ShapeCountRowsInWindow = "count_rows_in_window"
	// ShapeAppendTask appends one task row to the catalog's tasks table
	// (Writes.Tasks): the task's kind, the ids of Task.Entities, a
	// quantity and a client-supplied request key. Class action. It is a
	// write: tier L3, effect write, served only when writes are enabled.
	ShapeAppendTask = "append_task"
)

// shapeClass is the question class each shape's tools declare.
var shapeClass = map[string]string{
	ShapeLatestValue:         "scalar",
	ShapeCountEntitiesWhere:  "aggregate",
	ShapeListEntitiesInState: "list",
	ShapeCountRowsInWindow:   "window",
	ShapeAppendTask:          "action",
}

// Shapes returns the closed set of tool shapes.
func Shapes() []string {
	return []string{ShapeLatestValue, ShapeCountEntitiesWhere, ShapeListEntitiesInState, ShapeCountRowsInWindow, ShapeAppendTask}
}

// Classes returns the closed set of question classes.
func Classes() []string { return []string{"scalar", "aggregate", "list", "window", "action"} }

// Ops returns the closed set of comparison operators.
func Ops() []string { return []string{"eq", "ne", "in", "not_in", "lt", "le", "gt", "ge"} }

// Units returns the closed set of numeric units: cents (of the source's
// currency), count, percent; a currency as a lowercase ISO 4217 code (whole
// units); and physical units (percent_charge is a battery's state of
// charge, 0 to 100).
func Units() []string {
	return []string{
		"cents", "count", "percent",
		"usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "cny", "inr", "sek", "nok", "dkk",
		"celsius", "percent_charge", "meters", "seconds", "kilograms", "volts",
	}
}

// Currencies returns the closed set of currency codes a catalog may show
// money in.
func Currencies() []string {
	return []string{"usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "cny", "inr", "sek", "nok", "dkk"}
}

// Types returns the closed set of numeric attribute types.
func Types() []string { return []string{"integer", "number"} }
