package eventlog

import (
	"embed"
	"fmt"
	"io/fs"
)

//go:embed schemas/*.json
var schemaFS embed.FS

// Schemas returns the committed JSON Schemas: envelope.v1.json and one
// TYPE.vN.json per event type, each with an $id of SchemaBase and its
// file name.
func Schemas() fs.FS {
	sub, err := fs.Sub(schemaFS, "schemas")
	if err != nil {
		panic(err) // the embedded directory exists: a build defect otherwise
	}
	return sub
}

// SchemaBase prefixes every schema's $id.
const SchemaBase = "https://provenant.dev/schemas/eventlog/"

// SchemaFile returns the file name of the schema of t at version v.
func SchemaFile(t Type, v int) string { return fmt.Sprintf("%s.v%d.json", t, v) }
