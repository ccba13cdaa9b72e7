// Package memory is an agent's memory as a provenance journal, and the
// read path that resolves it into a belief sheet: what the agent should
// currently believe, and why. It imports only the standard library and
// github.com/gowebpki/jcs (RFC 8785 canonical JSON), so it can be copied
// into another project alone; persistence lives in leaf packages that
// implement Store (memstore, in memory; memory/duckdb and memory/postgres).
// Recall checks claims carrying provenance against the engine through a
// Rerunner (memory/enginecheck implements it over the pipeline).
//
// # The journal
//
// A Record is appended, never changed: a key, the agent that wrote it, a
// Kind, an optional target (another record's key), the statement, a
// subject and tags, an optional class id (records sharing a class are
// alternatives of one question), Stated (the author asserts a correction
// outright), a logical time, a validity interval, a relevance score that
// decays with age (Relevance), and provenance handles into the engine
// (result ids, the tool call, row keys, the data version) when the claim
// came from an answer. Observation, claim and note are targetless kinds;
// confirm, retract and supersede are targeted. Validate judges a record
// before it is appended; a targeted record without a target read back
// from a store is corrupt evidence: never surfaced, counted and warned.
// Each record has a Visibility beside it: scoped to one agent, requiring
// tags, limited to purposes, or open.
//
// # Retrieval, then resolution
//
// Read is the assembler. It asks the Store for the candidates a query's
// cues match (Retrieval.Admits: subject, tags, text; the partition of
// agents; written by and valid at as_of; not excluded), in the declared
// rank order (Less: decayed relevance, then recency, then key), reads
// their visibility in one batch, keeps what the Reader may see, pulls
// more when the gate left the sheet short (at most the policy's
// max_backfill_pulls), selects max_items, reads each one's annotation
// chain, and hands them to Resolve. A trace records each selected
// candidate's key, rank, score and source.
//
// Resolve is a pure function of the selected records, their chains and
// the Policy: a retract drops its target wherever it appears; a supersede
// collapses its target onto it (the winner lists what it supersedes);
// competing supersedes are settled by the policy's prefer (self-stated,
// confirmed, recent), and a complete tie is an unresolved contradiction,
// warned and shown as disjunct claims; a selected supersede whose target
// did not rank is a claim of its own; confirmations are counted; claims
// sharing a class surface together, each naming the others in
// disjunct_with; ranks follow the final order; each claim's staleness is
// its decayed relevance at as_of, flagged stale below the threshold.
//
// # The reader gate
//
// Every read names a Reader; none is a *CallerError (ErrNoReader). A
// record scoped to an agent is visible to that agent only; required tags
// must be held by the reader (all, or any under MatchAny); listed purposes
// must include the reader's. Annotations in a chain are gated too, but for
// retracts, which drop what they target whoever reads. Any failure while
// deciding visibility fails closed: an empty sheet and a
// visibility_undecided warning, never a fall back to unscoped reading.
//
// # Policy
//
// ParsePolicy reads the plain document with exactly the keys prefer,
// staleness_threshold, gate_overfetch_multiplier and max_backfill_pulls;
// an unknown key or an invalid value is a warning and the default stands.
//
// # Replay
//
// A Sheet's Canonical form is RFC 8785 JSON with no wall-clock field:
// the same journal snapshot, query, reader and policy give the same bytes.
package memory
