#!/bin/bash
# usage: measure.sh ROUNDS INPUT... ; alternates before/after per input
R=$1; shift
for r in $(seq 1 $R); do
 for in in "$@"; do
  for bin in before after; do
   rm -f t.duckdb t.duckdb.wal
   l0=$(cut -d' ' -f1 /proc/loadavg)
   PROVENANT_TRACE_PHASES=1 /usr/bin/time -f "time wall %e user %U sys %S maxrss_kB %M" ./provenant-$bin import --json --catalog /work/wt-import3/catalogs/warehouse.yaml --dataset status_events --db t.duckdb $in > out.json 2> err.txt
   l1=$(cut -d' ' -f1 /proc/loadavg)
   echo "## round $r $in $bin load $l0 -> $l1"
   cat out.json; grep -v "^$" err.txt
  done
 done
done
