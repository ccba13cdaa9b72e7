#!/bin/sh
# files-check-10m.sh CATALOG ROUNDS: one cold point question over a files
# catalog, ./prov-old and ./prov-new alternated ROUNDS times, printing
# build, wall time and peak resident memory (bench/results/files-check.md).
CAT=${1:?usage: files-check-10m.sh CATALOG ROUNDS}
for r in $(seq "${2:-3}"); do
  for b in old new; do
    /usr/bin/time -f "$r $b %e s %M KB" ./prov-$b ask --catalog "$CAT" --now 2026-01-12T00:00:00Z --log-level error "What is the status of dev-0007 as of 2026-01-08T00:00:00Z?" > /dev/null
  done
done
