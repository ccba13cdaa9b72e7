package oracle

import (
	"sort"
	"strconv"
	"strings"

	"github.com/provenant/provenant/retail"
)

// An entity of the retail demo, as a question names it.
const (
	Store   = "store"
	Product = "product"
)

// declared returns the ids and display names of an entity's declared
// instances, in file order.
func declared(d *retail.Dataset, entity string) (ids, names []string) {
	switch entity {
	case Store:
		for _, s := range d.Stores {
			ids, names = append(ids, s.ID), append(names, s.Name)
		}
	case Product:
		for _, p := range d.Products {
			ids, names = append(ids, p.ID), append(names, p.Name)
		}
	}
	return ids, names
}

// words splits a name into lower-case words: runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

// Named returns the sorted ids of the entity's instances a name
// designates, by the suite's reading of issue 9: the instances whose
// declared display name equals it (letter case and punctuation aside);
// when none does, those whose display name holds every word of it. One
// id is a resolution, several an ambiguity, none an unknown name.
func Named(d *retail.Dataset, entity, name string) []string {
	ids, names := declared(d, entity)
	want := words(name)
	if len(want) == 0 {
		return nil
	}
	var exact, partial []string
	for i, n := range names {
		have := words(n)
		if strings.Join(have, " ") == strings.Join(want, " ") {
			exact = append(exact, ids[i])
			continue
		}
		all := true
		for _, w := range want {
			found := false
			for _, h := range have {
				found = found || h == w
			}
			all = all && found
		}
		if all {
			partial = append(partial, ids[i])
		}
	}
	out := partial
	if len(exact) > 0 {
		out = exact
	}
	sort.Strings(out)
	return out
}

// Numbered returns the sorted ids of the entity's instances whose id
// carries the number n ("store 3": st-003), the digits after the id's
// last '-' read as a decimal number.
func Numbered(d *retail.Dataset, entity string, n int) []string {
	ids, _ := declared(d, entity)
	var out []string
	for _, id := range ids {
		i := strings.LastIndexByte(id, '-')
		if v, err := strconv.Atoi(id[i+1:]); err == nil && v == n {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
