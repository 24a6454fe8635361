package google

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// InboxMeta is the _meta key that marks a request of a built-in server as
// one mcptray keeps in its own inbox (never handed to an assistant).
const InboxMeta = "mcptray/inbox"

// AcceptLabelMeta is the _meta key of a confirmation (a form-mode
// elicitation with an empty schema) whose string value labels the accept
// button in mcptray's inbox, as "Send" does for gmail's confirmation
// before a message goes out.
const AcceptLabelMeta = "mcptray/acceptLabel"

// multiRoundTripVersion is the first protocol version whose clients take
// input-required results instead of elicitation/create during a call.
const multiRoundTripVersion = "2026-07-28"

// SignInByElicitation asks the person, through a URL-mode elicitation on
// ss, to sign in to Google for email ("" when no account exists yet: then
// whichever account signs in is added), why saying what needs it. It starts
// the loopback sign-in, sends elicitation/create (mode url, marked with
// InboxMeta), waits for the browser to come back, sends
// notifications/elicitation/complete, and returns the account signed in,
// so that the tool call can proceed. gcal and gmail share it. A client
// on 2026-07-28 is asked by an input_required result instead, and the
// retry of the call (ctx carries it: WithCallRequest) goes on
// (signin_rounds.go).
func SignInByElicitation(ctx context.Context, ss *sdk.ServerSession, a *Accounts, email, why string) (*Added, error) {
	services := DefaultServices
	if email != "" {
		acc, err := a.Get(email)
		if err != nil {
			return nil, err
		}
		if acc != nil && len(acc.Scopes) > 0 {
			services = acc.Scopes
		}
	}
	msg := "Sign in to Google"
	if email != "" {
		msg = "Sign in to Google again for " + email
	}
	if why != "" {
		msg += ": " + why
	}
	if ip := ss.InitializeParams(); ip != nil && ip.ProtocolVersion >= multiRoundTripVersion {
		// Such a client wants the request as an input-required result and
		// retries the call (signin_rounds.go): the call must be known.
		req := callRequest(ctx)
		if req == nil || req.Params == nil {
			return nil, errors.New("this client's protocol version (" + ip.ProtocolVersion +
				") cannot be asked to sign in to Google outside a tool call; sign in with `mcptray auth google add`")
		}
		added, err := signInRounds(ctx, req, a, email, msg, services)
		if err != nil {
			return nil, err
		}
		return checkSignedIn(added, email)
	}
	s, err := a.StartSignIn(services, email)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	id := "google-sign-in-" + randomID()
	res, err := ss.Elicit(ctx, &sdk.ElicitParams{
		Meta:          sdk.Meta{InboxMeta: true},
		Mode:          "url",
		Message:       msg,
		URL:           s.URL,
		ElicitationID: id,
	})
	if err != nil {
		return nil, fmt.Errorf("asking to sign in to Google: %w; sign in with `mcptray auth google add` instead", err)
	}
	switch res.Action {
	case "accept":
	case "decline":
		return nil, errors.New("the Google sign-in was declined")
	default:
		return nil, errors.New("the Google sign-in was cancelled")
	}
	added, err := s.Wait(ctx)
	if ctx.Err() == nil {
		// The browser came back, or the wait ended: either way the
		// request is over for the person.
		if nerr := ss.NotifyElicitationComplete(ctx, &sdk.ElicitationCompleteParams{ElicitationID: id}); nerr != nil {
			a.log.Warn("sending elicitation/complete", "err", nerr)
		}
	}
	if err != nil {
		return nil, err
	}
	return checkSignedIn(added, email)
}

// checkSignedIn says when the person signed in to another account than
// email ("" for any).
func checkSignedIn(added *Added, email string) (*Added, error) {
	if email != "" && !strings.EqualFold(added.Account.Email, email) {
		return added, fmt.Errorf("you signed in as %s, but %s is the account that needs signing in (%s is added now too)",
			added.Account.Email, email, added.Account.Email)
	}
	return added, nil
}

// ElicitSignIn is the SignIn option of a Google server on the real
// accounts: the person is asked in mcptray's inbox through a URL-mode
// elicitation on the call's session (SignInByElicitation), and the call
// goes on once the browser came back. ss is nil outside a tool call.
func ElicitSignIn(a *Accounts) func(ctx context.Context, ss *sdk.ServerSession, email string, why error) error {
	return func(ctx context.Context, ss *sdk.ServerSession, email string, why error) error {
		if ss == nil {
			return errors.New("there is no MCP session to ask the person through; sign in with `mcptray auth google add`")
		}
		reason := why.Error()
		var sn *SignInNeededError
		if errors.As(why, &sn) {
			reason = sn.Reason
		}
		_, err := SignInByElicitation(ctx, ss, a, email, reason)
		return err
	}
}
