#!/bin/sh
# Alternated runs of bench/scale on DuckDB at 10,000,000 events (the tool
# shapes, then the query_metric phases): DuckDB's serving memory limit
# (duckdb.ServeMemoryLimit) 256 MB against 224 MB, with the key digests by
# slice that the metric calls read; bench/results/memlimit.md.
# From the repository root, with the two binaries built from each commit:
#   go build -o /tmp/scalebin-m256 ./bench/scale   (at the commit before)
#   go build -o /tmp/scalebin-m224 ./bench/scale   (at the commit)
#   sh bench/results/memlimit.sh /tmp/scalebin-m256 /tmp/scalebin-m224 > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
set -e
A=${1:?usage: memlimit.sh MAIN_BINARY NEW_BINARY}
B=${2:?usage: memlimit.sh MAIN_BINARY NEW_BINARY}
D=${DATA:-/work/scale-data-final}
FLAGS="-rollups -value-rollups -duckdb-threads 1 -sql-turns -backends duckdb -data $D -events 10000000"
for i in 1 2; do
  for bin in "main $A" "new $B"; do
    set -- $bin
    echo "## binary=$1 round=$i clients=16 load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    $2 $FLAGS -clients 16 -duration 4s 2>/dev/null
    echo "## binary=$1 round=$i clients=16 load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    $2 $FLAGS -metrics -clients 16 -duration 6s 2>/dev/null
    echo "## load-after: $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
