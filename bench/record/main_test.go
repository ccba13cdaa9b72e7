package main

import "testing"

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"go", "test", "-bench", "BenchmarkTool$|BenchmarkAsk$", "-count", "6", "it's", "./engine/"})
	want := `go test -bench 'BenchmarkTool$|BenchmarkAsk$' -count 6 'it'\''s' ./engine/`
	if got != want {
		t.Errorf("shellJoin() = %s, want %s", got, want)
	}
}
