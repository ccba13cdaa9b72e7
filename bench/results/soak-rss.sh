#!/bin/sh
# Resident memory of a DuckDB metric server at 10,000,000 events over a
# longer run than the recordings': bench/scale's query_metric phases (a
# week then a shift, sixteen clients then one), each $DUR (60s) long, as
# `serve` serves DuckDB, with the measuring process's RSS and high-water
# mark sampled every 5 s from /proc; bench/results/soak-rss.md.
#   go build -o /tmp/scalebin-cur ./bench/scale
#   BIN=/tmp/scalebin-cur DATA=/tmp/sd sh bench/results/soak-rss.sh > out.txt
BIN=${BIN:-/tmp/scalebin-cur}
$BIN -metrics -rollups -value-rollups -duckdb-threads 1 -sql-turns -backends duckdb -data ${DATA:-/tmp/sd} -events 10000000 -clients 16 -duration ${DUR:-60s} > /tmp/soak-rss.json 2>/dev/null &
parent=$!
t=0
while kill -0 $parent 2>/dev/null; do
  # bench/scale measures in a child process of its own.
  child=$(pgrep -P $parent | head -1)
  if [ -n "$child" ]; then
    echo "t=${t}s $(awk '/VmRSS|VmHWM/{printf "%s %d MB ", $1, $2/1024}' /proc/$child/status 2>/dev/null)"
  fi
  sleep 5; t=$((t+5))
done
cat /tmp/soak-rss.json
