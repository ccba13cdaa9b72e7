package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/provenant/provenant/memory/memapi"
)

// TestMemory_KeysOneNamespace: memory keys are one namespace for every
// agent (the README's "Who may read what"). A write under a key another
// agent holds privately is refused 409 duplicate_key: the writer learns
// that the key is taken, and nothing of the record (its text, subject or
// writer); the record stays its writer's.
func TestMemory_KeysOneNamespace(t *testing.T) {
	srv, _ := memoryServer(t)
	const secret = "east-private-text-ZZ"
	if status, body := postMemory(t, srv, eastToken, "remember", memapi.RememberRequest{Key: "m-taken", Text: secret,
		Subject: "pr-009", Visibility: &memapi.Visibility{Private: true}}); status != http.StatusOK {
		t.Fatalf("remember: %d %s", status, body)
	}
	status, body := postMemory(t, srv, adminToken, "remember", memapi.RememberRequest{Key: "m-taken", Text: "admin's note", Subject: "pr-001"})
	if status != http.StatusConflict || !strings.Contains(string(body), "duplicate_key") {
		t.Fatalf("remember under a taken key = %d %s, want 409 duplicate_key", status, body)
	}
	for _, leak := range []string{secret, "pr-009", "east"} {
		if strings.Contains(string(body), leak) {
			t.Errorf("the refusal %s tells %q of the private record", body, leak)
		}
	}
	status, body = postMemory(t, srv, eastToken, "recall", memapi.RecallRequest{Subject: "pr-009"})
	if status != http.StatusOK || !strings.Contains(string(body), secret) {
		t.Errorf("east's recall = %d %s, want its private record kept", status, body)
	}
}
