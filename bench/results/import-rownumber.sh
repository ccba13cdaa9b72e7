#!/bin/sh
# Alternates two provenant binaries importing the same file into a new
# DuckDB file, ROUNDS times, and prints one markdown row a run.
# usage: sh import-rownumber.sh BEFORE AFTER FILE ROUNDS CATALOG
set -e
before=$1 after=$2 file=$3 rounds=$4 catalog=$5
db=$(mktemp -d)/t.duckdb
echo "| round | binary | rows/s | import s | process CPU s (user+sys) | native read+validate+insert wall / CPU s | commit wall / CPU s | peak RSS MB | load before |"
echo "|---|---|---:|---:|---:|---|---|---:|---:|"
for r in $(seq 1 "$rounds"); do
  for b in before after; do
    eval bin=\$$b
    rm -f "$db" "$db.wal"
    load=$(cut -d' ' -f1 /proc/loadavg)
    out=$(PROVENANT_TRACE_PHASES=1 /usr/bin/time -f "TIME %U %S %M" "$bin" import --json --catalog "$catalog" --dataset status_events --db "$db" "$file" 2>&1)
    rps=$(echo "$out" | grep -o '"rows_per_second":[0-9.]*' | cut -d: -f2)
    secs=$(echo "$out" | grep -o '"seconds":[0-9.]*' | cut -d: -f2)
    cpu=$(echo "$out" | awk '/^TIME/ {printf "%.1f", $2+$3}')
    rss=$(echo "$out" | awk '/^TIME/ {printf "%d", $4/1024}')
    nat=$(echo "$out" | awk '/phase native read/ {printf "%s / %s", $5, $7}')
    com=$(echo "$out" | awk '/phase commit/ {printf "%s / %s", $4, $6}')
    printf "| %s | %s | %.0f | %.1f | %s | %s | %s | %s | %s |\n" "$r" "$b" "$rps" "$secs" "$cpu" "$nat" "$com" "$rss" "$load"
  done
done
