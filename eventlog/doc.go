// Package eventlog is the engine's append-only record of what happened:
// typed events with one envelope, a determinism hash over them, durable
// stores, export and verification.
//
// # Events
//
// Every event carries the envelope — id, type, schema version, run id,
// producer, a sequence number dense per (run, producer) from 1, the seed,
// optional causation and correlation ids, a logical time given by the
// producer — and a typed payload (QuestionReceived, ToolInvoked, ...; see
// Types). Each type has a versioned JSON Schema in schemas/ (TYPE.vN.json,
// each referencing envelope.v1.json), embedded and served by Schemas;
// package eventlog/eventschema compiles them. The Go validation
// (Payload.Validate, Decode) and the schemas are held equal by tests over
// every constructor and a corpus of valid and invalid examples.
//
// Three envelope fields are non-deterministic: wall_time, host and pid.
// They are listed, with why, in the committed nondeterministic.json
// (NonDeterministic) and left out of the hash. Wall-clock durations are
// never written into an event: they go to a ProfileSink keyed by event id.
//
// # The log hash
//
// Canonical order is (logical time, producer, seq), then run id. The log
// hash is a SHA-256 chain, not a Merkle tree, over the events in that
// order: h0 is 32 zero bytes and hi = SHA-256(h(i-1) || HashInput(ei)),
// where HashInput is the event's RFC 8785 canonical JSON without the
// non-deterministic fields. In deterministic mode (Options.Deterministic)
// the run id derives from the seed unless given and each event id from
// (seed, run, producer, seq) (EventID), so two runs of the same input
// produce the same hash, whatever the goroutine scheduling, as long as
// each producer appends its own events in order.
//
// # Stores and acknowledgement
//
// A Store appends and scans (MemStore, FileStore; eventlog/postgres and
// eventlog/duckdb in a database; eventlog/eventlogtest is the contract
// suite all of them pass). A store refuses an event whose seq is not the
// next of its (run, producer), or whose logical time goes back
// (CheckNext, ErrSequence). Append returning nil is the acknowledgement:
// for FileStore the event's whole line, newline included, was written
// and fsynced; for a database store, the transaction committed. A torn
// last line was therefore never acknowledged; it is reported on open
// (TailError) and removed only when asked (FileOptions.RepairTornTail).
// A complete line that does not decode may have been acknowledged and is
// reported as corruption (LineError), never dropped. A BatchStore (all
// four) also appends several events at once, all or none: one write and
// one fsync, or one transaction.
//
// A Log commits in groups: Submit gives an event its seq and id and
// queues it; Pending.Wait writes everything queued in one AppendBatch,
// and the waiters that arrive meanwhile share the next write. Wait
// returning nil is the event's acknowledgement. Events are acknowledged
// in the order they were submitted: a failed write fails its events and
// every event queued behind them (ErrAborted), and the producers' seqs
// go back to the last acknowledged ones, so no event is stored after one
// submitted before it that failed. Log.Append is Submit then Wait.
//
// # Export and Verify
//
// Export writes JSON Lines in canonical order and returns the hash and
// the chain. Verify reads JSON Lines (an export or a store file) and
// checks decoding, the schema (with a SchemaValidator), unique ids, dense
// seqs, non-decreasing logical time per producer, causation, canonical
// order (if asked) and the hash; the first bad event is a *VerifyError
// with its index.
//
// The package imports the standard library, RFC 8785 canonicalisation
// (github.com/gowebpki/jcs) and internal/strictjson.
package eventlog
