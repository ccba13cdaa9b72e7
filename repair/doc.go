// Package repair is the pure half of execution verification and repair:
// the closed set of failure classes an executed call can end in, the
// plausibility check a metric's value must pass before it ships, and the
// repair message that goes back to the model when a call fails.
//
// # Failure classes
//
// The classes are answer.FailureClasses: sql_error, empty_result,
// budget_exceeded, permission_denied and schema_violation (a free SQL
// statement's rejections, answer.StatementRejectKinds) and
// implausible_magnitude. This package defines no second set; ParseClass
// reads a class name from that one.
//
// # Plausibility
//
// Check judges a metric's values: a value outside the metric's declared
// domain fails outright (a share outside 0..1). For a metric with no
// bound on a side, when the metric's own history has at least
// Policy.MinHistory points, a value outside the p1..p99 band of that
// history, widened on each side by Policy.Widen times the band's width,
// is out of band: implausible too, but possibly a real special cause, so
// the loop (package pipeline) retries once and ships an unchanged value
// with a note.
//
// # Repair message
//
// Message writes what the model is told: the failure class, the failing
// selection or SQL, the catalog snippet and the metric's definition. It
// never carries a secret: anything shaped like a credential (an API key,
// a bearer token, a password in a DSN, a key=value secret) is replaced by
// [redacted], and every part is bounded in length.
//
// The package imports only the standard library and package answer.
package repair
