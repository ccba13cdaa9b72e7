-- the dataset's rows, one column per declared column plus _ingest_seq
CREATE TABLE IF NOT EXISTS "status_events" (
	"event_id" VARCHAR NOT NULL,
	"ts" TIMESTAMP NOT NULL,
	"device_id" VARCHAR NOT NULL,
	"zone_id" VARCHAR NOT NULL,
	"device_type" VARCHAR NOT NULL,
	"status" VARCHAR NOT NULL,
	"battery_pct" BIGINT NOT NULL,
	"temperature_c" DOUBLE PRECISION NOT NULL,
	"fault_code" VARCHAR,
	"_ingest_seq" BIGINT NOT NULL
);

-- key: the resolver's lookups of asserted keys, one index probe each (not unique: the import's own check names the row of a repeated key)
CREATE INDEX IF NOT EXISTS "status_events_event_id_idx" ON "status_events" ("event_id");

