package fact_test

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/provenant/provenant/fact"
)

func TestValue_MarshalJSON(t *testing.T) {
	num := func(x float64) fact.Value {
		v, err := fact.Number(x, "percent")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name string
		v    fact.Value
		want string
	}{
		{"text", fact.Text("LOW_STOCK"), `"LOW_STOCK"`},
		{"integer", fact.Integer(781, "cents"), `781`},
		{"negative integer", fact.Integer(-4, "celsius"), `-4`},
		{"number", num(41.5), `41.5`},
		{"whole number", num(3), `3`},
		{"shortest form", num(sum(0.1, 0.2)), `0.30000000000000004`},
		{"negative zero", num(math.Copysign(0, -1)), `0`},
		{"large number", num(1e21), `1e+21`},
		{"no observation", fact.NoObservation(fact.KindNumber), `null`},
		{"entity count", fact.EntityCount("store_ids", []string{"st-002", "st-001"}), `{"count":2,"store_ids":["st-001","st-002"]}`},
		{"entity count of another entity", fact.EntityCount("area_ids", nil), `{"count":0,"area_ids":[]}`},
		{"entity list", fact.EntityList("product_ids", []string{"pr-009", "pr-001"}), `{"product_ids":["pr-001","pr-009"]}`},
		{"empty entity list", fact.EntityList("device_ids", nil), `{"device_ids":[]}`},
		{"row count", fact.RowCount(7), `{"count":7}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			if err != nil || string(b) != tt.want {
				t.Fatalf("Marshal = %s, %v; want %s", b, err, tt.want)
			}
			// JSONShape, embedded in another object, writes the same bytes.
			wrapped, err := json.Marshal(map[string]any{"value": tt.v.JSONShape()})
			if err != nil || string(wrapped) != `{"value":`+tt.want+`}` {
				t.Errorf("embedded JSONShape = %s, %v", wrapped, err)
			}
			if tt.v.Kind == fact.KindNumber && tt.v.Observed {
				back, err := strconv.ParseFloat(string(b), 64)
				if err != nil || back != tt.v.Num {
					t.Errorf("%s reads back as %v, want %v", b, back, tt.v.Num)
				}
			}
		})
	}
}

// sum adds at run time (constants would be added exactly).
func sum(a, b float64) float64 { return a + b }

func TestNumber_RefusesNonFinite(t *testing.T) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := fact.Number(x, ""); !errors.Is(err, fact.ErrNotFinite) {
			t.Errorf("Number(%v) error = %v, want ErrNotFinite", x, err)
		}
	}
}

func TestValue_IsZeroAndEqual(t *testing.T) {
	tests := []struct {
		name string
		v    fact.Value
		zero bool
	}{
		{"no observation", fact.NoObservation(fact.KindText), true},
		{"observed text", fact.Text("OK"), false},
		{"zero integer is observed", fact.Integer(0, "cents"), false},
		{"empty entity count", fact.EntityCount("store_ids", nil), true},
		{"entity count", fact.EntityCount("store_ids", []string{"st-001"}), false},
		{"empty entity list", fact.EntityList("product_ids", []string{}), true},
		{"row count 0", fact.RowCount(0), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.IsZero(); got != tt.zero {
				t.Errorf("IsZero() = %v, want %v", got, tt.zero)
			}
			if !tt.v.Equal(tt.v) {
				t.Error("a value is not Equal to itself")
			}
		})
	}
	if fact.Integer(781, "cents").Equal(fact.Integer(781, "")) {
		t.Error("values in different units are Equal")
	}
	if fact.EntityList("store_ids", nil).Equal(fact.EntityList("product_ids", nil)) {
		t.Error("lists under different ids fields are Equal")
	}
}
