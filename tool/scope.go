package tool

import (
	"maps"
	"slices"
)

// Scope is the set of ids of the registry's scope entity (stores, in the
// retail catalog) a caller may see. The zero Scope sees nothing: access
// fails closed until a scope is granted. The wall checks it on every
// entity-id parameter of the scope entity.
type Scope struct {
	all    bool
	stores map[string]bool
}

// AllStores is the scope of the single local user, and of principals
// granted every store.
func AllStores() Scope { return Scope{all: true} }

// StoresOnly is a scope limited to the given store ids.
func StoresOnly(ids ...string) Scope {
	s := Scope{stores: make(map[string]bool, len(ids))}
	for _, id := range ids {
		s.stores[id] = true
	}
	return s
}

// All reports whether the scope covers every store.
func (s Scope) All() bool { return s.all }

// Allows reports whether the scope covers store.
func (s Scope) Allows(store string) bool { return s.all || s.stores[store] }

// Stores returns the scope's store ids, sorted; nil for AllStores.
func (s Scope) Stores() []string {
	if s.all {
		return nil
	}
	return slices.Sorted(maps.Keys(s.stores))
}
