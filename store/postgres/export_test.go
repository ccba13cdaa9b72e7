package postgres

// SetGenericStatement replaces the statement a Pipeliner sends for
// generic plans, so that a test can play a database without
// plan_cache_mode.
func SetGenericStatement(p *Pipeliner, stmt string) { p.generic = stmt }

// GenericPlansOff reports whether p has stopped asking for generic plans.
func GenericPlansOff(p *Pipeliner) bool { return p.noGeneric.Load() }
