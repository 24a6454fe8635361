package google

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Caller runs the API calls of one Google server (gcal, gmail) for an
// account: the account's authorized client, the official client of the
// server's API on it (S, e.g. *gmail.Service), retries while Google
// rate-limits, and one sign-in through SignIn when the account must sign
// in (again), after which the call runs once more.
type Caller[S any] struct {
	Accounts AccountSource
	// NewService makes the API's client on an authorized HTTP client.
	NewService func(ctx context.Context, hc *http.Client) (S, error)
	// What names the API in errors ("Gmail", "Calendar").
	What string
	// Retry is the server's backoff (a pointer: its tests shorten it).
	Retry *Backoff
	// SignIn asks the person to sign email in ("" for a first account)
	// because of why, through ss (nil outside a tool call). Nil: a call
	// that needs a sign-in fails, saying how to sign in.
	SignIn func(ctx context.Context, ss *sdk.ServerSession, email string, why error) error
	// Account resolves the default account ("") once a first one signed
	// in.
	Account func(string) (string, error)
}

// Call runs op for the account *email, signing it in once when needed;
// *email "" (no account yet) becomes the account signed in. req is the
// tool call op belongs to (nil for none).
func (c *Caller[S]) Call(ctx context.Context, req *sdk.CallToolRequest, email *string, op func(S) error) error {
	for attempt := 0; ; attempt++ {
		err := c.Try(ctx, *email, op)
		var sn *SignInNeededError
		if !errors.As(err, &sn) || attempt > 0 {
			return err
		}
		if c.SignIn == nil {
			return fmt.Errorf("%v (sign in with: mcptray auth google add)", sn)
		}
		var ss *sdk.ServerSession
		if req != nil {
			ss = req.Session
		}
		if serr := c.SignIn(WithCallRequest(ctx, req), ss, sn.Email, sn); serr != nil {
			return fmt.Errorf("%v; signing in did not complete: %w", sn, serr)
		}
		if *email == "" {
			e, rerr := c.Account("")
			if rerr != nil {
				return rerr
			}
			*email = e
		}
	}
}

// Try runs op once for email (retrying while rate-limited), without
// signing in: a *SignInNeededError says the account must.
func (c *Caller[S]) Try(ctx context.Context, email string, op func(S) error) error {
	if email == "" {
		return &SignInNeededError{Reason: "no account has been added yet"}
	}
	hc, err := c.Accounts.Client(ctx, email)
	if err != nil {
		return err
	}
	svc, err := c.NewService(ctx, hc)
	if err != nil {
		return fmt.Errorf("making the %s client: %w", c.What, err)
	}
	return c.Retry.Do(ctx, func() error { return op(svc) })
}
