#!/bin/sh
# files-spill.sh CATALOG: the four tool shapes asked once each over a
# files catalog (a cold process each), printing outcome, tool, value,
# and the command's wall time and peak resident memory.
# PROV names the provenant binary (default: provenant on PATH).
# Used for bench/results/files-check.md ("Bounded by a memory limit").
P=${PROV:-provenant}
CAT=${1:?usage: files-spill.sh CATALOG}
for q in "What is the status of dev-0007 as of 2026-01-08T00:00:00Z?" \
         "how many devices have condition FAULTED as of 2026-01-09T00:00:00Z" \
         "which devices are in status BLOCKED in zone-02 as of 2026-01-09T00:00:00Z" \
         "how many RUNNING status events in zone-02 between 2026-01-08T00:00:00Z and 2026-01-08T02:00:00Z"; do
  /usr/bin/time -f "%e s %M KB" "$P" ask --catalog "$CAT" --now 2026-01-12T00:00:00Z --log-level error "$q" --json 2>&1 | python3 -c "
import sys, json
t = sys.stdin.read()
i = t.rfind('}')
try:
    d = json.loads(t[:i+1])
    print(d.get('outcome'), d.get('tool'), str(d.get('value'))[:40], d.get('reason'), '|', t[i+1:].strip())
except Exception:
    print('ERR', t[-300:])
"
done
