// Package phasetrace prints, when PROVENANT_TRACE_PHASES is set, the wall
// and CPU time between marks to standard error (a measurement aid).
package phasetrace

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
)

var (
	on       = os.Getenv("PROVENANT_TRACE_PHASES") != ""
	mu       sync.Mutex
	lastWall time.Time
	lastCPU  time.Duration
)

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Mark ends the phase named name.
func Mark(name string) {
	if !on {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	w, c := time.Now(), cpu()
	if !lastWall.IsZero() {
		fmt.Fprintf(os.Stderr, "phase %-28s wall %7.3fs cpu %7.3fs\n", name, w.Sub(lastWall).Seconds(), (c - lastCPU).Seconds())
	}
	lastWall, lastCPU = w, c
}
