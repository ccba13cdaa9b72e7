#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on PostgreSQL: main
# before the value rollups by ten-minute slice, against after, on the same
# schemas built by the new binary; bench/results/value-slices-pg.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   DATA=/tmp/sd2 SCHEMA=sc_ sh bench/results/value-slices-pg.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
exec sh "$(dirname "$0")/alternate-metric-postgres.sh" "${1:?usage: value-slices-pg.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: value-slices-pg.sh MAIN_BINARY NEW_BINARY}"
