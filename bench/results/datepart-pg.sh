#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on PostgreSQL: main
# with a duration's seconds as EXTRACT(EPOCH FROM ...) (a numeric on
# PostgreSQL) in the compiled query and the re-derivation, against new with
# date_part('epoch', ...) (a double); bench/results/datepart-pg.md. The
# alternation is entries-intervals-pg.sh's (same datasets, rounds and
# calls), run with the two binaries given here.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/datepart-pg.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
exec sh "$(dirname "$0")/entries-intervals-pg.sh" "${1:?usage: datepart-pg.sh MAIN_BINARY NEW_BINARY}" "${2:?usage: datepart-pg.sh MAIN_BINARY NEW_BINARY}"
