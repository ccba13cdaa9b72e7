// Package register is the decision register: an append-only,
// hash-chained record of what was decided, on what, by whom, under which
// approval, and later what came of it.
//
// # Records
//
// A decision record carries the decision id, the logical time, the
// question or task it is about, the actor and the autonomy tier it acted
// under, the alternatives considered (each with an id, a description, the
// change it would make, its projected effect with an interval, its cost
// and score), the alternative chosen, the inputs as result ids, the
// expected outcome, the constraints, the approver (or none), the model and
// policy versions, and the seed. An outcome is never written into the
// decision: it is back-filled by appending an outcome record that names
// the decision's id. Record.Validate checks every field; Register.Append
// also refuses an id already in the register and an outcome of anything
// but an earlier decision (*RefError).
//
// # The chain
//
// Every record carries prev, the hash of the record before it
// (GenesisHash, 64 zeros, for the first), and hash:
//
//	hash = SHA-256(prev as 32 bytes || canonical JSON of the record without "hash")
//
// both written as 64 lowercase hex digits. The canonical JSON is RFC 8785
// (JCS: members sorted by their UTF-16 code units, no white space, numbers
// in their shortest ECMAScript form, strings with only the mandatory
// escapes). Editing, inserting, removing or reordering a record breaks the
// chain at that record or the one after it; Verify recomputes every hash
// and link and reports the first record that fails, by index and id
// (*VerifyError). A writer able to rewrite the whole store can rewrite the
// whole chain: publish Head (the count and last hash) where the writer
// cannot edit it, and a later verification shows whether the register
// still ends there.
//
// # The file format (version 1)
//
// A register file is UTF-8 text, one record a line, each line exactly the
// record's canonical JSON followed by a single newline (0x0A), the last
// line included. Members, in canonical order:
//
//	actor           string, an id
//	approver        string, an id; absent when no one approved
//	decision        object, for kind "decision" only:
//	  alternatives  array of {change, cost, description, effect{estimate, high, low, unit?}, id, score}
//	  chosen        string, the id of one alternative
//	  constraints   array of strings; absent when empty
//	  expected      string
//	  inputs        array of result ids; absent when empty
//	hash            string, 64 lowercase hex digits
//	id              string, an id, unique in the register
//	kind            "decision" or "outcome"
//	model_version   string, an id
//	outcome         object, for kind "outcome" only:
//	  decision      string, the id of an earlier decision record
//	  inputs        array of result ids; absent when empty
//	  observed      string
//	policy_version  string, an id
//	prev            string, 64 lowercase hex digits
//	question        string, an id (exactly one of question and task)
//	seed            string, the seed as a decimal uint64 (a string, so every uint64 is exact)
//	task            string, an id (exactly one of question and task)
//	tier            "L1", "L2" or "L3"
//	time            number, the logical time, an integer from 0 to 2^53-1
//
// An id is 1 to 128 bytes of letters, digits and . _ : @ / + -; text is
// valid UTF-8 of at most 4096 bytes; numbers are finite. A Decoder accepts
// a line only if it is exactly what Canonical writes of the record it
// decodes to: any other spelling of a record (spacing, key order, a key in
// another case, a repeated or unknown key, another escape or number form,
// invalid UTF-8) is a *DecodeError naming the line. So a file that loads
// is byte for byte what Export writes, and a changed byte anywhere in a
// record's line either fails decoding at that line or fails Verify at
// that record. testdata/v1.jsonl is a committed file of this version that
// every later version must still read and verify.
//
// # Stores
//
// A Store appends and scans in order; its Append is a compare-and-append
// on the head hash, so several writers (several processes over one
// database) keep one linear chain: a Register that finds the head moved
// reads and checks what the others appended and tries again. A store
// that can hold its head while a record is linked (a database row lock)
// is a LockingStore, and a Register then waits on it instead of retrying.
// MemStore is the in-memory Store; register/postgres and register/duckdb
// are the database stores, and register/registertest the contract suite
// all of them pass. The package imports the standard library and
// github.com/gowebpki/jcs only.
package register
