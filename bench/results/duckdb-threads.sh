#!/bin/sh
# Alternated runs of bench/scale with DuckDB's default worker threads and
# with one (bench/results/duckdb-threads.md). From the repository root:
#   go build -o /tmp/scalebin ./bench/scale && sh bench/results/duckdb-threads.sh /tmp/scalebin > out.txt
set -e
B=${1:?usage: duckdb-threads.sh SCALE_BINARY}
$B -build -events 1000000,10000000 -backends duckdb >/dev/null 2>&1
for size in 1000000 10000000; do
  for i in 1 2 3; do
    [ $size = 10000000 ] && [ $i = 3 ] && break
    for t in 0 1; do
      echo "## events=$size round=$i duckdb-threads=$t load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
      $B -events $size -backends duckdb -duration 5s -duckdb-threads $t 2>/dev/null
      echo "## load-after: $(cut -d' ' -f1-3 /proc/loadavg)"
    done
  done
done
for t in 0 1; do
  echo "## metrics events=1000000 duckdb-threads=$t load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
  $B -metrics -events 1000000 -backends duckdb -duration 4s -duckdb-threads $t 2>/dev/null
  echo "## load-after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
