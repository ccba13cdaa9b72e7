package deadline_test

import (
	"context"
	"errors"
	"testing"

	"github.com/provenant/provenant/internal/deadline"
	"github.com/provenant/provenant/internal/deadline/deadlinetest"
)

func TestCheck(t *testing.T) {
	ctx := deadlinetest.AfterChecks(2)
	var stoppedAt int
	for i := range 10 * deadline.Every {
		if err := deadline.Check(ctx, i); err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v", err)
			}
			stoppedAt = i
			break
		}
	}
	if stoppedAt != deadline.Every || ctx.Checks() != 2 {
		t.Errorf("stopped at %d after %d checks, want %d after 2", stoppedAt, ctx.Checks(), deadline.Every)
	}
}
