#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on DuckDB: main
# before the executor's first keys are bounded by the rows before the
# window (when they alone hold the 1,000 keys and the key floors leave at
# most an hour of the window below the bound: no statement for the
# window's first hours' top 1,000), against after;
# bench/results/beforebound.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/beforebound.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
exec sh "$(dirname "$0")/alternate-metric-duckdb.sh" "${1:?usage: beforebound.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: beforebound.sh MAIN_BINARY NEW_BINARY}"
