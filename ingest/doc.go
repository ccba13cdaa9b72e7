// Package ingest imports rows into the table behind a catalog's `table:`
// dataset, strictly: every row is validated against the dataset's
// declaration before anything is stored, and an import is one
// transaction, so nothing is half-imported on any error.
//
// # Stored layout
//
// The table has the same layout on DuckDB and PostgreSQL (Layout.DDL): the
// key column (VARCHAR on DuckDB, TEXT on PostgreSQL), the time column
// (TIMESTAMP, UTC, without a time zone), one column per entity (text), one
// per attribute (text for an enumerated attribute, BIGINT for a numeric one
// of type integer, DOUBLE PRECISION for type number), and _ingest_seq
// BIGINT. Optional attributes are nullable; every other column is NOT
// NULL. _ingest_seq numbers the rows of every import into the table: an
// import of n rows gets max+1 .. max+n, so the table's greatest
// _ingest_seq is a watermark of what it holds (the data_version an
// answer reports).
//
// # Input
//
// NewJSONL, NewCSV and NewRecords read JSON Lines, CSV (with a header row)
// and named text records (such as a Parquet file read through DuckDB) in
// constant memory, validating each row: every declared column present, no
// other column, a non-empty key, an RFC 3339 UTC time ending in Z, entity
// ids matching the entity's pattern, enumerated values among the declared
// ones, numbers that parse (an integer attribute rejects fractions), and
// empty or null only for an optional attribute. A problem is a *RowError
// naming the row and the column, never the value.
//
// # Storing
//
// Import reads every input into one Batch of a Sink (a backend: DuckDB or
// PostgreSQL) and commits only when every row is valid. The batch stages
// rows in a temporary table with their input and row number; Commit then
// finds keys repeated within the import and keys already stored with one
// query each (an anti-join against the table's key, which an index serves
// on PostgreSQL), and moves the staged rows into the table with one
// INSERT ... SELECT, all in one transaction. Layout's DuplicatesSQL,
// StoredSQL and InsertSQL are that SQL, shared by the backends.
package ingest
