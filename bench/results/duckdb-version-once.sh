#!/bin/sh
# Alternated runs of bench/scale on DuckDB as serve runs it (one thread a
# query, calls in turns), with the data version read by every call against
# read once when the file opens (bench/results/duckdb-version-once.md).
# From the repository root:
#   go build -o /tmp/scalebin ./bench/scale && sh bench/results/duckdb-version-once.sh /tmp/scalebin > out.txt
set -e
B=${1:?usage: duckdb-version-once.sh SCALE_BINARY}
$B -build -events 100000,1000000 -backends duckdb >/dev/null 2>&1
for size in 100000 1000000; do
  for i in 1 2; do
    for once in false true; do
      echo "## events=$size round=$i version-once=$once load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
      $B -events $size -backends duckdb -duration 5s -duckdb-threads 1 -sql-turns -version-once=$once 2>/dev/null
      echo "## load-after: $(cut -d' ' -f1-3 /proc/loadavg)"
    done
  done
done
