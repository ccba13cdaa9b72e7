//go:build cpuprofile

package main

// A build with -tags cpuprofile writes a CPU profile of the whole process
// to the file PROVENANT_CPUPROFILE names, from start-up until the process
// receives SIGINT or SIGTERM (serve then shuts down): how the per-call CPU
// of `serve` under `go run ./bench/toolbox ... -provenant BIN` is
// profiled. Ordinary builds leave this file out.

import (
	"os"
	"os/signal"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"
)

func init() {
	path := os.Getenv("PROVENANT_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		return
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return
	}
	// main stops the profile as it exits (it may exit before a signal
	// handler here would run); a signal stops it early, in case shutdown
	// hangs.
	var once sync.Once
	flush := func() {
		once.Do(func() {
			pprof.StopCPUProfile()
			f.Close()
		})
	}
	atExit = append(atExit, flush)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig // main's own handler receives it too and shuts down
		time.Sleep(5 * time.Second)
		flush()
	}()
}
