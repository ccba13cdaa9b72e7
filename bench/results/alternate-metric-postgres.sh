#!/bin/sh
# The alternation the metric measurement records on PostgreSQL share
# (entries-intervals-pg.sh, leadsort-pg.sh, slices-pg.sh, stmtcuts-pg.sh,
# value-slices-pg.sh):
# three rounds of main's binary then the new one's, each the same $CALLS
# (20) one-client requests of each query_metric phase at demo, 1M and 10M
# events, on the schemas prefixed $SCHEMA in the local PostgreSQL (built
# first by the new binary when missing, with $DATA for the generator's
# files).
#   sh bench/results/alternate-metric-postgres.sh MAIN_BINARY NEW_BINARY > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
set -e
A=${1:?usage: alternate-metric-postgres.sh MAIN_BINARY NEW_BINARY}
B=${2:?usage: alternate-metric-postgres.sh MAIN_BINARY NEW_BINARY}
D=${DATA:-/tmp/sd}
FLAGS="-metrics -rollups -value-rollups -backends postgres -postgres-schema ${SCHEMA:-sc_} -data $D"
$B -build $FLAGS -events demo,1000000,10000000 >/dev/null 2>&1
for i in 1 2 3; do
  for bin in "main $A" "new $B"; do
    set -- $bin
    echo "## binary=$1 round=$i calls load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    $2 $FLAGS -events demo,1000000,10000000 -metric-calls ${CALLS:-20} 2>/dev/null
    echo "## load-after: $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
