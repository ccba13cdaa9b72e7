#!/bin/sh
# Peak RSS at 10,000,000 events with sixteen metric clients on DuckDB, the
# Go runtime's soft memory limit off and at 150 MiB (GOMEMLIMIT),
# alternated three rounds; bench/results/gomemlimit.md. BIN is
# `go build -o /tmp/scalebin-cur ./bench/scale`, DATA the files built by it.
#   sh bench/results/gomemlimit.sh > out.txt
for i in 1 2 3; do
  for lim in off 150MiB; do
    echo "## limit=$lim round=$i load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    if [ $lim = off ]; then
      ${BIN:-/tmp/scalebin-cur} -metrics -rollups -value-rollups -duckdb-threads 1 -sql-turns -backends duckdb -data ${DATA:-/tmp/sd} -events 10000000 -clients 16 -duration 6s 2>/dev/null
    else
      GOMEMLIMIT=$lim ${BIN:-/tmp/scalebin-cur} -metrics -rollups -value-rollups -duckdb-threads 1 -sql-turns -backends duckdb -data ${DATA:-/tmp/sd} -events 10000000 -clients 16 -duration 6s 2>/dev/null
    fi
  done
done
