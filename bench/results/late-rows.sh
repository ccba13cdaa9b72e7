#!/bin/sh
# late-rows.sh BIN PREFIX TARGET...: import 1,000 late rows (the warehouse
# generator's seed 77 over the same 30 days and 2,000 devices as
# bench/scale's datasets, keys renamed PREFIX-NNNNNNNN so that they are new)
# with BIN into TARGET (--db FILE.duckdb, or --postgres DSN), printing the
# derivation's phases (PROVENANT_TRACE_PHASES), the import's JSON and
# /usr/bin/time's wall, CPU and peak memory (bench/results/late-rows.md).
BIN=${1:?usage: late-rows.sh BIN PREFIX TARGET...}
PREFIX=${2:?usage: late-rows.sh BIN PREFIX TARGET...}
shift 2
CSV=$(mktemp --suffix=.csv)
# LATE_DAY=YYYY-MM-DD: the rows fall within that day instead (seed 79,
# the generator's first day moved there), as telemetry a day late would.
if [ -n "$LATE_DAY" ]; then
  "$BIN" gen --catalog warehouse --events 1000 --zones 20 --devices 2000 --days 1 --seed 79 | sed "s/wh-evt-/$PREFIX-/; s/2026-01-05T/${LATE_DAY}T/" > "$CSV"
else
  "$BIN" gen --catalog warehouse --events 1000 --zones 20 --devices 2000 --days 30 --seed 77 | sed "s/wh-evt-/$PREFIX-/" > "$CSV"
fi
PROVENANT_TRACE_PHASES=1 /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB peak" \
  "$BIN" import --json --catalog catalogs/warehouse.yaml --dataset status_events "$@" "$CSV"
rm -f "$CSV"
