#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on PostgreSQL: main
# before the entries measures' re-derivation by validity intervals against
# after; bench/results/entries-intervals-pg.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/entries-intervals-pg.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
export DATA=${DATA:-/work/scale-data-entpg} SCHEMA=entpg_ CALLS=20
exec sh "$(dirname "$0")/alternate-metric-postgres.sh" "${1:?usage: entries-intervals-pg.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: entries-intervals-pg.sh MAIN_BINARY NEW_BINARY}"
