-- the dataset's rows, one column per declared column plus _ingest_seq
CREATE TABLE IF NOT EXISTS "status_events" (
	"event_id" TEXT COLLATE "C" NOT NULL,
	"ts" TIMESTAMP NOT NULL,
	"device_id" TEXT COLLATE "C" NOT NULL,
	"zone_id" TEXT COLLATE "C" NOT NULL,
	"device_type" TEXT COLLATE "C" NOT NULL,
	"status" TEXT COLLATE "C" NOT NULL,
	"battery_pct" BIGINT NOT NULL,
	"temperature_c" DOUBLE PRECISION NOT NULL,
	"fault_code" TEXT COLLATE "C",
	"_ingest_seq" BIGINT NOT NULL
);

-- unique key: lookups of asserted keys, and each import's check for keys already stored
CREATE UNIQUE INDEX IF NOT EXISTS "status_events_event_id_idx" ON "status_events" ("event_id");

-- data_version watermark: max(_ingest_seq) by one index probe; unique, so concurrent imports cannot share a sequence number
CREATE UNIQUE INDEX IF NOT EXISTS "status_events__ingest_seq_idx" ON "status_events" ("_ingest_seq");

-- latest_value: a series' latest row at or before as_of by one backward index probe (ties to the greatest key) (get_device_status, get_battery_level, get_temperature)
CREATE INDEX IF NOT EXISTS "status_events_device_id_ts_event_id_idx" ON "status_events" ("device_id", "ts", "event_id");

-- count_entities_where, list_entities_in_state: the rows at or before as_of, by time (count_devices_with_condition, list_devices_in_status)
CREATE INDEX IF NOT EXISTS "status_events_ts_idx" ON "status_events" ("ts");

-- list_entities_in_state: the rows of one zone at or before as_of (list_devices_in_status)
CREATE INDEX IF NOT EXISTS "status_events_zone_id_ts_idx" ON "status_events" ("zone_id", "ts");

-- count_rows_in_window: the rows of one zone and status in the window with their keys, one index-only range scan (count_status_events_in_window)
CREATE INDEX IF NOT EXISTS "status_events_zone_id_status_ts_event_id_idx" ON "status_events" ("zone_id", "status", "ts", "event_id");

