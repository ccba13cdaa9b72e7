#!/bin/sh
# The metric key floors' reads on PostgreSQL at 10,000,000 events, timed by
# psql (bench/results/floors-reads.md): the executor's floors by hour and
# group, the resolver's by hour (EXTRACT's numeric, then date_part's
# double), and the executor's floors of the last 20,000 rows only (what a
# new version after a 20,000-row import reads). The schema is bench/scale's
# (-postgres-schema fkpg_ -events 10000000, built by firstkeys-floors-pg.sh).
set -e
S=${SCHEMA:-fkpg_10000000}
# The watermark 20,000 rows back, as a literal: the keeper binds one.
N=$(psql -h 127.0.0.1 -U postgres -d test -Atc "SELECT MAX(\"_ingest_seq\") - 20000 FROM $S.status_events")
psql -h 127.0.0.1 -U postgres -d test -At \
  -c '\timing on' \
  -c "SELECT count(*) FROM (SELECT date_trunc('hour', ts), CAST(zone_id AS VARCHAR), MIN(CAST(event_id AS VARCHAR) COLLATE \"C\") FROM $S.status_events WHERE event_id IS NOT NULL AND CAST(event_id AS VARCHAR) <> '' GROUP BY 1, 2) x" \
  -c "SELECT count(*) FROM (SELECT CAST(FLOOR(EXTRACT(EPOCH FROM ts) / 3600) AS BIGINT), MIN(CAST(event_id AS VARCHAR) COLLATE \"C\") FROM $S.status_events WHERE ts IS NOT NULL AND event_id IS NOT NULL AND CAST(event_id AS VARCHAR) <> '' GROUP BY 1) x" \
  -c "SELECT count(*) FROM (SELECT CAST(FLOOR(date_part('epoch', ts) / 3600) AS BIGINT), MIN(CAST(event_id AS VARCHAR) COLLATE \"C\") FROM $S.status_events WHERE ts IS NOT NULL AND event_id IS NOT NULL AND CAST(event_id AS VARCHAR) <> '' GROUP BY 1) x" \
  -c "SELECT count(*) FROM (SELECT date_trunc('hour', ts), CAST(zone_id AS VARCHAR), MIN(CAST(event_id AS VARCHAR) COLLATE \"C\") FROM $S.status_events WHERE event_id IS NOT NULL AND CAST(event_id AS VARCHAR) <> '' AND \"_ingest_seq\" > $N GROUP BY 1, 2) x"
