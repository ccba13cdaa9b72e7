// Package eval is the harness that scores the engine against a gold set:
// it drives every question through the same pipeline the CLI and HTTP use
// and scores each answer on two axes, correctness and provenance, then
// reports four gates.
//
// # The gold file
//
// A gold file is one YAML document (goccy/go-yaml, decoded strictly). The
// embedded default, retail-demo-v1.gold.yaml in this directory, is the gold
// set for the embedded demo store; it lives next to the code rather than in
// testdata because the binary ships it (`provenant eval` runs it by
// default), as retail/demo ships its store file.
//
//	suite_version: "retail-demo-v1.gold.1"   # this suite's version; bump when items change
//	dataset_version: "retail-demo-v1"        # the store the expectations hold for
//	items:
//	  - id: "state-tie"                      # unique; lower case, digits, . _ -; at most 64
//	    question: "What is the stock state of pr-023 at st-002 as of 2026-01-05T15:49:57Z?"
//	    coverage: "in"                       # in: a tool covers it; out: none does
//	    tags: ["tie", "as_of_exact"]         # optional: what the item exercises
//	    note: "evt-002642 and evt-002643 share a timestamp: the higher id wins"  # optional, for people
//	    expect:
//	      outcome: "answered"                # answered | absence | rejected (in); abstained (out)
//	      tool: "get_stock_state"            # the expected validated call ...
//	      params:                            # ... with exactly the tool's parameters
//	        as_of: "2026-01-05T15:49:57Z"
//	        product_id: "pr-023"
//	        store_id: "st-002"
//	      value: "LOW_STOCK"                 # the answer's value in its JSON shape (below)
//	      event_ids:                         # the complete provenance, sorted
//	        - "evt-002643"
//
// value has the shape of the answer object's "value" for the tool: a
// string for get_stock_state and get_compliance_flag, an integer (cents)
// for get_price, null for no observation; {count, store_ids} for
// count_stores_with_condition; {product_ids} for list_products_in_state;
// {count} for count_events_in_window. It is compared structurally with the
// answer's JSON value, so key order and layout do not matter.
//
// Rules (Validate), each failure an *Error naming the item, the field and
// the line and column, without repeating the offending value:
//   - Unknown keys, duplicate keys, anchors, aliases, merge keys, more than
//     one document and wrong types are parse errors (Parse).
//   - An out item expects outcome abstained and nothing else.
//   - An in item expecting answered or absence has a registered tool,
//     exactly its parameters with values in their domains (start <= end),
//     and a value of the tool's shape. The outcome is absence exactly when
//     the value is a grounded zero (null, a count of 0, an empty list);
//     then event_ids is absent (the provenance is an absence attestation).
//     Otherwise event_ids is non-empty, sorted, unique, and consistent with
//     the value: one id for a scalar, one per event counted or product
//     listed, at least one per store counted.
//   - An in item expecting rejected names the rejection (unregistered,
//     invalid or raw_query) and optionally the registered tool called; it
//     has no params, value or event_ids.
//   - No item expects error: a gold set describes correct behaviour.
//
// The default file is generated, not hand-written: eval/gold_test.go holds
// the source list of questions, finds the interesting cases (timestamp
// ties, events exactly at as_of or at a window's edges, unscanned pairs)
// by scanning the demo store, and computes every expectation with package
// eval/internal/oracle, a naive linear scan that imports neither the
// executor nor the resolver nor any store backend (a test checks its
// dependencies). `go test ./eval -run TestGoldFile -update` rewrites the
// file; without -update the test fails if the committed file differs from
// what the oracle computes now.
//
// # Phrasing suites
//
// A phrasing suite asks questions as people ask them (issue 9): free word
// order, names for ids, everyday words for states and conditions, and
// relative time. Three keys serve it; the embedded
// retail-phrasing-v1.gold.yaml uses all three:
//
//	suite_version: "retail-phrasing-v1.gold.1"
//	dataset_version: "retail-demo-v1"
//	now: "2026-01-07T15:30:00Z"              # the clock relative times resolve against
//	items:
//	  - id: "today-out"
//	    question: "how many times was st-003 out of stock today?"
//	    coverage: "in"
//	    family: "window_today"               # what the item exercises (closed set)
//	    expect: ...                          # as above: start 2026-01-07T00:00:00Z, end now
//	  - id: "ambiguous-milk"
//	    question: "is milk in stock at st-003?"
//	    coverage: "out"
//	    family: "abstain_ambiguous"
//	    expect:
//	      outcome: "abstained"
//	      reason: "ambiguous"                # no_tool | missing_slot | ambiguous | unknown_name
//	      slot: "product"                    # the slot the reason names (all but no_tool)
//	      candidates: ["pr-001", "pr-007"]   # optional, ambiguous only: ids the reason must name
//
// now (GoldSet.Now; zero when absent) is a UTC timestamp written like
// every tool parameter (2006-01-02T15:04:05Z); anything else is a parse
// error. A runner asks every question with that clock (Target.WithNow
// attaches it to each question's context), so "today" in the file means
// the same day on every machine.
//
// family is one of Families; "" when absent. A relative family
// (instant_now, instant_yesterday, window_today, window_yesterday,
// window_this_week, window_last_week, window_last_n, window_since) needs
// the set's now. A family abstain_R belongs to an out item whose
// expect.reason is R, and every out item with a family has such a family.
//
// reason, slot and candidates belong to out items (outcome abstained)
// only. slot is required for every reason but no_tool and names a store
// or product (an entity: the store_id or product_id parameter), another
// parameter of some registered tool (state, condition, as_of), or window
// (a tool's start and end). candidates, for ambiguous only, are 2 to
// MaxCandidates (5) ids in the slot's domain, sorted and unique.
//
// An abstention whose gold names a reason is correct only when its
// reason matches: the answer's reason kind equals reason, the first word
// of the reason's detail is the slot ("missing_slot: store (the question
// names no store)"), and each candidate occurs in the detail as a whole
// word. The row's reason_matched says whether it did. A gold item
// without a reason scores any abstention as before.
//
// The report counts, per family, the items, the correct ones, the wrong
// answers shipped (answered or absence, and not the gold's), the
// abstentions, and how many abstentions' reasons matched; it totals the
// wrong answers and the reason mismatches, both of which must be 0.
//
// The phrasing file is generated too: eval/phrasing_gold_test.go holds
// its source list, in which the meaning of each question (the tool and
// its parameters) is written by hand, every relative time resolved from
// now by a few lines of date arithmetic that the rules define (a
// date alone is 23:59:59Z that day; today is [now's 00:00, now); this
// week starts on Monday 00:00 of now's ISO week; last week is the whole
// previous ISO week; last N days or hours is [now-N, now); between two
// dates is [A 00:00, B+1 day 00:00); between two timestamps [A, B); on a
// date that whole day; since A is [A, now)). Every name a question uses
// is checked against the demo store's reference data by oracle.Named (a
// declared display name in any case; else the names holding every word
// of it: one is a resolution, several an ambiguity, none an unknown
// name) and oracle.Numbered ("store 3"), and every value and event id
// is computed by the oracle. Nothing in it imports the parser. `go test
// ./eval -run TestPhrasingGoldFile -update` rewrites it. `provenant eval
// --gold phrasing` runs it.
//
// # Catalog gold sets
//
// A gold set can instead be for a catalog engine (engine.OpenCatalog: a
// catalog's tools over a database). Its file names the catalog after
// suite_version:
//
//	suite_version: "warehouse-demo-v1.gold.1"
//	catalog: "warehouse"                     # the catalog whose engine it is for
//	dataset_version: "warehouse-demo-v1"     # the data the expectations hold for
//
// Such a set is validated with ValidateCatalog against the registry the
// catalog derives (shape.NewRegistry), so the value shapes are the
// catalog's: a string of the attribute's values, an integer or a number
// for a latest_value tool (null for no observation), {"count": n,
// "device_ids": [...]} for count_entities_where (the ids field is the
// counted entity's name with _ids), {"device_ids": [...]} for
// list_entities_in_state, {"count": n} for count_rows_in_window. Event
// ids are the keys of the dataset's rows (1 to 128 letters, digits or
// ._:- characters, such as wh-evt-00010062), sorted, and compared with
// the answer's exactly as for the retail set.
//
// RunTarget runs such a set: a Target from CatalogTarget looks every key
// an answer points to up in the catalog's tables, and takes each tool's
// data version from one snapshot (the maximum ingestion sequence, such as
// "seq:20000"), which an absence attestation must carry. `provenant eval
// --catalog warehouse` runs the embedded warehouse-demo-v1.gold.yaml
// (CatalogGold) over the demo database, built on first use as `ask`
// builds it; --gold FILE runs another catalog gold set.
//
// The warehouse file is generated too: eval/warehouse_gold_test.go holds
// its source list, finds its cases (an instant exactly on an event and
// one second before, two devices' events at one timestamp, window edges,
// grounded zeros) by scanning the rows of warehouse/demo's generator with
// demo.DefaultOptions(), and computes every expectation with
// shapetest.Oracle, the shape contract's plain-Go loops over those rows.
// `go test ./eval -run TestWarehouseGoldFile -update` rewrites it.
//
// # Scoring
//
// Correctness (model-free structural equality with the gold):
//   - answered, absence: the outcome, the tool, the params and the value
//     are equal;
//   - rejected: the outcome and the rejection kind are equal (and the tool,
//     when the gold names one);
//   - abstained: the outcome is abstained, and when the gold names a
//     reason, the reason matches (see Phrasing suites). An abstention on
//     an in item is wrong and is also reported as an over-refusal.
//
// Wall rejections are in-coverage items and count under in-coverage
// correctness: a tool covers the question, and the correct behaviour is
// the wall's typed refusal of its bad value, which the engine must
// produce.
//
// Provenance, for every answer that carries provenance:
//   - the expected call (tool and params equal): verified when the
//     resolver's verdict passed every clause and the event ids equal the
//     gold's (or both are an absence; for provenance listed in part, the
//     listed ids are the gold's first ones and the count and digest are
//     those of the gold's ids); incomplete otherwise;
//   - any other call: contained when every event id is a real event (asked
//     through Lookup) or the absence attestation was re-enumerated empty
//     for the gold's dataset; dangling otherwise (dangling also overrides
//     the expected call's status).
//
// An error at stage resolve that carries a failed verdict is reported as
// unverified.
//
// # Gates
//
//   - in_coverage_correctness: correct in items / in items.
//   - out_of_coverage_abstention: abstained out items / out items.
//   - containment: answers with provenance that are not dangling / answers
//     with provenance (any item). Must be 100%.
//   - provenance_completeness: items expecting a fact whose provenance is
//     verified / items expecting a fact (answered or absence), so a wrong
//     abstention or a wrong call lowers it.
//
// A gate with no items is not met: a run that answered nothing proves
// nothing. With the rules provider on the demo store every gate is 100%;
// a test holds it there.
package eval
