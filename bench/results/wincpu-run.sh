#!/bin/bash
# Alternated before/after runs of BenchmarkCall (store/postgres, pipeline=nodigest; store/duckdb).
# Raw outputs land in $out/{pg,duck}-{before,after2}.txt and $out/load.txt; committed as bench/results/wincpu-{pg,duck}-{before,after}.txt.
out=/work/scale-data-wincpu
: > $out/pg-before.txt; : > $out/pg-after2.txt; : > $out/duck-before.txt; : > $out/duck-after2.txt; : > $out/load.txt
cd /work/wt-wincpu/store/postgres
for i in 1 2 3 4 5 6 7 8; do
  for v in before after2; do
    echo "pg $v $i $(date +%T) $(cat /proc/loadavg)" >> $out/load.txt
    CI=true /tmp/wincpu-$v.test -test.run XXX -test.bench 'BenchmarkCall/shape=(latest_value|count_rows_in_window|count_rows_in_window_small)/pipeline=nodigest' -test.benchtime 300x -test.benchmem >> $out/pg-$v.txt 2>&1
  done
done
cd /work/wt-wincpu/store/duckdb
for i in 1 2 3 4 5 6 7 8; do
  for v in before after2; do
    echo "duck $v $i $(date +%T) $(cat /proc/loadavg)" >> $out/load.txt
    /tmp/wincpu-duck-$v.test -test.run XXX -test.bench 'BenchmarkCall' -test.benchtime 100x -test.benchmem >> $out/duck-$v.txt 2>&1
  done
done
echo "end $(date +%T) $(cat /proc/loadavg)" >> $out/load.txt
