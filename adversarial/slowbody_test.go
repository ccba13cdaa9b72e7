package adversarial_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/provenant/provenant/internal/attack"
)

// TestSlowBodies_GoodClientServed: with more slow-body connections open
// than there are in-flight slots, spread over several client addresses
// (each at its per-client bound), a good client is served on every
// request, with and without tokens (an attacker with a valid token that
// sees no store gets no further).
func TestSlowBodies_GoodClientServed(t *testing.T) {
	for _, withTokens := range []bool{false, true} {
		t.Run(map[bool]string{false: "no tokens", true: "tokens"}[withTokens], func(t *testing.T) {
			s := start(t, config{withTokens: withTokens, limits: smallLimits})
			attackHeader, goodHeader := "", map[string]string{}
			if withTokens {
				attackHeader = "Authorization: Bearer " + nobodyToken + "\r\n"
				goodHeader["Authorization"] = "Bearer " + adminToken
			}
			// 3 addresses × 4 connections = 12 slow bodies against 4 slots,
			// plus 4 more from one address, past its per-client bound.
			attack.SlowBodies(t, s.addr, []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"}, smallLimits.MaxBodyReadersPerClient, attackHeader)
			attack.SlowBodies(t, s.addr, []string{"127.0.0.2"}, 4, attackHeader)
			for i := range 20 {
				r := s.doFrom(t, "127.0.0.1", "POST", "/v1/ask", goodQuestion, goodHeader)
				if r.status != http.StatusOK || !strings.Contains(r.body, `"outcome":"answered"`) {
					t.Fatalf("good request %d during the attack: %d %s", i, r.status, r.body)
				}
			}
			for _, path := range []string{"/healthz", "/metrics"} {
				if r := s.doFrom(t, "127.0.0.1", "GET", path, "", goodHeader); r.status != http.StatusOK {
					t.Errorf("%s during the attack: %d", path, r.status)
				}
			}
		})
	}
}
