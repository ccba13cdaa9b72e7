// Package sandbox is the policy of free SQL: the statements a model may
// propose for a question no tool or metric covers, and the limits they
// run under. It is standard library only; the parts that need DuckDB (its
// parser, the worker process, the snapshot) live in sandbox/duckdb.
//
// A statement is judged on the syntax tree DuckDB's own parser gives it
// (json_serialize_sql, which serializes SELECT statements only). Check
// walks that tree and accepts it only when it is exactly one query that
// reads only the tables of a Policy (a CTE's name is visible only where
// SQL scopes it; a schema- or catalog-qualified name is never a CTE, and
// only the "main" schema is admitted), calls only the policy's functions
// and table functions, and uses no construct outside the closed set it
// knows (no parameters, no recursive CTEs, no samples, no time travel, no
// SHOW or DESCRIBE). Anything it does not recognise is refused.
//
// A refusal is a *Rejection: a Layer (where it was stopped), a Class
// (permission_denied, schema_violation, budget_exceeded, sql_error), the
// Kind of thing refused ("table", "function", ...) and its byte position
// in the statement. It never carries the statement's text or a name taken
// from it, so that it can be shown to the caller who wrote the statement.
//
// What the sandbox guarantees, and what it does not: a statement that
// passes reads only the allowlisted tables, cannot write, cannot reach the
// file system or the network, and is stopped by a deterministic budget of
// rows processed. Whoever can run SQL here can still read every row of
// every allowlisted table; the allowlist is the whole of the protection
// of the data in it.
package sandbox
