package main

import (
	"errors"
	"strings"
	"testing"
)

// TestPostgresInFlight_NeedsPostgres: --postgres-in-flight bounds the
// calls in PostgreSQL; without --postgres it is a usage error, with it
// the command goes on (here to a server that does not answer).
func TestPostgresInFlight_NeedsPostgres(t *testing.T) {
	_, _, err := runCLI(t, "ask", "--catalog", "warehouse", "--postgres-in-flight", "2", "What is the status of dev-0001?")
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--postgres-in-flight") {
		t.Errorf("--postgres-in-flight without --postgres: %v, want a usage error naming it", err)
	}
	_, _, err = runCLI(t, "ask", "--catalog", "warehouse", "--postgres", "postgres://nobody@127.0.0.1:1/none?sslmode=disable", "--postgres-in-flight", "2", "What is the status of dev-0001?")
	if err == nil || errors.Is(err, errUsage) {
		t.Errorf("--postgres-in-flight with --postgres of a server that does not answer: %v, want a connection error", err)
	}
}
