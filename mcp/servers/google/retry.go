package google

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"google.golang.org/api/googleapi"
)

// Backoff retries calls Google answers with a rate limit: 429, or 403
// with the reason rateLimitExceeded or userRateLimitExceeded. It waits
// what Retry-After says when the answer has one, else a random time up to
// base·2ⁿ (full jitter), at most max. The generated clients
// (calendar/v3, gmail/v1) retry nothing but media uploads (gensupport.SendRequest), so this is
// the only retry on the way.
type Backoff struct {
	Attempts  int           // calls in all, the first included
	Base, Max time.Duration // the jitter's ceiling doubles from Base up to Max
	// Longest is the longest Retry-After honoured; a longer one fails
	// the call at once, saying when to try again.
	Longest time.Duration
}

// DefaultBackoff is what the Google servers use: five calls, the jitter's
// ceiling from 0.5 s up to 16 s, a Retry-After of up to a minute.
var DefaultBackoff = Backoff{Attempts: 5, Base: 500 * time.Millisecond, Max: 16 * time.Second, Longest: time.Minute}

// Do calls op until it is not rate-limited, at most b.Attempts times.
func (b Backoff) Do(ctx context.Context, op func() error) error {
	for n := 0; ; n++ {
		err := op()
		after, limited := RateLimited(err)
		if !limited {
			return err
		}
		if n+1 >= b.Attempts {
			return fmt.Errorf("rate-limited by Google %d times in a row; try again in a minute: %w", b.Attempts, err)
		}
		wait := after
		if wait > b.Longest {
			return fmt.Errorf("rate-limited by Google: try again after %s: %w", after.Round(time.Second), err)
		}
		if wait <= 0 {
			ceil := b.Base << n
			if ceil > b.Max || ceil <= 0 {
				ceil = b.Max
			}
			wait = rand.N(ceil) + 1
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// RateLimited says whether err is a rate-limit answer, and the wait its
// Retry-After asks for (0 for none).
func RateLimited(err error) (time.Duration, bool) {
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		return 0, false
	}
	limited := ge.Code == http.StatusTooManyRequests
	if ge.Code == http.StatusForbidden {
		for _, e := range ge.Errors {
			if e.Reason == "rateLimitExceeded" || e.Reason == "userRateLimitExceeded" {
				limited = true
			}
		}
	}
	if !limited {
		return 0, false
	}
	return retryAfter(ge.Header.Get("Retry-After"), time.Now()), true
}

// retryAfter reads a Retry-After value: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// StatusCode is err's HTTP status from Google, or 0.
func StatusCode(err error) int {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}
