#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on DuckDB: main
# before the key digests by ten-minute slice (a window's edge hours
# summed by the hour: up to half an hour of rows hashed at each end by the
# executor, the window's rows of the hour by the resolver) against after
# (whole slices from TABLE__rollup_slices, the rows of one partial slice
# hashed at each end); both on the same files, built by the new binary
# (main does not read the slices table); bench/results/slices.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/slices.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
export DATA=${DATA:-/work/scale-data-slices} CALLS=40
exec sh "$(dirname "$0")/alternate-metric-duckdb.sh" "${1:?usage: slices.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: slices.sh MAIN_BINARY NEW_BINARY}"
