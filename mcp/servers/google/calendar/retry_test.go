package calendar

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRateLimitsAreRetried: a 429 with Retry-After and a 403
// rateLimitExceeded are retried and the call succeeds.
func TestRateLimitsAreRetried(t *testing.T) {
	e := newEnv(t)
	e.fake.InjectRateLimits(googletest.RateLimit{Code: http.StatusTooManyRequests, RetryAfter: "1"}, googletest.RateLimit{Code: http.StatusForbidden})
	var out listCalendarsOut
	e.call("list_calendars", nil, &out)
	if len(out.Calendars) != 1 {
		t.Errorf("calendars %+v", out.Calendars)
	}
	if n := e.fake.CalendarRequests("GET /calendar/v3/users/me/calendarList"); n != 3 {
		t.Errorf("%d requests, want 2 refused and 1 answered", n)
	}
	limits := make([]googletest.RateLimit, 5)
	for i := range limits {
		limits[i] = googletest.RateLimit{Code: http.StatusTooManyRequests}
	}
	e.fake.InjectRateLimits(limits...)
	e.callErr("list_calendars", nil, "rate-limited", "5 times", "try again")
}

// TestSignInThenRetry: a call whose account must sign in asks SignIn
// once and succeeds after it; without SignIn it says how to sign in.
func TestSignInThenRetry(t *testing.T) {
	var asked []string
	var e *env
	e = newEnv(t, func(o *Options) {
		o.SignIn = func(_ context.Context, ss *sdk.ServerSession, email string, why error) error {
			var sn *google.SignInNeededError
			if ss == nil || !errors.As(why, &sn) {
				t.Errorf("SignIn got session %v, why %v", ss, why)
			}
			asked = append(asked, email)
			e.accounts.signIn(email)
			return nil
		}
	})
	e.accounts.needSignIn[ada] = true
	e.call("list_calendars", nil, nil)
	if len(asked) != 1 || asked[0] != ada {
		t.Errorf("sign-ins asked: %v", asked)
	}

	// No account at all: the sign-in adds one, and the call goes on with it.
	e.accounts.emails = nil
	asked = nil
	e.accounts.signInAs = bob
	var out listCalendarsOut
	e.call("list_calendars", nil, &out)
	if len(asked) != 1 || asked[0] != "" || len(out.Calendars) != 1 || out.Calendars[0].Account != bob {
		t.Errorf("first sign-in: asked %q, calendars %+v", asked, out.Calendars)
	}

	plain := newEnv(t)
	plain.accounts.needSignIn[ada] = true
	plain.callErr("list_events", nil, "needs to sign in again", "mcptray auth google add")
}
