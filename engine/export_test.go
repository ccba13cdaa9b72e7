package engine

// MetricHighWater is the most metric reads e ever ran at once.
func MetricHighWater(e *Engine) int { return e.runner.metricSlots.highWater() }
