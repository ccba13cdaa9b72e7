// Package adversarial holds the outside-probe test suite that every later
// change must keep passing: each test attacks a running `serve` stack
// (package server with a real engine over the demo store) from outside,
// over loopback, with small limits so that it is quick. It has no
// non-test code.
//
// One file per kind of attack:
//
//	slowbody_test.go   slow request bodies against --max-in-flight
//	rebinding_test.go  a foreign Host or Origin on every route
//	echo_test.go       probe strings in bodies, headers, paths and query
//	                   strings of REST requests; none may come back
//	halfopen_test.go   clients that connect and send nothing, or stall
//	                   in their headers or body
//	mcp_echo_test.go   probe strings in MCP names, methods, params,
//	                   unparseable bodies and transport headers on /mcp
//	timing_test.go     a scoped principal cannot tell another store's
//	                   event from a missing id, nor see others' figures
//	timeout_test.go    a question past --ask-timeout is a typed timeout
//	                   (504 on REST, an error result over MCP), never 500
//	ids_test.go        result ids never repeat across replicas and
//	                   restarts
//
// New attacks join here as files of their own, using the harness in
// harness_test.go: start gives a served stack and its address; probe and
// the routes table are shared.
//
// Assertions are "served / not served" and "echoed / not echoed", never
// timings: deadlines in these tests only bound how long a test may wait.
package adversarial
