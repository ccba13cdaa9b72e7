-- the dataset's rows, one column per declared column plus _ingest_seq
CREATE TABLE IF NOT EXISTS "events" (
	"event_id" VARCHAR NOT NULL,
	"timestamp" TIMESTAMP NOT NULL,
	"store_id" VARCHAR NOT NULL,
	"product_id" VARCHAR NOT NULL,
	"state" VARCHAR NOT NULL,
	"price_cents" BIGINT NOT NULL,
	"compliance_flag" VARCHAR NOT NULL,
	"_ingest_seq" BIGINT NOT NULL
);

-- key: the resolver's lookups of asserted keys, one index probe each (not unique: the import's own check names the row of a repeated key)
CREATE INDEX IF NOT EXISTS "events_event_id_idx" ON "events" ("event_id");

