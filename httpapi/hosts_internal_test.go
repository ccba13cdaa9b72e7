package httpapi

import (
	"net"
	"strings"
	"testing"
)

// FuzzHostPolicy: the Host parser never panics, and with no configured
// names a host it allows names a loopback address or localhost, or the
// address the request arrived on, with that port or none.
func FuzzHostPolicy(f *testing.F) {
	for _, s := range []string{"localhost", "localhost:8080", "127.0.0.1:8080", "[::1]:8080", "[::1]", "evil.example",
		"127.0.0.1.evil.example", "[::ffff:127.0.0.1]", "10.0.0.5:8080", "[", "]:", ":8080", "LOCALHOST", "2130706433"} {
		f.Add(s)
	}
	p, err := newHostPolicy(nil)
	if err != nil {
		f.Fatal(err)
	}
	local := arrival{ip: net.ParseIP("10.0.0.5"), port: "8080"}
	f.Fuzz(func(t *testing.T, host string) {
		if !p.allows(host, local) {
			return
		}
		name, port, hasPort := splitHost(strings.ToLower(host))
		if hasPort && port != "8080" {
			t.Errorf("allowed %q on another port", host)
		}
		ip := net.ParseIP(name)
		if !isLoopbackName(name) && !(ip != nil && ip.Equal(local.ip)) {
			t.Errorf("allowed %q, which is neither loopback nor the arrival address", host)
		}
		if ip == nil && name != "localhost" {
			t.Errorf("allowed the DNS name %q", host)
		}
	})
}
