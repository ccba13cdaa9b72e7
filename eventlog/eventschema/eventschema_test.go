package eventschema_test

import (
	"errors"
	"testing"

	"github.com/provenant/provenant/eventlog/eventschema"
)

func TestValidateEvent_NoSchema(t *testing.T) {
	v, err := eventschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`{"type":"envelope","schema_version":1}`,
		`{"type":"abstained","schema_version":2}`,
		`{"type":"nope","schema_version":1}`,
		`[1]`,
		`not json`,
	} {
		if err := v.ValidateEvent([]byte(line)); !errors.Is(err, eventschema.ErrSchema) {
			t.Errorf("ValidateEvent(%s) = %v; want ErrSchema", line, err)
		}
	}
}
