#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on PostgreSQL: main
# before the three cuts to a call's statements against after (see
# stmtcuts.sh); bench/results/stmtcuts-pg.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/stmtcuts-pg.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
export DATA=${DATA:-/tmp/sd} SCHEMA=${SCHEMA:-sc_} CALLS=20
exec sh "$(dirname "$0")/alternate-metric-postgres.sh" "${1:?usage: stmtcuts-pg.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: stmtcuts-pg.sh MAIN_BINARY NEW_BINARY}"
