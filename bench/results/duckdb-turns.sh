#!/bin/sh
# Alternated runs of bench/scale on DuckDB: the earlier serving default
# (DuckDB's threads, calls not in turns) against serve's default since
# 2026-12-04 (one thread a query, calls in turns); bench/results/duckdb-turns.md.
# From the repository root:
#   go build -o /tmp/scalebin ./bench/scale && sh bench/results/duckdb-turns.sh /tmp/scalebin > out.txt
set -e
B=${1:?usage: duckdb-turns.sh SCALE_BINARY}
$B -build -events 100000,1000000,10000000 -backends duckdb >/dev/null 2>&1
for size in 100000 1000000 10000000; do
  for i in 1 2; do
    for cfg in "-duckdb-threads 0" "-duckdb-threads 1 -sql-turns"; do
      echo "## events=$size round=$i config=$(echo $cfg | tr ' ' '_') load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
      $B -events $size -backends duckdb -duration 5s $cfg 2>/dev/null
      echo "## load-after: $(cut -d' ' -f1-3 /proc/loadavg)"
    done
  done
done
