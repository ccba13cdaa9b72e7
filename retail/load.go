package retail

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/provenant/provenant/internal/strictjson"
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

// Wire forms, read by the one strict decoder (package strictjson): keys
// match exactly and once, unknown ones are refused, strings are valid
// UTF-8. Pointers tell a missing field from a zero one; price_cents stays
// raw so that only a bare JSON integer is accepted.
type wireStore struct {
	ID   *string `json:"store_id"`
	Name *string `json:"name"`
}

type wireProduct struct {
	ID       *string `json:"product_id"`
	Name     *string `json:"name"`
	Category *string `json:"category"`
}

type wireEvent struct {
	ID         *string         `json:"event_id"`
	StoreID    *string         `json:"store_id"`
	ProductID  *string         `json:"product_id"`
	Timestamp  *string         `json:"timestamp"`
	State      *string         `json:"state"`
	PriceCents json.RawMessage `json:"price_cents"`
	Flag       *string         `json:"compliance_flag"`
}

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
			return nil, &LoadError{Field: key, Reason: "duplicate key"}
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
				var w wireStore
				if err := readRecord(dec, rec, &w); err != nil {
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
				var w wireProduct
				if err := readRecord(dec, rec, &w); err != nil {
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
				var w wireEvent
				if err := readRecord(dec, rec, &w); err != nil {
					return err
				}
				e, err := w.validate(rec)
				if err == nil {
					d.Events = append(d.Events, e)
				}
				return err
			})
		default:
			// The key is not repeated: a store file may be hostile.
			return nil, &LoadError{Reason: fmt.Sprintf("unknown field #%d (want dataset_version, stores, products or events)", len(seen)-1)}
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

// readRecord reads one record, a flat JSON object, into w with the one
// strict decoder: every key must be one of w's fields exactly (encoding/json
// alone would match names in any case) and appear once (it would keep the
// last of duplicates); a nested object or array is refused. An error names
// the record and a declared field, or an unknown field by its position,
// never the input's own key or value.
func readRecord(dec *json.Decoder, rec string, w any) error {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return &LoadError{Record: rec, Reason: "malformed JSON"}
	}
	err := strictjson.Decode(raw, w, &strictjson.Options{MaxDepth: 2})
	var e *strictjson.Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	field := strings.TrimPrefix(e.Path, "$.")
	switch {
	case e.Path == "$":
		return &LoadError{Record: rec, Reason: "must be a JSON object"}
	case e.Kind == strictjson.Unknown:
		return &LoadError{Record: rec, Reason: "unknown field " + field}
	case e.Kind == strictjson.Duplicate && strings.HasPrefix(field, "#"):
		return &LoadError{Record: rec, Reason: "field " + field + " repeats an earlier key"}
	case e.Kind == strictjson.Duplicate:
		return &LoadError{Record: rec, Field: field, Reason: "duplicate field"}
	case e.Kind == strictjson.Type || e.Kind == strictjson.Range:
		if field == "price_cents" {
			return &LoadError{Record: rec, Field: field, Reason: "must be a non-negative JSON integer"}
		}
		return &LoadError{Record: rec, Field: field, Reason: "must be a string"}
	case e.Kind == strictjson.Depth:
		return &LoadError{Record: rec, Reason: "a field must not be an object or an array"}
	}
	return &LoadError{Record: rec, Reason: e.SafeMessage()}
}

func (w wireStore) validate(rec string) (Store, error) {
	if w.ID != nil {
		rec = withID(rec, *w.ID, IsStoreID)
	}
	if err := required(rec, "store_id", w.ID, IsStoreID, "must be st- and 3 digits"); err != nil {
		return Store{}, err
	}
	if err := required(rec, "name", w.Name, nonEmpty, "must be a non-empty string of at most 200 bytes"); err != nil {
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
	if err := required(rec, "name", w.Name, nonEmpty, "must be a non-empty string of at most 200 bytes"); err != nil {
		return Product{}, err
	}
	if err := required(rec, "category", w.Category, nonEmpty, "must be a non-empty string of at most 200 bytes"); err != nil {
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
	if w.PriceCents == nil {
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
// exponent, quotes or literals, and small enough for int64.
func parseCents(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || len(raw) > 15 || len(raw) > 1 && raw[0] == '0' {
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
