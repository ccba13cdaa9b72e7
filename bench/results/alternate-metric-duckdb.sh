#!/bin/sh
# The alternation the metric measurement records on DuckDB share
# (entries-intervals.sh, firstkeys-floors.sh, leadsort.sh, slices.sh,
# stmtcuts.sh, rederive-edges.sh, beforebound.sh, value-slices.sh): three rounds of main's
# binary then the new one's, each the same $CALLS (40) one-client requests
# of each query_metric phase at demo, 1M and 10M events (-metric-calls), then
# sixteen clients and one for 6 s each at 10M; served as `serve` serves
# DuckDB (-duckdb-threads 1 -sql-turns), on the files in $DATA (built
# first by the new binary when missing, with $BUILD_FLAGS added).
#   sh bench/results/alternate-metric-duckdb.sh MAIN_BINARY NEW_BINARY > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
set -e
A=${1:?usage: alternate-metric-duckdb.sh MAIN_BINARY NEW_BINARY}
B=${2:?usage: alternate-metric-duckdb.sh MAIN_BINARY NEW_BINARY}
D=${DATA:-/tmp/sd}
FLAGS="-metrics -rollups -value-rollups -duckdb-threads 1 -sql-turns -backends duckdb -data $D"
$B -build $FLAGS $BUILD_FLAGS -events demo,1000000,10000000 >/dev/null 2>&1
for i in 1 2 3; do
  for bin in "main $A" "new $B"; do
    set -- $bin
    echo "## binary=$1 round=$i calls load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    $2 $FLAGS -events demo,1000000,10000000 -metric-calls ${CALLS:-40} 2>/dev/null
    echo "## binary=$1 round=$i clients=16 load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    $2 $FLAGS -events 10000000 -clients 16 -duration 6s 2>/dev/null
    echo "## load-after: $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
