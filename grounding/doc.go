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
// # Digits outside ASCII
//
// Before it scans, Extract normalises every character that writes a
// numeral outside ASCII to its ASCII form: every Unicode decimal digit
// (category Nd: fullwidth "１４", Arabic-Indic "١٣", extended
// Arabic-Indic "۱۲", Devanagari "१३", Bengali, Thai, mathematical digits,
// …) by its digit value; superscript and subscript digits ("¹", "⁴⁵",
// "₂"), which form a numeral of their own next to ordinary digits ("10²"
// is 10 and 2, never 102); the fullwidth forms of ASCII ("＄", "．", "％",
// "ｓｔ－００３") and the fullwidth cent and pound signs; and the Arabic
// decimal and thousands separators and percent sign ("٣٫٥" is 3.5). So
// "１４ stores" is the number 14 and "$９.８１" is 9.81 usd, each counted
// in numerals_total; "ｓｔ－００３" is the identifier st-003. Text, Start
// and End are still those of the original text. Other numeral characters (circled "①", Roman "Ⅻ", CJK "十四")
// are not read.
//
// # Extraction
//
// Extract scans the text once, left to right, in time linear in its
// length. It finds, in order:
//
//   - Numbers: digits ("3"), decimals ("3.49", ".5"), thousands separators
//     ("1,234", "12,345.67": groups of exactly three digits after one to
//     three), signs ("-3", "−3", "+3", only after a blank or punctuation:
//     the '-' of "covid-19" is a hyphen), and scientific notation
//     ("1.2e3", "3E-2"). Digits glued to letters ("mp3", "3x") are still
//     numerals: a fabricated digit is never skipped for its spelling.
//   - Scale words and suffixes after a number, at most one blank away,
//     multiply it, up to three in a row ("two hundred thousand" is
//     200,000): dozen (12), hundred, thousand, lakh (1e5), million, crore
//     (1e7), billion, trillion, each also plural, in any letter case; mn
//     and mln (1e6), bn and bln (1e9); and the letters k and K (1e3) and
//     M (1e6). The letters m (1e6) and b or B (1e9) multiply money only:
//     after a currency prefix ("$1.2m", "£3B", "€5m") or before a currency
//     unit ("5m dollars", "3m EUR"), or as the second half of a money
//     range ("$1-2m"); anywhere else "m" is metres or minutes and "B" a
//     letter, and the number stays as written ("5 m of shelf" is 5,
//     "aisle 3B" is 3). Longer words are not scale suffixes ("9km" is 9).
//     So "9 hundred" is 900, "9k" 9000, "nine dozen" 108, "thirteen
//     hundred" 1300, "1.2 million" 1,200,000 and "$1.2M" 1,200,000 usd
//     (120,000,000 cents). A singular scale word on its own is its number
//     ("a dozen stores" is 12, "a million dollars" $1,000,000); a plural
//     one on its own ("hundreds of scans") is not a numeral. A spelled
//     "hundred" takes an optional "and" and a spelled number from one to
//     ninety-nine after it ("one hundred and twenty-three" is 123, "a
//     hundred and two" 102); digits after it do not ("one hundred and 5"
//     is 100 and 5). Identifiers, timestamps and dates are read before
//     any of this and never take a scale.
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
//     "twenty-first"); and list indices. A list marker is digits and '.'
//     or ')' with more text after it on its line; it is a list index when
//     it opens its line and starts a list (1) or continues it (the
//     previous index plus one); when it is 1 right after ':', ',' or ';'
//     ("Two products: 1. oat milk 2. rye bread"); when it continues a list
//     whose previous index is on the same line (the "2." there); or when
//     a "1)" inside a line is followed by a "2)" on it (both, and a "3)"
//     after, are indices: "we stock 1) oat milk 2) rye bread"). Anything
//     else is a number: a line "4. That is the count.", "Stores: 3.", a
//     lone "1)" with no "2)" after it, and a bare number in running prose
//     ("there are 2 products").
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
// # Honest rounding
//
// A numeral has a place: the unit of its last written digit, in the unit
// it is written in. With k decimals the place is 10^-k ("3.14": 0.01);
// an integer's place is 10 to the number of its trailing zeros ("781":
// 1, "4,000": 1000, since "4,000" may be 3,992 rounded to thousands; a
// spelled number likewise, "twenty": 10); an exponent and a scale word
// multiply it ("2.4e3": 100, "1.2 million": 100,000, "9k": 1000, "$1.2M":
// $100,000), and pence divide it by 100. A number with a value matches a
// ledger value only when both hold:
//
//   - the ledger value, in the unit the numeral is written in (dollars for
//     "$7.8", percent for "12.3%", pence for "50 pence", the ledger's
//     canonical unit for a bare number) and rounded half away from zero
//     to the numeral's place, is the numeral; a ledger value within 1e-9
//     of a half counts as the half (7.805 is stored as 7.80499…);
//   - the tolerance above holds.
//
// So "3.14" backs 3.14159 but "3.15" does not (3.14159 never rounds to
// 3.15, though it is within 0.5%); "$7.81" backs 780.5 cents and "$7.80"
// does not; "$7.8" backs 781 cents (7.81 to one decimal is 7.8, 0.13%
// off) but "$8" does not (7.81 rounds to 8, but 2.4% off); "12.3%" backs
// a ratio of 0.1234 while "12.4%" (within 0.5%) and "12%" (2.8% off) do
// not; "0.123" backs 12.34 percent; "3,990" does not back 3,996 (which
// rounds to 4,000 in tens). A number of more than 15 significant digits
// is held to the tolerance alone. In effect an answer may round honestly
// to three significant digits, not fewer.
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
