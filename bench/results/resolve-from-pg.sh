#!/bin/sh
# Alternated runs of bench/scale's query_metric phases on PostgreSQL, one
# binary: the resolver as before (a window re-derived from the value
# rollups from 24 whole hours on, and only past 100,000 contributing rows:
# -metric-resolve-from 24h -metric-resolve-rows 100000, metric's defaults)
# against serve's PostgreSQL settings (postgres.MetricResolveFrom, 2 hours,
# and postgres.MetricResolveRows, the rollups however few the rows: the
# flags left at 0); bench/results/resolve-from-pg.md.
# From the repository root:
#   go build -o /tmp/scalebin-new ./bench/scale
#   sh bench/results/resolve-from-pg.sh /tmp/scalebin-new > out.txt
#   python3 bench/results/firstkeys-floors-summ.py out.txt
set -e
B=${1:?usage: resolve-from-pg.sh BINARY}
D=${DATA:-/work/scale-data-entpg}
FLAGS="-metrics -rollups -value-rollups -backends postgres -postgres-schema entpg_ -data $D"
$B -build $FLAGS -events demo,1000000,10000000 >/dev/null 2>&1
for i in 1 2 3; do
  for v in main new; do
    X=""
    [ $v = main ] && X="-metric-resolve-from 24h -metric-resolve-rows 100000"
    echo "## binary=$v round=$i calls load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    $B $FLAGS $X -events demo,1000000,10000000 -metric-calls 20 2>/dev/null
    echo "## load-after: $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
