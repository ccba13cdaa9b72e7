#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on DuckDB: main
# before the resolver's own key floors (FirstKeysHold reading every row of
# the window) against after (FirstKeysHold reading only the hours whose
# least key can be listed); bench/results/firstkeys-floors.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/firstkeys-floors.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
export DATA=${DATA:-/work/scale-data-valroll} CALLS=20
exec sh "$(dirname "$0")/alternate-metric-duckdb.sh" "${1:?usage: firstkeys-floors.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: firstkeys-floors.sh MAIN_BINARY NEW_BINARY}"
