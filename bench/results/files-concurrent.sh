#!/bin/bash
# files-concurrent.sh N [ADDR]: N store-wide calls at once (count and list
# alternately, over the warehouse catalog's tools) against a running
# `provenant serve --catalog CATALOG --addr ADDR` (default 127.0.0.1:18080);
# prints how many ended in each outcome. Used for bench/results/files-check.md.
N=${1:?usage: files-concurrent.sh N [ADDR]}
ADDR=${2:-127.0.0.1:18080}
out=$(mktemp)
for i in $(seq 1 "$N"); do
  if [ $((i % 2)) = 0 ]; then
    tool=list_devices_in_status; body="{\"zone_id\":\"zone-0$((i % 6 + 1))\",\"status\":\"RUNNING\",\"as_of\":\"2026-01-0$((i % 4 + 6))T1$((i % 10)):00:00Z\"}"
  else
    tool=count_devices_with_condition; body="{\"condition\":\"FAULTED\",\"as_of\":\"2026-01-0$((i % 4 + 6))T1$((i % 10)):00:00Z\"}"
  fi
  (curl -s -X POST "http://$ADDR/v1/tools/$tool" -H 'content-type: application/json' -d "$body" |
    python3 -c "import json, sys; d = json.load(sys.stdin); print(d.get('outcome'), d.get('reason'))" >> "$out") &
done
wait
sort "$out" | uniq -c
rm -f "$out"
