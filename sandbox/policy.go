package sandbox

import (
	"slices"
	"strings"
)

// Policy is what an accepted statement may name: tables, functions
// (scalar, aggregate and window, operators included) and table
// functions. Names are matched as DuckDB matches identifiers: ASCII
// letters without regard to case, every other byte exactly.
type Policy struct {
	tables, functions, tableFunctions map[string]bool
	// parameters admits positional parameters ($1, ?): compiled metric
	// queries carry their values so. Free SQL has no arguments to bind,
	// and a policy from NewPolicy refuses them.
	parameters bool
}

// NewPolicy returns the policy that admits tables, the default functions
// (DefaultFunctions) and the default table functions
// (DefaultTableFunctions).
func NewPolicy(tables []string) *Policy {
	return NewPolicyWith(tables, DefaultFunctions(), DefaultTableFunctions())
}

// NewPolicyWith returns the policy that admits exactly the given names.
func NewPolicyWith(tables, functions, tableFunctions []string) *Policy {
	set := func(names []string) map[string]bool {
		m := make(map[string]bool, len(names))
		for _, n := range names {
			m[fold(n)] = true
		}
		return m
	}
	return &Policy{tables: set(tables), functions: set(functions), tableFunctions: set(tableFunctions)}
}

// WithParameters returns a copy of p that also admits positional
// parameters ($1, ?) anywhere an expression may stand: the policy for
// code-generated SQL whose values are bound arguments (a compiled metric
// query), which this package judges by its tables, functions and
// constructs like any statement. Named parameters stay refused.
func (p *Policy) WithParameters() *Policy {
	c := *p
	c.parameters = true
	return &c
}

// Tables returns the admitted tables, folded and sorted.
func (p *Policy) Tables() []string {
	out := make([]string, 0, len(p.tables))
	for t := range p.tables {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Table reports whether the policy admits the table name.
func (p *Policy) Table(name string) bool { return p.tables[fold(name)] }

// fold lowers ASCII letters only, as DuckDB folds identifiers: a
// Unicode look-alike stays what it is.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// Allowlist is the read allowlist: the union of the lists, folded, sorted
// and without duplicates, minus the names in deny. The tables a catalog
// declares are one list (sandbox/allowlist derives it); metric tables
// will be another.
func Allowlist(deny []string, lists ...[]string) []string {
	denied := map[string]bool{}
	for _, d := range deny {
		denied[fold(d)] = true
	}
	var out []string
	for _, l := range lists {
		for _, t := range l {
			if t = fold(t); t != "" && !denied[t] && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return out
}

// DefaultTableFunctions are the table functions admitted by default:
// unnest alone, whose rows come from a list the query already holds. No
// reader of files, URLs, settings or the catalog (read_csv, glob,
// duckdb_settings, pragma_*, query_table, ...), and no generator of rows
// from nothing (range, generate_series).
func DefaultTableFunctions() []string { return []string{"unnest"} }

// DefaultFunctions are the scalar, aggregate and window functions and the
// operators admitted by default: arithmetic, comparison, text, date and
// time, conditional, list and struct access, aggregates and window
// functions. Left out on purpose: anything that reads the environment,
// the settings, the file system or the catalog (getenv, current_setting,
// current_database, version, ...), anything nondeterministic (random,
// uuid, now, current_date), sequences, generators that build large
// values from small inputs (range, generate_series, repeat, lpad, format
// widths), and functions whose cost grows faster than their input
// (levenshtein, jaro_winkler_similarity): the row budget does not see
// work done inside one row.
func DefaultFunctions() []string {
	return slices.Clone(defaultFunctions)
}

var defaultFunctions = []string{
	// operators
	"+", "-", "*", "/", "//", "%", "**", "^", "||", "~~", "!~~", "~~*", "!~~*", "~~~", "&", "|", "<<", ">>", "~", "@",
	"like_escape", "not_like_escape", "ilike_escape", "not_ilike_escape",
	// aggregates
	"count", "count_star", "sum", "avg", "mean", "min", "max", "median", "mode",
	"quantile", "quantile_cont", "quantile_disc", "approx_quantile", "approx_count_distinct",
	"stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop",
	"first", "last", "any_value", "arg_min", "arg_max", "argmin", "argmax", "min_by", "max_by",
	"bool_and", "bool_or", "count_if", "countif", "string_agg", "group_concat", "listagg",
	"product", "corr", "covar_pop", "covar_samp", "regr_slope", "regr_intercept", "regr_r2", "regr_count",
	"list", "array_agg", "histogram", "fsum", "favg", "sumkahan", "kahan_sum", "entropy", "kurtosis", "skewness", "mad",
	"bit_and", "bit_or", "bit_xor",
	// window
	"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile",
	"lag", "lead", "first_value", "last_value", "nth_value",
	// numeric
	"abs", "ceil", "ceiling", "floor", "round", "round_even", "trunc", "sign", "sqrt", "cbrt", "exp",
	"ln", "log", "log2", "log10", "pow", "power", "mod", "greatest", "least", "isnan", "isinf", "isfinite",
	"even", "gcd", "lcm", "factorial", "degrees", "radians", "pi", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
	// conditional
	"nullif", "ifnull", "if", "coalesce",
	// text
	"lower", "upper", "lcase", "ucase", "length", "len", "strlen", "char_length", "character_length", "octet_length",
	"substr", "substring", "left", "right", "trim", "ltrim", "rtrim", "replace", "concat", "concat_ws",
	"contains", "starts_with", "ends_with", "prefix", "suffix", "strpos", "instr", "position",
	"split_part", "string_split", "str_split", "reverse", "ascii", "chr",
	"regexp_matches", "regexp_full_match", "regexp_replace", "regexp_extract", "like", "ilike",
	"md5", "sha256", "hash", "initcap", "nfc_normalize", "strip_accents",
	"to_base",
	// date and time
	"date_trunc", "datetrunc", "date_part", "datepart", "extract", "date_diff", "datediff", "date_sub", "datesub",
	"date_add", "year", "month", "day", "hour", "minute", "second", "millisecond", "microsecond",
	"dayofweek", "dayofmonth", "dayofyear", "week", "weekofyear", "weekday", "quarter", "isodow", "isoyear", "yearweek",
	"epoch", "epoch_ms", "epoch_us", "make_date", "make_time", "make_timestamp", "to_timestamp", "strftime", "strptime",
	"try_strptime", "age", "time_bucket", "last_day", "monthname", "dayname", "era", "century", "decade", "millennium",
	"to_years", "to_months", "to_weeks", "to_days", "to_hours", "to_minutes", "to_seconds", "to_milliseconds",
	"to_microseconds", "timezone",
	// lists, structs and maps the query already holds
	"list_value", "list_pack", "struct_pack", "row", "struct_extract", "array_extract", "list_extract", "list_element",
	"array_length", "list_contains", "list_has", "array_contains", "list_sort", "list_distinct", "list_unique",
	"list_aggregate", "list_aggr", "list_sum", "list_min", "list_max", "list_avg", "list_count", "list_slice",
	"array_slice", "list_position", "list_transform", "list_filter", "flatten", "cardinality",
	"map", "map_extract", "element_at", "map_keys", "map_values", "unnest",
	// types
	"typeof", "try_cast",
}
