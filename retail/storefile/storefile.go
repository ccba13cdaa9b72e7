// Package storefile maps the retail demo's store file (package retail)
// onto the retail catalog (catalogs/retail.yaml): its events become the
// rows of the scans dataset, its stores and products the reference tables
// of the store and product entities. The engine imports a store file
// through it into the embedded database on load.
package storefile

import (
	"io"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/retail"
)

// Catalog is the name of the embedded catalog a store file is for.
const Catalog = "retail"

// Dataset is the retail catalog's dataset of scans.
const Dataset = "scans"

// Records returns the store file's events as the rows of the scans
// dataset, in file order, for ingest.NewRecords.
func Records(d *retail.Dataset) ingest.Records { return &eventRecords{events: d.Events} }

type eventRecords struct {
	events []retail.Event
	next   int
}

func (r *eventRecords) Columns() []string {
	return []string{"event_id", "store_id", "product_id", "timestamp", "state", "price_cents", "compliance_flag"}
}

func (r *eventRecords) Next(rec []any) error {
	if r.next >= len(r.events) {
		return io.EOF
	}
	e := r.events[r.next]
	r.next++
	rec[0], rec[1], rec[2], rec[3] = e.ID, e.StoreID, e.ProductID, e.Timestamp
	rec[4], rec[5], rec[6] = string(e.State), e.PriceCents, string(e.Flag)
	return nil
}

// References returns the ids and names the store file declares, by the
// catalog's entity name, for ingest.ImportReference.
func References(d *retail.Dataset) map[string][]ingest.ReferenceRow {
	stores := make([]ingest.ReferenceRow, len(d.Stores))
	for i, s := range d.Stores {
		stores[i] = ingest.ReferenceRow{ID: s.ID, Name: s.Name}
	}
	products := make([]ingest.ReferenceRow, len(d.Products))
	for i, p := range d.Products {
		products[i] = ingest.ReferenceRow{ID: p.ID, Name: p.Name, Columns: map[string]string{"category": p.Category}}
	}
	return map[string][]ingest.ReferenceRow{"store": stores, "product": products}
}
