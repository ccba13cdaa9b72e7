#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on PostgreSQL: main
# before the compiled query orders a window's candidate rows once against
# after (see leadsort.sh); bench/results/leadsort-pg.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/leadsort-pg.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
export DATA=${DATA:-/work/scale-data-valroll} SCHEMA=scale_ CALLS=20
exec sh "$(dirname "$0")/alternate-metric-postgres.sh" "${1:?usage: leadsort-pg.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: leadsort-pg.sh MAIN_BINARY NEW_BINARY}"
