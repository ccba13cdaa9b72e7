#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on DuckDB: main
# before three cuts to a call's statements, against after: each side of a
# call reads the rows reaching into a window from before it once
# (RollupKeys's read, reused for its first keys and for the resolver's
# FirstKeysHold); a summation reads its edges' keys and its stored
# digests in one statement; the re-derivation computes a row's seconds
# inside the window once per row, not in every column that reads them;
# bench/results/stmtcuts.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/stmtcuts.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
exec sh "$(dirname "$0")/alternate-metric-duckdb.sh" "${1:?usage: stmtcuts.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: stmtcuts.sh MAIN_BINARY NEW_BINARY}"
