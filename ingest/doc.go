// Package ingest imports rows into the table behind a catalog's `table:`
// dataset, strictly: every row is validated against the dataset's
// declaration before anything is stored, and an import is one
// transaction, so nothing is half-imported on any error.
//
// # Stored layout
//
// The table has the same layout on DuckDB and PostgreSQL (Layout.DDL): the
// key column (VARCHAR on DuckDB, TEXT COLLATE "C" on PostgreSQL: every text column there sorts bytewise, as Go and DuckDB do), the time column
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
// and records with named columns (a Parquet file read through DuckDB) in
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
// PostgreSQL) and commits only when every row is valid and no key repeats:
// reading and validating run on one goroutine, appending on another. The
// first MaxErrors problems are reported, all of them, with nothing stored.
// A backend numbers rows from the table's greatest _ingest_seq up, all in
// one transaction, and checks keys with set operations, never row by row:
//
//   - store/postgres COPYs the rows, with their input and row numbers,
//     into a temporary staging table (StagingDDL); CheckKeys finds keys
//     repeated within the import (a count of distinct keys first, a window
//     function only when it differs) and keys already stored (one EXISTS
//     the unique key index serves); Finish moves the rows into the table
//     with one INSERT ... SELECT and creates the indexes (after the rows:
//     building an index once is cheaper than maintaining it row by row).
//   - store/duckdb appends the rows straight into the table with DuckDB's
//     Appender, which takes part in the transaction; CheckAppended runs
//     the same two checks over the rows numbered above the old maximum,
//     and a rollback drops them.
//
// The SQL (Layout's ...SQL methods) is portable: CREATE TABLE/INDEX IF NOT
// EXISTS, temporary tables, window functions, EXISTS, INSERT ... SELECT,
// information_schema.
package ingest
