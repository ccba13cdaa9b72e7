#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on PostgreSQL:
# main before the metric key floors were kept there (the executor's least
# keys and the resolver's check each comparing every key of the window)
# against after (both reading only the hours their floors allow, the
# floors' MIN in collation C: metric.Options.KeyOrder);
# bench/results/firstkeys-floors-pg.md.
# From the repository root, with the two binaries built from each commit:
#   sh bench/results/firstkeys-floors-pg.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
# PostgreSQL at bench/scale's default DSN; the schemas fkpg_* are built first.
set -e
A=${1:?usage: firstkeys-floors-pg.sh MAIN_BINARY NEW_BINARY}
B=${2:?usage: firstkeys-floors-pg.sh MAIN_BINARY NEW_BINARY}
D=${DATA:-/work/scale-data-fkpg}
FLAGS="-metrics -rollups -value-rollups -backends postgres -postgres-schema fkpg_ -data $D"
$B -build $FLAGS -events demo,1000000,10000000 >/dev/null 2>&1
for i in 1 2; do
  for bin in "main $A" "new $B"; do
    set -- $bin
    echo "## binary=$1 round=$i calls load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    $2 $FLAGS -events demo,1000000,10000000 -metric-calls 12 2>/dev/null
    echo "## load-after: $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
