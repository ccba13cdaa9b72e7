package duckdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/shape"
)

// Files is an in-memory DuckDB in which every dataset a catalog declares
// with `files:` is a view over its Parquet or CSV files, read in place.
type Files struct {
	DB *sql.DB
	// Relations maps each files dataset to its view (shape.Source).
	Relations map[string]string
	// Versions maps each files dataset to its data version: a digest of
	// the matched paths, sizes and modification times, so that a file
	// rewritten or added names a new version (shape.Source).
	Versions map[string]string
	// References maps each entity whose reference is declared with
	// files: to a view over them (shape.Source).
	References map[string]string
	// globs maps each files dataset to its glob, made absolute.
	globs map[string]string
	// spill is the directory DuckDB writes what does not fit its memory
	// limit to, removed by Close.
	spill string
}

// Close closes the database and removes its spill directory.
func (f *Files) Close() error {
	err := f.DB.Close()
	if rmErr := os.RemoveAll(f.spill); err == nil {
		err = rmErr
	}
	return err
}

// Source is the shape source that reads f: its database, views,
// versions, version check, reference views and the errors of reads
// that fail on the files' contents.
func (f *Files) Source() shape.Source {
	return shape.Source{DB: f.DB, Relations: f.Relations, Versions: f.Versions, Current: f.Current, References: f.References, ReadError: questionError}
}

// Current is the data version a files dataset is at now: the digest of
// what its glob matches now (shape.Source.Current). It differs from
// Versions once a file was rewritten, added or removed.
func (f *Files) Current(dataset string) (string, error) {
	glob, ok := f.globs[dataset]
	if !ok {
		return "", fmt.Errorf("read files version: dataset %s is not read from files", dataset)
	}
	return filesVersion(glob)
}

// OpenFiles opens the files datasets of cat, their globs relative to dir.
// Each view casts the declared columns to the stored layout's types
// (text ids and values, TIMESTAMP in UTC, BIGINT, DOUBLE), so that the
// shapes' SQL reads files as it reads tables. A glob that matches nothing
// is an error.
func OpenFiles(ctx context.Context, cat *catalog.Catalog, dir string) (*Files, error) {
	spill, err := os.MkdirTemp("", "provenant-files-")
	if err != nil {
		return nil, fmt.Errorf("open files: %w", err)
	}
	db, err := OpenMemory(ctx)
	if err != nil {
		os.RemoveAll(spill)
		return nil, err
	}
	f := &Files{DB: db, Relations: map[string]string{}, Versions: map[string]string{}, References: map[string]string{}, globs: map[string]string{}, spill: spill}
	fail := func(err error) (*Files, error) {
		f.Close()
		return nil, err
	}
	// TIMESTAMPTZ values (a CSV time ending in Z) become UTC wall clock.
	// The checks below run under ServeMemoryLimit and spill past it (the
	// hashes of 100,000,000 keys took 0.4 GB where the keys took 7.7);
	// serving then gets DuckDB's default limit back, keeping the place to
	// spill: a store-wide question over files sorts every row up to its
	// instant, and under the small limit one took 15-28% longer and four
	// at once missed a 10 s deadline the default meets
	// (bench/results/files-check.md). The default is set back by value:
	// RESET changes the setting but leaves DuckDB's buffer pool at the
	// small limit (1.5.6).
	var defaultLimit string
	if err := db.QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&defaultLimit); err != nil {
		return fail(fmt.Errorf("open files: %w", err))
	}
	for _, q := range []string{"SET GLOBAL TimeZone = 'UTC'", "SET GLOBAL memory_limit = " + quoteLiteral(checkMemoryLimit), "SET GLOBAL temp_directory = " + quoteLiteral(spill)} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fail(fmt.Errorf("open files: %w", err))
		}
	}
	for _, ds := range cat.Datasets {
		if ds.Files.Value == "" {
			continue
		}
		glob := ds.Files.Value
		if !filepath.IsAbs(glob) {
			glob = filepath.Join(dir, glob)
		}
		version, err := filesVersion(glob)
		if err != nil {
			return fail(fmt.Errorf("open files of dataset %s: %w", ds.Name.Value, err))
		}
		src := readFiles(glob)
		if err := checkColumns(ctx, db, src, declaredColumns(ds)); err != nil {
			return fail(fmt.Errorf("open files of dataset %s: %w", ds.Name.Value, notParquet(glob, err)))
		}
		q := "CREATE VIEW " + ingest.Quote(ds.Name.Value) + " AS SELECT " + strings.Join(viewColumns(ds), ", ") + " FROM " + src
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fail(fmt.Errorf("open files of dataset %s: %w", ds.Name.Value, notParquet(glob, readError(err))))
		}
		if err := checkFiles(ctx, db, ds, src); err != nil {
			return fail(fmt.Errorf("open files of dataset %s: %w", ds.Name.Value, notParquet(glob, err)))
		}
		f.Relations[ds.Name.Value] = ds.Name.Value
		f.Versions[ds.Name.Value] = version
		f.globs[ds.Name.Value] = glob
	}
	// Reference files, whatever the dataset: the ids they declare are
	// the ones the wall admits.
	for _, ds := range cat.Datasets {
		for _, e := range ds.Entities {
			r := e.Reference
			if r == nil || r.Files.Value == "" || f.References[e.Name.Value] != "" {
				continue
			}
			glob := r.Files.Value
			if !filepath.IsAbs(glob) {
				glob = filepath.Join(dir, glob)
			}
			if _, err := filesVersion(glob); err != nil {
				return fail(fmt.Errorf("open reference files of entity %s: %w", e.Name.Value, err))
			}
			view := "_provenant_ref_" + e.Name.Value
			if err := checkColumns(ctx, db, readFiles(glob), []string{r.ID.Value, r.DisplayName.Value}); err != nil {
				return fail(fmt.Errorf("open reference files of entity %s: %w", e.Name.Value, notParquet(glob, err)))
			}
			q := "CREATE VIEW " + ingest.Quote(view) + " AS SELECT CAST(" + ingest.Quote(r.ID.Value) + " AS VARCHAR) AS " + ingest.Quote(r.ID.Value) +
				", CAST(" + ingest.Quote(r.DisplayName.Value) + " AS VARCHAR) AS " + ingest.Quote(r.DisplayName.Value) +
				" FROM " + readFiles(glob)
			if _, err := db.ExecContext(ctx, q); err != nil {
				return fail(fmt.Errorf("open reference files of entity %s: %w", e.Name.Value, notParquet(glob, readError(err))))
			}
			if err := checkReference(ctx, db, view, r.ID.Value); err != nil {
				return fail(fmt.Errorf("open reference files of entity %s: %w", e.Name.Value, notParquet(glob, err)))
			}
			f.References[e.Name.Value] = view
		}
	}
	if _, err := db.ExecContext(ctx, "SET GLOBAL memory_limit = "+quoteLiteral(defaultLimit)); err != nil {
		return fail(fmt.Errorf("open files: %w", err))
	}
	return f, nil
}

// checkMemoryLimit is the memory limit the files check runs under (a
// test lowers it to make the check run out of memory).
var checkMemoryLimit = ServeMemoryLimit

// ErrCheckMemory: the files check ran out of memory under its limit
// (ServeMemoryLimit), where DuckDB's buffers that cannot spill left the
// rest too little room. Import the data instead.
var ErrCheckMemory = errors.New("the files check ran out of memory under the serving memory limit; import the data instead")

// keyHash writes the expression checkFiles hashes a key with (a test puts
// a weaker one in its place to make different keys collide, or a probe of
// the settings the check runs under).
var keyHash = func(key string) string { return "hash(" + key + ")" }

// ErrFilesInvalid: a dataset's files hold rows no answer could be
// verified over. The error wrapping it names the column, the defect and
// how many rows have it, never a value.
var ErrFilesInvalid = errors.New("files hold rows that cannot be answered over")

// checkFiles reads a files dataset once and refuses the defects that
// would make answers over it fail verification rather than answer, the
// ones import refuses row by row: an empty or missing key, a key shared
// by two rows (the provenance id must name one row), and a missing time
// or one at or past the open end of a series' latest row (shape.OpenEnd),
// or not finite, or a time that does not convert to one. Values outside
// the catalog's domains are left: they match no filter. The cost is one
// more pass over the files (bench/results/files-check.md).
//
// Repeated keys are found by their hashes first: DuckDB holds a
// distinct count of 64-bit hashes under the memory limit, where the
// distinct keys themselves took 7.7 GB at 100,000,000 rows. Equal keys
// always have equal hashes, so no repeat is missed; rows whose hashes
// are shared are then counted again on the keys themselves, so a
// collision between two different keys refuses nothing.
//
// It reads the files themselves (src, DuckDB's reader of them), not the
// view, whose CAST of a text time that is no time fails quoting it; an
// error of DuckDB's reader that quotes the files' text is replaced by
// one that does not (readError, badFilesText).
func checkFiles(ctx context.Context, db *sql.DB, ds *catalog.Dataset, src string) error {
	key, ts, table := ingest.Quote(ds.Key.Value), ingest.Quote(ds.Time.Value), ingest.Quote(ds.Name.Value)
	hashed := keyHash(key)
	// Each numeric attribute's column is counted where a value does not
	// convert to the view's type (TRY_CAST takes what CAST takes), so
	// that no question over the view fails on a value: in the view a
	// text that is no number would fail every question that reads the
	// column. A column whose type in the files always converts to a
	// finite value (a Parquet BIGINT for an integer or a number, a CSV
	// column DuckDB's reader typed as integers) is not read.
	numeric, err := fallibleColumns(ctx, db, src, numericColumns(ds))
	if err != nil {
		return err
	}
	var unconverted strings.Builder
	for _, c := range numeric {
		col := ingest.Quote(c.name)
		// isfinite is true for every BIGINT; a DOUBLE may be a NaN or
		// an infinity, which import refuses and no comparison in Go
		// judges as DuckDB's SQL does (a NaN is greater than every
		// number there).
		fmt.Fprintf(&unconverted, ", count(*) FILTER (WHERE %s IS NOT NULL AND NOT coalesce(isfinite(TRY_CAST(%s AS %s)), false))", col, col, c.typ)
	}
	// Each entity's ids are counted where one is missing or does not
	// match the entity's pattern, as import refuses them: such an id
	// would be listed in answers (a count's or a list's ids) that the
	// wall would refuse to take as an argument. DuckDB's regexps are
	// RE2, as Go's are.
	var offPattern strings.Builder
	for _, e := range ds.Entities {
		col := ingest.Quote(e.Column.Value)
		fmt.Fprintf(&offPattern, ", count(*) FILTER (WHERE NOT coalesce(regexp_full_match(CAST(%s AS VARCHAR), %s), false))", col, quoteLiteral(e.Pattern.Value))
	}
	q := "SELECT count(*) FILTER (WHERE " + key + " IS NULL OR " + key + " = ''), " +
		"count(" + key + ") - count(DISTINCT " + hashed + ") FILTER (WHERE " + key + " IS NOT NULL), " +
		"count(*) FILTER (WHERE _provenant_no_time), " +
		"count(*) FILTER (WHERE NOT _provenant_no_time AND " + ts + " IS NULL), " +
		"count(*) FILTER (WHERE NOT isfinite(" + ts + ") OR " + ts + " >= CAST('" + shape.OpenEnd + "' AS TIMESTAMP))" +
		unconverted.String() + offPattern.String() + " " +
		"FROM (SELECT * REPLACE (CAST(" + key + " AS VARCHAR) AS " + key + ", TRY_CAST(" + ts + " AS TIMESTAMP) AS " + ts + "), " + ts + " IS NULL AS _provenant_no_time FROM " + src + ")"
	var noKey, shared, noTime, notTime, late int64
	notNumbers := make([]int64, len(numeric))
	dest := []any{&noKey, &shared, &noTime, &notTime, &late}
	for i := range notNumbers {
		dest = append(dest, &notNumbers[i])
	}
	offIDs := make([]int64, len(ds.Entities))
	for i := range offIDs {
		dest = append(dest, &offIDs[i])
	}
	if err := db.QueryRowContext(ctx, q).Scan(dest...); err != nil {
		if strings.Contains(err.Error(), badTextError) {
			return badFilesText(ctx, db, src, declaredColumns(ds)...)
		}
		return fmt.Errorf("check files: %w", readError(err))
	}
	if shared > 0 {
		q := "SELECT count(" + key + ") - count(DISTINCT " + key + ") FROM " + table + " WHERE " + hashed + " IN (SELECT " + hashed +
			" FROM " + table + " WHERE " + key + " IS NOT NULL GROUP BY 1 HAVING count(*) > 1)"
		if err := db.QueryRowContext(ctx, q).Scan(&shared); err != nil {
			return fmt.Errorf("check files: %w", err)
		}
	}
	var problems []string
	if noKey > 0 {
		problems = append(problems, fmt.Sprintf("%d row(s) with an empty key in column %s", noKey, ds.Key.Value))
	}
	if shared > 0 {
		problems = append(problems, fmt.Sprintf("%d row(s) repeat another row's key in column %s (a key names one row)", shared, ds.Key.Value))
	}
	if noTime > 0 {
		problems = append(problems, fmt.Sprintf("%d row(s) without a time in column %s", noTime, ds.Time.Value))
	}
	if notTime > 0 {
		problems = append(problems, fmt.Sprintf("%d row(s) with a value in column %s that is not a time", notTime, ds.Time.Value))
	}
	if late > 0 {
		problems = append(problems, fmt.Sprintf("%d row(s) with a time in column %s at or past 9999-12-31T00:00:00Z or not finite", late, ds.Time.Value))
	}
	for i, e := range ds.Entities {
		if offIDs[i] > 0 {
			problems = append(problems, fmt.Sprintf("%d row(s) whose value in column %s is missing or does not match the entity's pattern", offIDs[i], e.Column.Value))
		}
	}
	for i, c := range numeric {
		if notNumbers[i] > 0 {
			problems = append(problems, fmt.Sprintf("%d row(s) with a value in column %s that is not %s", notNumbers[i], c.name, c.want))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrFilesInvalid, strings.Join(problems, "; "))
	}
	return nil
}

// questionError is the error of a question's failed read of a files
// dataset: when DuckDB's message quotes the files' contents (a string
// that is not UTF-8 in a column the opening check does not read, a CSV
// line, a value the view cannot convert), an ErrFilesInvalid naming the
// dataset and the defect instead (shape.Source.ReadError).
func questionError(dataset string, err error) error {
	if strings.Contains(err.Error(), "Conversion Error") {
		return fmt.Errorf("read files of dataset %s: %w: a value does not convert to its column's type", dataset, ErrFilesInvalid)
	}
	if mapped := readError(err); errors.Is(mapped, ErrFilesInvalid) {
		return fmt.Errorf("read files of dataset %s: %w", dataset, mapped)
	}
	return err
}

// csvLine finds the line DuckDB's CSV reader names in its error.
var csvLine = regexp.MustCompile(`CSV Error on Line: ([0-9]+)`)

// readError is err, DuckDB's error reading a dataset's files, or, when
// DuckDB's message quotes the files' text (a CSV line, a string that is
// not UTF-8), an ErrFilesInvalid that names the line or the defect
// instead, or ErrCheckMemory for DuckDB's "Out of Memory".
func readError(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "Out of Memory"):
		// DuckDB's message runs to several lines of advice, or quotes
		// the statement.
		return fmt.Errorf("limit %s: %w", checkMemoryLimit, ErrCheckMemory)
	case strings.Contains(msg, badTextError):
		return fmt.Errorf("%w: a string column holds text that is not valid UTF-8", ErrFilesInvalid)
	case strings.Contains(msg, "Error when sniffing file"):
		// A dozen lines of advice, and the statement.
		return fmt.Errorf("%w: the files cannot be read as CSV (DuckDB's reader finds no delimiter, quoting and header that fit them)", ErrFilesInvalid)
	case csvLine.MatchString(msg):
		line := csvLine.FindStringSubmatch(msg)[1]
		if strings.Contains(msg, "Invalid unicode") {
			return fmt.Errorf("%w: CSV line %s is not valid UTF-8", ErrFilesInvalid, line)
		}
		return fmt.Errorf("%w: CSV line %s cannot be read as the dataset's columns", ErrFilesInvalid, line)
	}
	return err
}

// checkColumns refuses files (src, DuckDB's reader of them) that lack one
// of cols, naming the first: the view's CAST of it failed as DuckDB's
// binder error about a column "referenced that exists in the SELECT
// clause". A CSV file with a line of more or fewer fields than its header
// is one DuckDB's reader takes as one column per line. Names compare as
// DuckDB binds them, regardless of case.
func checkColumns(ctx context.Context, db *sql.DB, src string, cols []string) error {
	rows, err := db.QueryContext(ctx, "DESCRIBE SELECT * FROM "+src)
	if err != nil {
		return readError(err)
	}
	var have []string
	for rows.Next() {
		var name, typ string
		var null, key, def, extra sql.NullString
		if err := rows.Scan(&name, &typ, &null, &key, &def, &extra); err != nil {
			rows.Close()
			return err
		}
		have = append(have, name)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return readError(err)
	}
	for _, c := range cols {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, c) }) {
			hint := ""
			if len(have) == 1 {
				hint = ": a CSV file read as one column has a line with more or fewer fields than its header, or another delimiter"
			}
			return fmt.Errorf("%w: column %s is not among the files' columns (%d found%s)", ErrFilesInvalid, c, len(have), hint)
		}
	}
	return nil
}

// notParquet is err, DuckDB's error opening or checking glob's files, or,
// when glob names Parquet files and DuckDB's reader refused a file's
// bytes (describeError), an ErrFilesInvalid saying so in one line:
// DuckDB's message quotes the statement, and may quote the bytes.
func notParquet(glob string, err error) error {
	if fileReader(glob) != "read_parquet" || errors.Is(err, ErrFilesInvalid) || errors.Is(err, ErrCheckMemory) {
		return err
	}
	if errors.Is(describeError(context.Background(), err), ErrNotParquet) {
		return fmt.Errorf("%w: read parquet: not a Parquet file, or its data is damaged", ErrFilesInvalid)
	}
	return err
}

// badFilesText is the error for a string that is not UTF-8 in one of the
// columns of src: the first of them that DuckDB cannot read alone.
func badFilesText(ctx context.Context, db *sql.DB, src string, cols ...string) error {
	for _, c := range cols {
		var n sql.NullInt64
		err := db.QueryRowContext(ctx, "SELECT max(strlen(CAST("+ingest.Quote(c)+" AS VARCHAR))) FROM "+src).Scan(&n)
		if err != nil && strings.Contains(err.Error(), badTextError) {
			return fmt.Errorf("%w: column %s holds text that is not valid UTF-8", ErrFilesInvalid, c)
		}
	}
	return fmt.Errorf("%w: a string column holds text that is not valid UTF-8", ErrFilesInvalid)
}

// checkReference refuses a reference read from files whose ids are not
// a set: an empty id names nothing, and an id declared twice has two
// display names. Like checkFiles, it names the column and the count.
func checkReference(ctx context.Context, db *sql.DB, view, idCol string) error {
	id := ingest.Quote(idCol)
	q := "SELECT count(*) FILTER (WHERE " + id + " IS NULL OR " + id + " = ''), count(" + id + ") - count(DISTINCT " + id + ") FROM " + ingest.Quote(view)
	var empty, repeated int64
	if err := db.QueryRowContext(ctx, q).Scan(&empty, &repeated); err != nil {
		return fmt.Errorf("check files: %w", readError(err))
	}
	var problems []string
	if empty > 0 {
		problems = append(problems, fmt.Sprintf("%d row(s) with an empty id in column %s", empty, idCol))
	}
	if repeated > 0 {
		problems = append(problems, fmt.Sprintf("%d row(s) repeat another row's id in column %s (an id is declared once)", repeated, idCol))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrFilesInvalid, strings.Join(problems, "; "))
	}
	return nil
}

// numericColumn is a numeric attribute's column, the type the view casts
// it to and what the files check says a value that does not convert is
// not.
type numericColumn struct{ name, typ, want string }

// numericColumns are the numeric attributes' columns of ds, in the
// catalog's order.
func numericColumns(ds *catalog.Dataset) []numericColumn {
	var out []numericColumn
	for _, a := range ds.Attributes {
		switch {
		case a.Enumerated():
		case a.Type.Value == "integer":
			out = append(out, numericColumn{a.Column.Value, "BIGINT", "an integer"})
		default:
			out = append(out, numericColumn{a.Column.Value, "DOUBLE", "a finite number"})
		}
	}
	return out
}

// declaredColumns are the columns of ds the view reads: the key, the
// time, the entities' and the attributes'.
func declaredColumns(ds *catalog.Dataset) []string {
	cols := []string{ds.Key.Value, ds.Time.Value}
	for _, e := range ds.Entities {
		cols = append(cols, e.Column.Value)
	}
	for _, a := range ds.Attributes {
		cols = append(cols, a.Column.Value)
	}
	return cols
}

// convertsAlways lists, for each type the view casts a numeric column to,
// the types in the files whose every value converts to a finite value of
// it (not FLOAT or DOUBLE, which hold NaN and infinities).
var convertsAlways = map[string][]string{
	"BIGINT": {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER"},
	"DOUBLE": {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "DECIMAL"},
}

// fallibleColumns are the columns of cols whose type in the files (src,
// as DuckDB's reader types them) may hold a value that does not convert
// to the view's type.
func fallibleColumns(ctx context.Context, db *sql.DB, src string, cols []numericColumn) ([]numericColumn, error) {
	if len(cols) == 0 {
		return nil, nil
	}
	rows, err := db.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "+src+")")
	if err != nil {
		return nil, fmt.Errorf("check files: %w", readError(err))
	}
	defer rows.Close()
	types := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, fmt.Errorf("check files: %w", err)
		}
		types[name], _, _ = strings.Cut(typ, "(") // DECIMAL(18,3)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("check files: %w", readError(err))
	}
	var out []numericColumn
	for _, c := range cols {
		if !slices.Contains(convertsAlways[c.typ], types[c.name]) {
			out = append(out, c)
		}
	}
	return out, nil
}

// readFiles is DuckDB's reader of a glob's files, their columns matched
// by name and each typed to hold every file's values: without
// union_by_name, a glob's files are read with the first file's types,
// and a value of another file that does not convert to them fails the
// questions that read it rather than the files check.
//
// A CSV reader's buffer is 8 MB, not DuckDB's 32: the files check runs
// under ServeMemoryLimit, where DuckDB's reader buffers, which cannot
// spill, left the distinct key hashes of 10,000,000 rows too little room
// and the check failed with DuckDB's "Out of Memory" in some runs
// (bench/results/files-check.md).
func readFiles(glob string) string {
	opts := ", union_by_name = true"
	if fileReader(glob) == "read_csv" {
		opts += ", buffer_size = 8388608"
	}
	return fileReader(glob) + "(" + quoteLiteral(glob) + opts + ")"
}

// fileReader is DuckDB's reader of a glob's files.
func fileReader(glob string) string {
	if strings.HasSuffix(strings.ToLower(glob), ".csv") {
		return "read_csv"
	}
	return "read_parquet"
}

// viewColumns are the declared columns, cast to the stored layout.
func viewColumns(ds *catalog.Dataset) []string {
	cast := func(col, typ string) string {
		return "CAST(" + ingest.Quote(col) + " AS " + typ + ") AS " + ingest.Quote(col)
	}
	cols := []string{cast(ds.Key.Value, "VARCHAR"), cast(ds.Time.Value, "TIMESTAMP")}
	for _, e := range ds.Entities {
		cols = append(cols, cast(e.Column.Value, "VARCHAR"))
	}
	for _, a := range ds.Attributes {
		switch {
		case a.Enumerated():
			cols = append(cols, cast(a.Column.Value, "VARCHAR"))
		case a.Type.Value == "integer":
			cols = append(cols, cast(a.Column.Value, "BIGINT"))
		default:
			cols = append(cols, cast(a.Column.Value, "DOUBLE"))
		}
	}
	return cols
}

// filesVersion digests what a glob matches: each path, size and
// modification time.
func filesVersion(glob string) (string, error) {
	paths, err := filepath.Glob(glob)
	if err != nil {
		return "", fmt.Errorf("match files: %w", err)
	}
	if len(paths) == 0 {
		return "", fmt.Errorf("match files: no file matches the dataset's glob")
	}
	slices.Sort(paths)
	h := sha256.New()
	for _, p := range paths {
		st, err := statFile(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, st.size, st.mtime)
	}
	return "files:" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

type fileStat struct{ size, mtime int64 }

// ErrNotRegular: a glob of a files dataset (or reference) matches a file
// that is not a regular one (a named pipe, a directory, a device).
// DuckDB's reader opens its files itself, in C, where no context
// reaches: a named pipe no one writes would block it there.
var ErrNotRegular = errors.New("not a regular file")

func statFile(path string) (fileStat, error) {
	st, err := os.Stat(path)
	if err != nil {
		return fileStat{}, fmt.Errorf("match files: %w", err)
	}
	if !st.Mode().IsRegular() {
		return fileStat{}, fmt.Errorf("match files: %s: %w", path, ErrNotRegular)
	}
	return fileStat{st.Size(), st.ModTime().UnixNano()}, nil
}
