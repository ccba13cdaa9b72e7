package retail

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// TimestampLayout is the only accepted timestamp form: UTC to the second.
const TimestampLayout = "2006-01-02T15:04:05Z"

// ErrInvalidStore is matched (with errors.Is) by every *LoadError.
var ErrInvalidStore = errors.New("invalid store file")

// LoadError reports the first problem found in a store file. It names the
// record ("events[12]", with its id when one was read) and the field, never
// the rejected value: store files may be large or hostile.
type LoadError struct {
	Record string // "events[12] (evt-000013)", "stores[0]", or "" for the document
	Field  string // "price_cents"; "" when the record as a whole is at fault
	Reason string
}

func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString("load store")
	if e.Record != "" {
		b.WriteString(": " + e.Record)
	}
	if e.Field != "" {
		b.WriteString(": field " + e.Field)
	}
	b.WriteString(": " + e.Reason)
	return b.String()
}

// Is makes errors.Is(err, ErrInvalidStore) hold for load errors.
func (e *LoadError) Is(target error) bool { return target == ErrInvalidStore }

// Wire forms: pointers so that a missing field is told apart from a zero
// one. Each is filled from one token pass over its record.
type wireStore struct {
	ID   *string
	Name *string
}

type wireProduct struct {
	ID       *string
	Name     *string
	Category *string
}

type wireEvent struct {
	ID         *string
	StoreID    *string
	ProductID  *string
	Timestamp  *string
	State      *string
	PriceCents json.Token // a json.Number for a JSON number
	Flag       *string
}

// The exact field names of each record kind.
var (
	storeFields   = []string{"store_id", "name"}
	productFields = []string{"product_id", "name", "category"}
	eventFields   = []string{"event_id", "store_id", "product_id", "timestamp", "state", "price_cents", "compliance_flag"}
)

// Load reads and validates a store file. It fails closed on the first
// problem with a *LoadError naming the record and field.
func Load(r io.Reader) (*Dataset, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	docErr := func(reason string) error { return &LoadError{Reason: reason} }

	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, docErr("document must be a JSON object")
	}
	d := &Dataset{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, docErr("malformed JSON")
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, &LoadError{Field: safeName(key), Reason: "duplicate key"}
		}
		seen[key] = true
		switch key {
		case "dataset_version":
			var v *string
			if err := dec.Decode(&v); err != nil || v == nil {
				return nil, &LoadError{Field: key, Reason: "must be a string"}
			}
			if err := checkVersion(*v); err != nil {
				return nil, &LoadError{Field: key, Reason: err.Error()}
			}
			d.Version = *v
		case "stores":
			err = eachRecord(dec, key, func(rec string) error {
				v, err := readRecord(dec, rec, storeFields)
				if err != nil {
					return err
				}
				w := wireStore{str(v[0]), str(v[1])}
				if err := typed(rec, storeFields, v, -1); err != nil {
					return err
				}
				s, err := w.validate(rec)
				if err == nil {
					d.Stores = append(d.Stores, s)
				}
				return err
			})
		case "products":
			err = eachRecord(dec, key, func(rec string) error {
				v, err := readRecord(dec, rec, productFields)
				if err != nil {
					return err
				}
				w := wireProduct{str(v[0]), str(v[1]), str(v[2])}
				if err := typed(rec, productFields, v, -1); err != nil {
					return err
				}
				p, err := w.validate(rec)
				if err == nil {
					d.Products = append(d.Products, p)
				}
				return err
			})
		case "events":
			err = eachRecord(dec, key, func(rec string) error {
				v, err := readRecord(dec, rec, eventFields)
				if err != nil {
					return err
				}
				w := wireEvent{str(v[0]), str(v[1]), str(v[2]), str(v[3]), str(v[4]), v[5], str(v[6])}
				if err := typed(rec, eventFields, v, 5); err != nil {
					return err
				}
				e, err := w.validate(rec)
				if err == nil {
					d.Events = append(d.Events, e)
				}
				return err
			})
		default:
			return nil, &LoadError{Field: safeName(key), Reason: "unknown field (want dataset_version, stores, products or events)"}
		}
		if err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, docErr("malformed JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, docErr("trailing data after the document")
	}
	for _, k := range []string{"dataset_version", "stores", "products", "events"} {
		if !seen[k] {
			return nil, &LoadError{Field: k, Reason: "missing"}
		}
	}
	if err := d.checkReferences(); err != nil {
		return nil, err
	}
	return d, nil
}

// eachRecord walks one top-level array, calling fn to read each element
// from dec.
func eachRecord(dec *json.Decoder, key string, fn func(rec string) error) error {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return &LoadError{Field: key, Reason: "must be an array"}
	}
	for i := 0; dec.More(); i++ {
		if err := fn(fmt.Sprintf("%s[%d]", key, i)); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return &LoadError{Field: key, Reason: "malformed JSON"}
	}
	return nil
}

// absent marks a field a record did not have.
type absent struct{}

// readRecord reads one record, a flat JSON object, in a single token pass:
// every key must be one of fields exactly (encoding/json's struct decoding
// would match names in any case) and appear once (it would keep the last
// of duplicates). It returns each field's value token, or absent{}; a
// nested object or array as a value is an error naming the field.
func readRecord(dec *json.Decoder, rec string, fields []string) ([]json.Token, error) {
	malformed := &LoadError{Record: rec, Reason: "malformed JSON"}
	tok, err := dec.Token()
	if err != nil {
		return nil, malformed
	}
	if tok != json.Delim('{') {
		return nil, &LoadError{Record: rec, Reason: "must be a JSON object"}
	}
	vals := make([]json.Token, len(fields))
	for i := range vals {
		vals[i] = absent{}
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, malformed
		}
		key, _ := tok.(string)
		i := slices.Index(fields, key)
		switch {
		case i < 0:
			return nil, &LoadError{Record: rec, Field: safeName(key), Reason: "unknown field"}
		case vals[i] != absent{}:
			return nil, &LoadError{Record: rec, Field: key, Reason: "duplicate field"}
		}
		if vals[i], err = dec.Token(); err != nil {
			return nil, malformed
		}
		if _, nested := vals[i].(json.Delim); nested {
			return nil, &LoadError{Record: rec, Field: key, Reason: "must not be an object or an array"}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, malformed
	}
	return vals, nil
}

// typed checks that every present field but the one at index except holds
// a JSON string (null counts as present and wrong).
func typed(rec string, fields []string, vals []json.Token, except int) error {
	for i, v := range vals {
		if i == except || v == (absent{}) {
			continue
		}
		if _, ok := v.(string); !ok {
			return &LoadError{Record: rec, Field: fields[i], Reason: "must be a string"}
		}
	}
	return nil
}

// str returns a string token's value, or nil for anything else.
func str(t json.Token) *string {
	if s, ok := t.(string); ok {
		return &s
	}
	return nil
}

func (w wireStore) validate(rec string) (Store, error) {
	if w.ID != nil {
		rec = withID(rec, *w.ID, IsStoreID)
	}
	if err := required(rec, "store_id", w.ID, IsStoreID, "must be st- and 3 digits"); err != nil {
		return Store{}, err
	}
	if err := required(rec, "name", w.Name, nonEmpty, "must be a non-empty string"); err != nil {
		return Store{}, err
	}
	return Store{ID: *w.ID, Name: *w.Name}, nil
}

func (w wireProduct) validate(rec string) (Product, error) {
	if w.ID != nil {
		rec = withID(rec, *w.ID, IsProductID)
	}
	if err := required(rec, "product_id", w.ID, IsProductID, "must be pr- and 3 digits"); err != nil {
		return Product{}, err
	}
	if err := required(rec, "name", w.Name, nonEmpty, "must be a non-empty string"); err != nil {
		return Product{}, err
	}
	if err := required(rec, "category", w.Category, nonEmpty, "must be a non-empty string"); err != nil {
		return Product{}, err
	}
	return Product{ID: *w.ID, Name: *w.Name, Category: *w.Category}, nil
}

func (w wireEvent) validate(rec string) (Event, error) {
	if w.ID != nil {
		rec = withID(rec, *w.ID, IsEventID)
	}
	checks := []struct {
		field  string
		v      *string
		ok     func(string) bool
		reason string
	}{
		{"event_id", w.ID, IsEventID, "must be evt- and 6 digits"},
		{"store_id", w.StoreID, IsStoreID, "must be st- and 3 digits"},
		{"product_id", w.ProductID, IsProductID, "must be pr- and 3 digits"},
		{"timestamp", w.Timestamp, IsTimestamp, "must be UTC to the second, like 2026-01-01T08:00:00Z"},
		{"state", w.State, func(s string) bool { return State(s).Valid() }, "must be one of IN_STOCK, LOW_STOCK, OUT_OF_STOCK, OVERSTOCK"},
		{"compliance_flag", w.Flag, func(s string) bool { return Flag(s).Valid() }, "must be one of COMPLIANT, PRICE_MISMATCH, EXPIRED_PRODUCT, PLANOGRAM_VIOLATION"},
	}
	for _, c := range checks {
		if err := required(rec, c.field, c.v, c.ok, c.reason); err != nil {
			return Event{}, err
		}
	}
	price, ok := parseCents(w.PriceCents)
	if w.PriceCents == (absent{}) {
		return Event{}, &LoadError{Record: rec, Field: "price_cents", Reason: "missing"}
	}
	if !ok {
		return Event{}, &LoadError{Record: rec, Field: "price_cents", Reason: "must be a non-negative JSON integer"}
	}
	return Event{
		ID: *w.ID, StoreID: *w.StoreID, ProductID: *w.ProductID, Timestamp: *w.Timestamp,
		State: State(*w.State), PriceCents: price, Flag: Flag(*w.Flag),
	}, nil
}

func (d *Dataset) checkReferences() error {
	stores := make(map[string]bool, len(d.Stores))
	for i, s := range d.Stores {
		if stores[s.ID] {
			return &LoadError{Record: fmt.Sprintf("stores[%d] (%s)", i, s.ID), Field: "store_id", Reason: "duplicate store_id"}
		}
		stores[s.ID] = true
	}
	products := make(map[string]bool, len(d.Products))
	for i, p := range d.Products {
		if products[p.ID] {
			return &LoadError{Record: fmt.Sprintf("products[%d] (%s)", i, p.ID), Field: "product_id", Reason: "duplicate product_id"}
		}
		products[p.ID] = true
	}
	events := make(map[string]bool, len(d.Events))
	for i, e := range d.Events {
		rec := fmt.Sprintf("events[%d] (%s)", i, e.ID)
		if events[e.ID] {
			return &LoadError{Record: rec, Field: "event_id", Reason: "duplicate event_id"}
		}
		events[e.ID] = true
		if !stores[e.StoreID] {
			return &LoadError{Record: rec, Field: "store_id", Reason: "names a store that is not declared in stores"}
		}
		if !products[e.ProductID] {
			return &LoadError{Record: rec, Field: "product_id", Reason: "names a product that is not declared in products"}
		}
	}
	return nil
}

func required(rec, field string, v *string, ok func(string) bool, reason string) error {
	if v == nil {
		return &LoadError{Record: rec, Field: field, Reason: "missing"}
	}
	if !ok(*v) {
		return &LoadError{Record: rec, Field: field, Reason: reason}
	}
	return nil
}

// withID adds a well-formed id to a record name; a malformed one is not
// echoed.
func withID(rec, id string, ok func(string) bool) string {
	if ok(id) {
		return rec + " (" + id + ")"
	}
	return rec
}

func nonEmpty(s string) bool { return strings.TrimSpace(s) != "" && len(s) <= 200 }

func checkVersion(v string) error {
	if v == "" || len(v) > 64 {
		return errors.New("must be 1 to 64 characters")
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return errors.New("may hold only letters, digits, '-', '_' and '.'")
		}
	}
	return nil
}

// parseCents accepts a bare JSON integer: digits only, no sign, fraction,
// exponent, quotes or literals, and small enough for int64. The decoder
// runs with UseNumber, so a JSON number arrives as its literal text.
func parseCents(t json.Token) (int64, bool) {
	raw, ok := t.(json.Number)
	if !ok || len(raw) == 0 || len(raw) > 15 || len(raw) > 1 && raw[0] == '0' {
		return 0, false
	}
	var n int64
	for _, c := range []byte(raw) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// safeName returns a field name fit to print back: short and plain.
func safeName(s string) string {
	const max = 40
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= max {
			b.WriteString("…")
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteRune('?')
		}
	}
	if b.Len() == 0 {
		return `""`
	}
	return b.String()
}

// IsStoreID reports whether s is "st-" and 3 digits.
func IsStoreID(s string) bool { return prefixDigits(s, "st-", 3) }

// IsProductID reports whether s is "pr-" and 3 digits.
func IsProductID(s string) bool { return prefixDigits(s, "pr-", 3) }

// IsEventID reports whether s is "evt-" and 6 digits.
func IsEventID(s string) bool { return prefixDigits(s, "evt-", 6) }

func prefixDigits(s, prefix string, n int) bool {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || len(rest) != n {
		return false
	}
	for i := 0; i < n; i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return false
		}
	}
	return true
}

// IsTimestamp reports whether s is a valid timestamp in TimestampLayout.
func IsTimestamp(s string) bool {
	if len(s) != len(TimestampLayout) {
		return false
	}
	t, err := time.Parse(TimestampLayout, s)
	return err == nil && t.Format(TimestampLayout) == s
}
