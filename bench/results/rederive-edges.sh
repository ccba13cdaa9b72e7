#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on DuckDB: main
# before RederiveValues reads a window's head and tail (each computed as
# its own window) in one statement, against after (two statements before);
# bench/results/rederive-edges.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/rederive-edges.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
exec sh "$(dirname "$0")/alternate-metric-duckdb.sh" "${1:?usage: rederive-edges.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: rederive-edges.sh MAIN_BINARY NEW_BINARY}"
