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

