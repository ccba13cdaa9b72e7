// Package grounding checks that every numeral in a piece of text is backed
// by a ledger of computed results. It imports only the standard library,
// so anyone wiring an agent can use it alone.
//
// A Check segments the text into sentences, extracts every numeral,
// normalises each to a value and a unit, and matches it against the
// ledger's numerals within a relative tolerance. A numeral that matches
// nothing may still pass under exactly one of four allowances, each behind
// its own flag: question echo, ordinal list index, timestamp inside a
// ledger window, and identifier match. Anything else is unmatched, and the
// verdict is REFUSE.
//
// # Sentences
//
// A sentence ends at a line break, or at '.', '!' or '?' followed by a
// blank or the end of the text, unless the next word starts with a lower-
// case letter, the '.' follows a single letter ("e.g.", "U.S.") or a common
// abbreviation ("etc.", "vs."), or it closes a list marker opening a line
// ("1."). "3.49" and "st-003" never split. Each numeral records its
// sentence internally; the Report is over the whole text.
//
// # Extraction
//
// Extract scans the text once, left to right, in time linear in its
// length. It finds, in order:
//
//   - Numbers: digits ("3"), decimals ("3.49", ".5"), thousands separators
//     ("1,234", "12,345.67": groups of exactly three digits after one to
//     three), signs ("-3", "−3", "+3", only after a blank or punctuation:
//     the '-' of "covid-19" is a hyphen), scientific notation ("1.2e3",
//     "3E-2"), and a scale word ("1.2 million", also thousand, billion and
//     trillion). Digits glued to letters ("mp3", "3x") are still numerals:
//     a fabricated digit is never skipped for its spelling.
//   - Spelled-out integers, any letter case: zero to twenty, the tens to
//     ninety, and hyphenated or spaced compounds ("twenty-one", "thirty
//     two"). A word is a number whatever its role: "one of the stores" and
//     "no one" are the number one. Simple and predictable beats clever.
//   - Units around a number, at most two blanks away: percent ("12%", "12
//     percent", "12 per cent", "12 pct"); money by symbol before or after
//     ("$3.49", "€12", "£5", "12 €"), by code before or after ("USD 3.49",
//     "3.49 USD", "EUR 12", "GBP 5"), or by word after ("3 dollars",
//     "euros", "pounds", "299 cents", "299¢", "50 pence" which is £0.50). A
//     prefix wins over a conflicting suffix ("$3 EUR" is $3).
//   - Ranges: "12-15", "12–15", "12—15", "12 to 15", "12 through 15" are
//     two numerals, each with the whole range as its Text and span, sharing
//     scale and unit ("$12-15", "12-15%", "1-2 million").
//   - ISO 8601 timestamps (RFC 3339, "2026-01-06T08:00:00Z", fractional
//     seconds and offsets allowed) as one numeral of UnitTimestamp, and
//     dates ("2026-01-06") as one numeral of UnitDate; Value is unix
//     seconds. A date-shaped token that is no real date is read as numbers.
//   - Identifiers: two to four letters, '-', digits ("st-003", "pr-021",
//     "evt-000123"), not followed by a letter or digit, as one numeral of
//     UnitID whose Text is the identifier and whose Value is its digits. An
//     identifier is never also the number 3.
//   - Ordinals, flagged for the ordinal allowance: "1st", "2nd", "23rd",
//     "4th"; ordinal words ("first" to "twentieth", the tens' ordinals,
//     "twenty-first"); and list markers "1." or "2)" opening a line with
//     more text after them on the line, which are list indices only when
//     they start a list (1) or continue it (the previous marker plus one):
//     a line "4. That is the count." is the number 4, not a list index.
//
// Found.Value is the number in Found.Unit as written: "$3.49" is 3.49 usd,
// "12%" is 12 percent, "twelve" is 12. A number without a marker has no
// unit (UnitNone): the text never yields count or ratio, which are ledger
// units. A value beyond float64 is clamped
// to ±math.MaxFloat64 so that a Report always encodes as JSON. Text is
// always text[Start:End]. Times of day ("08:00") and other date formats
// ("Jan 6") are read as plain numbers.
//
// # Units and matching
//
// Each numeral has a magnitude class, and compares only within it, in the
// class's canonical unit:
//
//	class      units                          canonical unit
//	plain      none, count                    the number
//	money      cents, usd, eur, gbp           cents (minor units) of one currency
//	ratio      ratio, percent                 a ratio: 12 percent is 0.12
//	timestamp  timestamp                      unix seconds, exact
//	date       date                           unix seconds of 00:00 UTC, exact
//	id         id                             the identifier string
//
// Cents are US cents (299 cents is $2.99, never €2.99); dollars never back
// euros. A number with a unit marker matches a ledger numeral of its class
// when |found − ledger| <= MatchRelTol × max(|ledger|, 1e-12) in the
// canonical unit. A bare number (no marker) is read in the canonical unit
// of each non-time ledger numeral: "3" backs a count of 3, "299" backs 299
// cents or $2.99, "0.12" backs 12 percent; but "2.99" does not back 299
// cents and "12" does not back 12 percent, since neither carries the
// marker that would convert it. Timestamps and dates match a ledger
// numeral of the same unit exactly. An identifier matches a ledger
// numeral whose ID equals its Text, ignoring case.
//
// Rounding is admitted only within the tolerance: with the default 0.005,
// "$7.8" backs 781 cents (0.13% off) but "$8" does not (2.4%), and "12%"
// does not back a ratio of 0.1234 (2.8%) while "12.3%" does. In effect an
// answer may round to three significant digits, not fewer.
//
// A ledger numeral that is an identifier only (unit id, or an ID with no
// unit) or a window only (a Window, Value 0, and unit none, timestamp or
// date) backs no value.
//
// # Allowances
//
// A numeral the ledger does not back passes if an enabled allowance
// applies; it is attributed to the first that does, in this order, and
// counted once in Report.AllowanceHits:
//
//   - question_echo: the question contains the same numeral: the same Text
//     (ignoring case), or the same class, currency and canonical value
//     ("$3.49" in the question backs "349 cents" in the answer).
//   - ordinal: the numeral is an ordinal or a list index (see above).
//   - window_timestamp: a timestamp inside a ledger numeral's Window
//     (inclusive), or a date whose day overlaps one.
//   - identifier: a bare non-negative integer equal to the trailing digits
//     of a ledger numeral's ID ("store 3" for st-003).
//
// DefaultPolicy enables the first three; StrictPolicy none. The verdict is
// PASS when every numeral is matched or allowed, REFUSE otherwise, with
// the unmatched numerals listed in order.
package grounding
