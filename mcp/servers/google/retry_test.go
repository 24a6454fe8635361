package google

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{"": 0, "3": 3 * time.Second, "x": 0,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second} {
		if got := retryAfter(v, now); got != want {
			t.Errorf("Retry-After %q: %v, want %v", v, got, want)
		}
	}
	b := Backoff{Attempts: 3, Base: time.Millisecond, Max: time.Millisecond, Longest: time.Second}
	n := 0
	err := b.Do(context.Background(), func() error { n++; return errors.New("not a rate limit") })
	if n != 1 || err == nil {
		t.Errorf("another error is not retried: %d calls", n)
	}
}
