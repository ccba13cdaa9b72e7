// Package metric compiles a request for a governed metric (package
// catalog's semantic models and metrics) into SQL, and re-derives the same
// table by an independent formulation in Go.
//
// A Request names a declared metric, the dimensions to group by, filters
// (a dimension, an operator from a closed set, typed values), a half-open
// window [start, end), a time grain, an order, a limit and the caller's
// scope (values of the catalog's scope entity). Compile checks it against
// the catalog (every name declared and allowed for the metric, every value
// within its dimension's declared values or id pattern) and renders one
// SELECT in the subset DuckDB and PostgreSQL both run (window functions
// with ROWS frames, CASE, COALESCE, NULLIF, GREATEST, LEAST, date_trunc,
// date_part('epoch', ...), positional parameters $1): no name or value from the
// request is written into the SQL text, only the catalog's declared tables
// and columns; values, the window and the scope are parameters.
//
// The compiled query reads, per kind of row set its measures need,
//
//   - rows: every row in the window;
//   - latest: each series' latest row before the window's end (greatest
//     time, then greatest key), the state as of that instant;
//   - seq: each row with its series' next row (a duration measure: the
//     time from the row to the next, or to the window's end, clipped to
//     the window) and previous row (an entries measure: a row meeting the
//     filter whose previous row does not);
//
// and aggregates each kind by the requested groups; a union of the kinds,
// grouped again, gives each metric's formula (a ratio's division by
// NULLIF, a derived metric's expression tree, a cumulative metric's running
// total over buckets). The series computations see every row of a series;
// the scope and the filters then judge each row on its own, so a device
// that moved to another zone is counted in the zone of each of its rows.
//
// Rederive reads the rows with a plain SELECT (no aggregate, window
// function or join) and computes the same table in Go; Verify compares the
// two within the metric's tolerance. That is what a resolver runs.
//
// Every group the contributing rows have is a row of the table; with
// neither dimensions nor buckets there is exactly one row. A cumulative
// metric by bucket has, for every group with a contributing row, a row
// for every bucket the window overlaps (Buckets: a time spine), a bucket
// without rows carrying the group's total on (0 before its first row). Counts, sums,
// durations and entries over no rows are 0; an average, a minimum or a
// maximum over no rows, a ratio or a division by zero, have no value
// (null).
package metric
