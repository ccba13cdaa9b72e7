-- the dataset's rows, one column per declared column plus _ingest_seq
CREATE TABLE IF NOT EXISTS "events" (
	"event_id" TEXT COLLATE "C" NOT NULL,
	"timestamp" TIMESTAMP NOT NULL,
	"store_id" TEXT COLLATE "C" NOT NULL,
	"product_id" TEXT COLLATE "C" NOT NULL,
	"state" TEXT COLLATE "C" NOT NULL,
	"price_cents" BIGINT NOT NULL,
	"compliance_flag" TEXT COLLATE "C" NOT NULL,
	"_ingest_seq" BIGINT NOT NULL
);

-- unique key: lookups of asserted keys, and each import's check for keys already stored
CREATE UNIQUE INDEX IF NOT EXISTS "events_event_id_idx" ON "events" ("event_id");

-- data_version watermark: max(_ingest_seq) by one index probe; unique, so concurrent imports cannot share a sequence number
CREATE UNIQUE INDEX IF NOT EXISTS "events__ingest_seq_idx" ON "events" ("_ingest_seq");

-- latest_value: a series' latest row at or before as_of by one backward index probe (ties to the greatest key) (get_stock_state, get_price, get_compliance_flag)
CREATE INDEX IF NOT EXISTS "events_store_id_product_id_timestamp_event_id_idx" ON "events" ("store_id", "product_id", "timestamp", "event_id");

-- count_entities_where, list_entities_in_state: the rows at or before as_of, by time (count_stores_with_condition, list_products_in_state)
CREATE INDEX IF NOT EXISTS "events_timestamp_idx" ON "events" ("timestamp");

-- list_entities_in_state: the rows of one store at or before as_of (list_products_in_state)
CREATE INDEX IF NOT EXISTS "events_store_id_timestamp_idx" ON "events" ("store_id", "timestamp");

-- count_rows_in_window: the rows of one store and state in the window with their keys, one index-only range scan (count_events_in_window)
CREATE INDEX IF NOT EXISTS "events_store_id_state_timestamp_event_id_idx" ON "events" ("store_id", "state", "timestamp", "event_id");

