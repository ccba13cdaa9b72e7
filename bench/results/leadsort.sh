#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on DuckDB: main
# before the compiled query orders a window's candidate rows once (series,
# time, key) and checks that a neighbour is of the row's series, against
# after; before, LEAD and LAG ran over a partition per series;
# bench/results/leadsort.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/leadsort.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
export DATA=${DATA:-/work/scale-data-valroll} CALLS=40
exec sh "$(dirname "$0")/alternate-metric-duckdb.sh" "${1:?usage: leadsort.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: leadsort.sh MAIN_BINARY NEW_BINARY}"
