package main

import (
	"context"
	"database/sql"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuMeter reads the CPU time a phase costs: this process's (user and
// system, every thread: the engine, and DuckDB's workers in process) and,
// on PostgreSQL, that of the server backends serving this process's
// connections (found by application name). Dividing by the phase's calls
// gives a call's CPU, which the machine's load does not change the way
// it changes latency.
type cpuMeter struct {
	db      *sql.DB // nil: no server backends to read
	appName string
}

// cpuReading is one reading: the process's CPU and each backend's.
type cpuReading struct {
	self     time.Duration
	backends map[int]time.Duration
}

func (m cpuMeter) read(ctx context.Context) cpuReading {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	r := cpuReading{self: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}
	if m.db == nil {
		return r
	}
	rows, err := m.db.QueryContext(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = $1", m.appName)
	if err != nil {
		return r
	}
	defer rows.Close()
	r.backends = map[int]time.Duration{}
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) == nil {
			r.backends[pid] = procCPU(pid)
		}
	}
	return r
}

// since returns the process's CPU and the backends' between two
// readings: a backend in both is counted by its difference, one that
// appeared since by its whole CPU (it began in the phase).
func (r cpuReading) since(before cpuReading) (self, server time.Duration) {
	self = r.self - before.self
	for pid, d := range r.backends {
		server += d - before.backends[pid]
	}
	return self, server
}

// procCPU reads a process's user and system time from /proc (0 when it
// cannot be read), at the kernel's 100 ticks a second.
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}
