// Package budget accounts for what a run may spend: a budget of five
// components, reserved before work and settled after it.
//
// The components are
//
//   - usd: money, in integer micro-dollars (Micros);
//   - tokens: model tokens, prompt and completion together;
//   - tool_calls: tool invocations;
//   - sim_seconds: simulated seconds, the clock of a simulation the run
//     drives (never the wall clock);
//   - rows_scanned: rows the run's queries read.
//
// Every component counts something the run itself produces, so two runs of
// the same input spend the same; there is no wall-clock component.
//
// # Money
//
// usd is an integer count of micro-dollars, not a float64 and not a
// decimal type. The accounting invariant below is an equality, and it only
// holds exactly in integer arithmetic: float64 sums drift (0.1+0.2 is not
// 0.3), and a big.Rat would allocate on every operation and is not
// comparable. A micro-dollar is finer than any charge the pipeline books:
// a model call is charged as its token counts times a price per million
// tokens, rounded up to the next micro-dollar, so a budget never
// under-counts. ParseUSD reads a decimal amount exactly ("0.25" is
// 250000); more than six decimal places is an error, never a rounding.
//
// # Reservations
//
// A Budget holds a total. Reserve takes an Amount from what remains only
// when every component fits; otherwise nothing is taken and the error is a
// *DeniedError naming every component that does not fit, wrapping
// ErrExhausted. A denial is never queued. Settle hands back a reservation
// with what was actually used: the unused part returns to the remainder,
// the used part is spent. Using more than was reserved is an
// *OverrunError, and the reservation is left as it was: usage is never
// silently clamped.
//
// # Parents and children
//
// A session's budget is a parent; each question gets a child carved out of
// it (Child), and Close gives the child's remainder back. Reallocate moves
// an unreserved amount between two children of one parent, or between a
// child and its parent. A parent and all its descendants share one lock,
// so every operation on the tree is atomic and Snapshot sees a consistent
// state.
//
// On every budget and every component, at every moment:
//
//	remaining + reserved + allocated + spent == total
//
// where reserved is the sum of the budget's live reservations, allocated
// the totals of its open children, and spent what settled reservations
// (and closed children) used; remaining is never negative, so nothing is
// ever granted beyond what remains.
//
// # Prices
//
// Config.Prices gives each model's Price: micro-dollars per million
// tokens, input and output apart. Price.Cost charges tokens exactly, in
// 128-bit integer arithmetic, rounded up to the next micro-dollar.
// NeedPrice says whether a model's tokens can be charged.
//
// # Stores
//
// A session's budget can be kept outside the process that spends it: a
// Store keeps an Account (total, remaining, reserved, spent) per scope,
// reserving atomically when every component fits and settling a
// reservation's unused part back (see store.go). MemStore keeps accounts
// in memory; budget/postgres and budget/duckdb in a state database, where
// several processes draw from one account and a restart finds it; all
// pass budget/budgettest. A Session is one scope of a store.
//
// # Events
//
// Options.OnEvent receives an Event for every operation that took effect
// and every denial (budget.reserved, budget.exceeded, budget.settled, ...),
// in the order they took effect, so the pipeline can put them in its event
// log. It is called with the tree's lock held and must not call back into
// the budget.
//
// # Configuration
//
// FromMap reads the per-session and per-question budgets, and the
// optional prices, from the map a
// YAML or JSON decoder made of a file (the command line parses YAML with
// goccy/go-yaml, keeping each amount's text, so none is rounded).
// Every budget must name all five components: an unknown key is an error
// naming the nearest valid one, a missing component is an error naming it,
// and a negative amount is an error. The package imports only the standard
// library.
package budget
