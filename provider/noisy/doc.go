// Package noisy is a deliberately error-prone provider: a test and
// evaluation instrument, never a model to answer with. It wraps another
// provider (rules by default on the command line) and, at configured
// rates, turns that provider's good work into the mistakes a real model
// makes, so the wall, the resolver, the grounding checker, self-consistency
// and calibrated abstention have something to catch.
//
// Its Name says what it is, "noisy(rules)[rate=0.2,seed=1]", so every
// report, health check and log line that prints the provider labels the
// run as instrumented.
//
// # Faults
//
// Select asks the inner provider, then may perturb its proposal. Each
// fault is decided independently, at its own rate, and those that fire are
// applied in this order (a later one may mask an earlier one):
//
//   - wrong_tool: another tool from the menu, with parameters reused by
//     name from the original proposal or drawn from the same domains (ids
//     seen in the proposal or the question, an enum value the old call
//     used when the new domain has it, a window ending at the old as_of).
//   - wrong_param: one parameter changed to another in-domain value: a
//     different store or product id (one seen in the question, or st-00N /
//     pr-00N), another state or condition, as_of shifted a day either way,
//     a window's start a day earlier or its end a day later.
//   - raw_query: one parameter value gains query syntax, as in
//     st-003' OR '1'='1.
//   - hallucinated_tool: the tool name becomes one that is not on the menu
//     (get_revenue, get_stock_level, ...), parameters kept.
//   - wrong_abstain: no proposal at all.
//
// On a metric tool's proposal (query_metric), three metric-selection
// faults come between wrong_param and raw_query (their rates are 0 under
// Uniform; MetricUniform, the CLI's --metric-noise, sets them):
//
//   - wrong_metric: another declared metric.
//   - wrong_dimension: a grouping dimension replaced by another, or one
//     added.
//   - wrong_window: the window moved back by its own length, or by 364
//     days.
//
// # Repair
//
// The instrument implements provider.Repairer: Repair re-proposes from
// the inner provider's clean work (its Repair, or its Select on the
// question) and repeats each fault Select made on the question, at the
// fault's own rate, from the stream "noisy/repair/<fault>" keyed by
// Select's key and "repair=<attempt>": a fault repeats with the noise's
// own seeded chance, and a fault Select did not make is never made (a
// clean proposal the checks flagged comes back unchanged).
//
// An abstention from the inner provider is passed through untouched: the
// instrument perturbs what the inner model did; it does not invent
// coverage. A fault that cannot apply (wrong_param on a tool the menu does
// not know, wrong_tool on a one-tool menu) leaves the proposal as it was.
//
// Compose asks the inner provider, then may perturb its sentence:
//
//   - fabricated_numeral: one number is replaced by another: plus one, times
//     ten, or a new value, in that order of preference from a random start.
//   - transposed_numeral: two adjacent, different digits of one number are
//     swapped (never producing a leading zero).
//
// Only value numerals are touched: digits inside identifiers (st-003,
// pr-007) and timestamps are left alone, so a sentence without a value
// numeral (a stock state, a compliance flag, "no observation") is
// returned unchanged. A perturbed number always differs by more than 1%
// (relative) from every number in the inner sentence and in the question,
// each also read as cents and as currency units (x100, /100): the
// instrument makes fabrications a checker with an honest-rounding
// tolerance must catch, not roundings or echoes it is right to allow.
//
// # Randomness and replay
//
// Every decision draws from a named stream, a math/rand/v2 PCG seeded
// with Options.Seed and the FNV-1a hash of the stream's name and a
// per-call key (as retail/demo seeds its streams, plus the key): for
// Select the question text as received, followed, when the context
// carries a sample index i other than 0 (provider.WithSample), by a NUL
// and "sample=i"; for Compose the question, the tool and the sorted
// arguments. The stream names are
// "noisy/select/<fault>" and "noisy/compose/<fault>" with the fault names
// above. So:
//
//   - a run replays exactly: the same seed and question get the same
//     noise, whatever the call order, the goroutine scheduling or the
//     wall-clock time, and no map is iterated to choose;
//   - each fault's decision is the first draw of its own stream, so
//     changing one rate never reshuffles another fault's decisions;
//   - asking the same question twice gives the same fault twice: the
//     noise is a property of the question (and the sample index), not of
//     the attempt. A caller that samples several proposals for one
//     question (self-consistency) marks each with provider.WithSample:
//     different indexes draw independent noise, the same index the same
//     noise, and sample 0 the noise of a call with no index, so turning
//     voting on never changes the first proposal.
//
// The Provider is immutable after New and safe for concurrent use.
package noisy
