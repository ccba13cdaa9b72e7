#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on DuckDB: main
# before RederiveValues reads a window's head and tail (each computed as
# its own window) in one statement, against after (two statements before);
# bench/results/rederive-edges.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-main ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-new ./bench/scale    (at the commit)
#   sh bench/results/rederive-edges.sh /tmp/scalebin-main /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
set -e
A=${1:?usage: rederive-edges.sh MAIN_BINARY NEW_BINARY}
B=${2:?usage: rederive-edges.sh MAIN_BINARY NEW_BINARY}
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
