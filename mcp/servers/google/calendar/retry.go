package calendar

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

// backoff retries calls Google answers with a rate limit: 429, or 403
// with the reason rateLimitExceeded or userRateLimitExceeded. It waits
// what Retry-After says when the answer has one, else a random time up to
// base·2ⁿ (full jitter), at most max. The generated calendar/v3 client
// retries nothing but media uploads (gensupport.SendRequest), so this is
// the only retry on the way.
type backoff struct {
	attempts  int           // calls in all, the first included
	base, max time.Duration // the jitter's ceiling doubles from base up to max
	// longest is the longest Retry-After honoured; a longer one fails
	// the call at once, saying when to try again.
	longest time.Duration
}

var defaultBackoff = backoff{attempts: 5, base: 500 * time.Millisecond, max: 16 * time.Second, longest: time.Minute}

func (b backoff) do(ctx context.Context, op func() error) error {
	for n := 0; ; n++ {
		err := op()
		after, limited := rateLimited(err)
		if !limited {
			return err
		}
		if n+1 >= b.attempts {
			return fmt.Errorf("rate-limited by Google %d times in a row; try again in a minute: %w", b.attempts, err)
		}
		wait := after
		if wait > b.longest {
			return fmt.Errorf("rate-limited by Google: try again after %s: %w", after.Round(time.Second), err)
		}
		if wait <= 0 {
			ceil := b.base << n
			if ceil > b.max || ceil <= 0 {
				ceil = b.max
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

// rateLimited says whether err is a rate-limit answer, and the wait its
// Retry-After asks for (0 for none).
func rateLimited(err error) (time.Duration, bool) {
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

// explain turns an API error into words a model can act on; doing says
// what the call was for.
func explain(err error, doing string) error {
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		if err == nil {
			return nil
		}
		return fmt.Errorf("%s: %w", doing, err)
	}
	msg := ge.Message
	switch ge.Code {
	case http.StatusNotFound:
		return fmt.Errorf("%s: not found (Google: %s)", doing, msg)
	case http.StatusGone:
		return fmt.Errorf("%s: it has been deleted", doing)
	case http.StatusForbidden:
		for _, e := range ge.Errors {
			if e.Reason == "insufficientPermissions" {
				return fmt.Errorf("%s: the account has not granted Calendar access; add it again with: mcptray auth google add --scopes calendar", doing)
			}
		}
		return fmt.Errorf("%s: Google refused it: %s", doing, msg)
	case http.StatusBadRequest, http.StatusConflict:
		return fmt.Errorf("%s: Google refused it: %s", doing, msg)
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// code is err's HTTP status from Google, or 0.
func code(err error) int {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}
