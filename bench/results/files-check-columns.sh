#!/bin/sh
# files-check-columns.sh: alternates two builds (./prov-old, ./prov-new)
# before and after the files check of numeric columns, one
# question from a cold process each, over 1M rows as CSV and Parquet
# (cat-csv.yaml, cat-parquet.yaml: see files-check.md), appending
# wall time and peak memory to times.txt.
for round in 1 2 3; do
  for f in parquet csv; do
    for b in old new; do
      /usr/bin/time -f "$round $f $b %e s %M KB" ./prov-$b ask --catalog cat-$f.yaml --now 2026-01-08T00:00:00Z "What is the status of dev-0007?" --json > /dev/null 2>> times.txt
    done
  done
done
