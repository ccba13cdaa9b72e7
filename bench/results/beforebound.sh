#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on DuckDB: main
# before the executor's first keys are bounded by the rows before the
# window (when they alone hold the 1,000 keys and the key floors leave at
# most an hour of the window below the bound: no statement for the
# window's first hours' top 1,000), against after;
# bench/results/beforebound.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/beforebound.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
set -e
A=${1:?usage: beforebound.sh MAIN_BINARY NEW_BINARY}
B=${2:?usage: beforebound.sh MAIN_BINARY NEW_BINARY}
D=${DATA:-/tmp/sd}
FLAGS="-metrics -rollups -value-rollups -duckdb-threads 1 -sql-turns -backends duckdb -data $D"
$B -build $FLAGS -events demo,1000000,10000000 >/dev/null 2>&1
for i in 1 2 3; do
  for bin in "main $A" "new $B"; do
    set -- $bin
    echo "## binary=$1 round=$i calls load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    $2 $FLAGS -events demo,1000000,10000000 -metric-calls 40 2>/dev/null
    echo "## binary=$1 round=$i clients=16 load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    $2 $FLAGS -events 10000000 -clients 16 -duration 6s 2>/dev/null
    echo "## load-after: $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
