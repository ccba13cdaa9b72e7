package engine

// MetricHighWater is the most metric reads e ever ran at once.
func MetricHighWater(e *Engine) int { return e.runner.metricSlots.highWater() }

// MetricSpeculated is how many of e's resolver re-derivations started
// beside the executor, and how many the resolver took.
func MetricSpeculated(e *Engine) (started, used int64) {
	return e.runner.specs.Load(), e.runner.specsUsed.Load()
}

// MetricSlots is how many metric reads e runs at once.
func MetricSlots(e *Engine) int { return cap(e.runner.metricSlots.ch) }

// BeforeSpeculatedReads has f run by every re-derivation beside the
// executor once its snapshot is open, before it reads.
func BeforeSpeculatedReads(e *Engine, f func()) { e.runner.beforeSpec = f }
