#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on PostgreSQL: main
# before the three cuts to a call's statements against after (see
# stmtcuts.sh); bench/results/stmtcuts-pg.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/stmtcuts-pg.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
set -e
A=${1:?usage: stmtcuts-pg.sh MAIN_BINARY NEW_BINARY}
B=${2:?usage: stmtcuts-pg.sh MAIN_BINARY NEW_BINARY}
D=${DATA:-/tmp/sd}
FLAGS="-metrics -rollups -value-rollups -backends postgres -postgres-schema ${SCHEMA:-sc_} -data $D"
$B -build $FLAGS -events demo,1000000,10000000 >/dev/null 2>&1
for i in 1 2 3; do
  for bin in "main $A" "new $B"; do
    set -- $bin
    echo "## binary=$1 round=$i calls load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    $2 $FLAGS -events demo,1000000,10000000 -metric-calls 20 2>/dev/null
    echo "## load-after: $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
