package shape

import (
	"context"
	"database/sql"
	"time"

	"github.com/provenant/provenant/ingest"
)

// ImportOptions are the sink options of every import into a table the
// shapes read: a staging sink moves the rows in with their validity
// intervals (MoveStaged), an appending sink fills them as rows arrive in
// order into an empty table (SinkOptions.ValidTo), and the import's transaction brings the derived
// structures up to date before it commits (Derive), so that no reader
// sees new rows without them. o tunes Derive; nil means defaults.
func ImportOptions(o *DeriveOptions) *ingest.SinkOptions {
	return &ingest.SinkOptions{
		AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
			d := DeriveOptions{}
			if o != nil {
				d = *o
			}
			if d.Catalog == nil {
				d.Catalog = l.Catalog
			}
			if d.WindowKeys && d.WindowGroups == nil && l.Catalog != nil {
				d.WindowGroups = WindowGroups(l.Catalog, l.Dataset)
			}
			return Derive(ctx, tx, l.Dataset, l.Table, &d)
		},
		Move: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout, staging string) error {
			return MoveStaged(ctx, tx, l.Dataset, l.Table, staging)
		},
		ValidTo:     ValidToColumn,
		ValidToOpen: openEnd,
	}
}

// openEnd is OpenEnd as a time.
var openEnd = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
