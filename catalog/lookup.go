package catalog

// Dataset returns the named dataset, or nil.
func (c *Catalog) Dataset(name string) *Dataset {
	for _, ds := range c.Datasets {
		if ds.Name.Value == name {
			return ds
		}
	}
	return nil
}

// Tool returns the named tool, or nil.
func (c *Catalog) Tool(name string) *Tool {
	for _, t := range c.Tools {
		if t.Name.Value == name {
			return t
		}
	}
	return nil
}

// Entity returns the named entity of ds, or nil.
func (ds *Dataset) Entity(name string) *Entity { return ds.entity(name) }

// Attribute returns the named attribute of ds, or nil.
func (ds *Dataset) Attribute(name string) *Attribute { return ds.attribute(name) }

// Condition returns the named condition of ds, or nil.
func (ds *Dataset) Condition(name string) *Condition { return ds.condition(name) }

// SeriesEntities returns the entities whose tuple identifies a series, in
// declared order.
func (ds *Dataset) SeriesEntities() []*Entity {
	out := make([]*Entity, 0, len(ds.Series))
	for _, s := range ds.Series {
		if e := ds.entity(s.Value); e != nil {
			out = append(out, e)
		}
	}
	return out
}

// FilterValues returns the values a tool's filter parameter ranges over:
// the condition names, or the attribute's values (narrowed to Values when
// set). It is nil for a tool without a filter.
func (t *Tool) FilterValues(ds *Dataset) []string {
	f := t.Filter
	if f == nil {
		return nil
	}
	if f.Conditions != nil {
		return refValues(f.Conditions)
	}
	if f.Values != nil {
		return refValues(f.Values)
	}
	if a := ds.attribute(f.Attribute.Value); a != nil {
		return refValues(a.Values)
	}
	return nil
}
