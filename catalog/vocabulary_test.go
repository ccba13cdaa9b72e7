package catalog

import (
	"strings"
	"testing"
)

// TestValidate_Vocabulary checks the parser's vocabulary fields: synonyms
// of values and conditions, entity nouns, tool keywords and the yes/no
// template.
func TestValidate_Vocabulary(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"valid vocabulary", "        values: [IN_STOCK, OUT_OF_STOCK]\n",
			"        values: [IN_STOCK, OUT_OF_STOCK]\n        synonyms:\n          IN_STOCK: [in stock, on the shelf]\n          OUT_OF_STOCK: [sold out, out-of-stock]\n",
			nil},
		{"synonym of an undeclared value", "        values: [IN_STOCK, OUT_OF_STOCK]\n",
			"        values: [IN_STOCK, OUT_OF_STOCK]\n        synonyms:\n          IN_STOK: [in stock]\n",
			[]string{"22:11: synonyms: unknown value of attribute `state` `IN_STOK`; did you mean `IN_STOCK`?"}},
		{"synonym names two values", "        values: [IN_STOCK, OUT_OF_STOCK]\n",
			"        values: [IN_STOCK, OUT_OF_STOCK]\n        synonyms:\n          IN_STOCK: [stock]\n          OUT_OF_STOCK: [stock]\n",
			[]string{"23:26: synonym `stock` names values `IN_STOCK` and `OUT_OF_STOCK`"}},
		{"synonym not lowercase words", "        values: [IN_STOCK, OUT_OF_STOCK]\n",
			"        values: [IN_STOCK, OUT_OF_STOCK]\n        synonyms:\n          IN_STOCK: [In  Stock]\n",
			[]string{"22:22: synonym `In  Stock`: want lowercase words separated by single spaces, hyphens or apostrophes"}},
		{"duplicate synonym", "        values: [IN_STOCK, OUT_OF_STOCK]\n",
			"        values: [IN_STOCK, OUT_OF_STOCK]\n        synonyms:\n          IN_STOCK: [in stock, in stock]\n",
			[]string{"22:32: duplicate synonym `in stock`"}},
		{"synonyms on a numeric attribute", "        unit: cents\n",
			"        unit: cents\n        synonyms: {CHEAP: [cheap]}\n",
			[]string{"21:9: attribute `price`: `synonyms` apply to enumerated attributes only"}},
		{"synonyms not a mapping", "        values: [IN_STOCK, OUT_OF_STOCK]\n",
			"        values: [IN_STOCK, OUT_OF_STOCK]\n        synonyms: [in stock]\n",
			[]string{"21:19: `synonyms`: want a mapping from each value to a list of phrases"}},
		{"condition synonym", "      - name: OUT_OF_STOCK\n", "      - name: OUT_OF_STOCK\n        synonyms: [sold out, Empty]\n",
			[]string{"26:30: synonym `Empty`: want lowercase words separated by single spaces, hyphens or apostrophes"}},
		{"synonym names two conditions", "      - name: OUT_OF_STOCK\n",
			"      - name: SOLD_OUT\n        synonyms: [gone]\n        attribute: state\n        op: eq\n        value: OUT_OF_STOCK\n      - name: OUT_OF_STOCK\n        synonyms: [gone]\n",
			[]string{"31:20: synonym `gone` names conditions `SOLD_OUT` and `OUT_OF_STOCK`"}},
		{"noun", "        column: store_id\n", "        column: store_id\n        nouns: [store, 'shop!']\n",
			[]string{"13:24: noun `shop!`: want lowercase words separated by single spaces, hyphens or apostrophes"}},
		{"unknown key near nouns", "        column: store_id\n", "        column: store_id\n        noun: [store]\n",
			[]string{"13:9: unknown key `noun`; did you mean `nouns`?"}},
		{"keyword", "    attribute: state\n    phrasings", "    attribute: state\n    keywords: [state, '']\n    phrasings",
			[]string{"36:23: keyword: want lowercase words separated by single spaces, hyphens or apostrophes"}},
		{"check on latest_value", "    phrasings: ['What is the state of {product_id} at {store_id} as of {as_of}?']\n",
			"    phrasings: ['What is the state of {product_id} at {store_id} as of {as_of}?']\n    answer: {value: 'It is {value}.', check: '{match?Yes|No}: {product_id} is {value}, asked {asked}.'}\n",
			nil},
		{"check without value", "    phrasings: ['What is the state of {product_id} at {store_id} as of {as_of}?']\n",
			"    phrasings: ['What is the state of {product_id} at {store_id} as of {as_of}?']\n    answer: {value: 'It is {value}.', check: '{match?Yes|No}.'}\n",
			[]string{"37:46: answer check: want {value} (the observed value), and no {ids} or {count...}"}},
		{"asked outside check", "    phrasings: ['What is the state of {product_id} at {store_id} as of {as_of}?']\n",
			"    phrasings: ['What is the state of {product_id} at {store_id} as of {as_of}?']\n    answer: {value: 'It is {value}, asked {asked}.'}\n",
			[]string{"37:21: answer: {asked} and {match?yes|no} are for `check`"}},
		{"check on a count", "condition {condition} as of {as_of}?']\n",
			"condition {condition} as of {as_of}?']\n    answer: {value: '{count:store|stores}.', check: '{match?Yes|No}.'}\n",
			[]string{"47:53: answer: `check` is for shape `latest_value` over an enumerated attribute"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := edit(t, tt.old, tt.new)
			c, err := Parse(strings.NewReader(in), "c.yaml")
			if err != nil {
				checkErrors(t, nil, err, tt.want)
				return
			}
			err = c.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			checkErrors(t, nil, err, tt.want)
		})
	}
}
