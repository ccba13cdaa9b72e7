// Package bench turns committed measurement records into the README's
// performance tables, so that every figure the README shows comes from a
// file in the repository and the command that produced it.
//
// A record (bench/results/NAME.txt) is written by
//
//	go run ./bench/record -o bench/results/NAME.txt -runs N -- COMMAND ARGS...
//
// which runs the command N times and stores its standard output under a
// header describing the run:
//
//	# provenant measurement record
//	# command: go run ./cmd/provenant load --json
//	# runs: 3
//	# commit: 6c9ed3e
//	# modified: false
//	# date: 2026-11-30T20:40:00Z
//	# go: go1.26.8 linux/amd64
//	# cpu: AMD EPYC
//	# cores: 2
//	# loadavg-before: 8.13 6.07 3.02
//	# loadavg-after: 7.90 6.50 3.40
//	=== run 1
//	...standard output of run 1...
//	=== run 2
//	...
//
// The load averages say how busy the machine was: on a shared machine a
// figure is an upper bound on latency and a lower bound on throughput.
//
// The README holds each generated table between the markers
// <!-- bench:NAME:begin --> and <!-- bench:NAME:end -->. Renderers maps
// NAME to the function that renders the record; `go test ./bench` fails
// when a block differs from what its record renders, when a block has no
// record or renderer, or when a record has no block, and
// `go test ./bench -run TestREADME -update` rewrites the blocks. To add a
// table: record it, add a renderer here, and put the empty markers in the
// README.
package bench
