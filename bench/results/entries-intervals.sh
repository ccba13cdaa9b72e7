#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on DuckDB: main
# before the entries measures' re-derivation by validity intervals (each
# row's predecessor found by numbering the window's rows, ROW_NUMBER and a
# self-join) against after (by the row whose validity interval ends at the
# row's time, no sort); bench/results/entries-intervals.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/entries-intervals.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
export DATA=${DATA:-/work/scale-data-valroll} CALLS=40
exec sh "$(dirname "$0")/alternate-metric-duckdb.sh" "${1:?usage: entries-intervals.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: entries-intervals.sh MAIN_BINARY NEW_BINARY}"
