#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on DuckDB: main
# before the value rollups by ten-minute slice (TABLE__rollup_value_slices,
# kept here once the rows average 5,000 an hour: the 10,000,000-event
# file; DuckDB keeps none by default, which this measurement decided),
# against after, on the same files built by the new binary (main's binary
# ignores the slices' table); bench/results/value-slices.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   DATA=/tmp/sd2 BUILD_FLAGS="-value-slice-min-rows 5000" sh bench/results/value-slices.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
exec sh "$(dirname "$0")/alternate-metric-duckdb.sh" "${1:?usage: value-slices.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: value-slices.sh MAIN_BINARY NEW_BINARY}"
