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
	"syscall"
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
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig // main's own handler receives it too and shuts down
		pprof.StopCPUProfile()
		f.Close()
	}()
}
