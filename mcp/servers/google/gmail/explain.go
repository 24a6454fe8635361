package gmail

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/mcptray/mcptray/mcp/servers/google"
	"google.golang.org/api/googleapi"
)

// explain turns an API error into words a model can act on; doing says
// what the call was for.
func explain(err error, doing string) error {
	if err == nil {
		return nil
	}
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		return fmt.Errorf("%s: %w", doing, err)
	}
	if _, limited := google.RateLimited(err); limited {
		return fmt.Errorf("%s: %w", doing, err) // Backoff's words: when to try again
	}
	msg := ge.Message
	switch ge.Code {
	case http.StatusUnauthorized:
		return fmt.Errorf("%s: Google did not accept the account's sign-in (%s); try again, and if it goes on, sign in again with: mcptray auth google add", doing, msg)
	case http.StatusNotFound:
		return fmt.Errorf("%s: not found (Google: %s)", doing, msg)
	case http.StatusForbidden:
		for _, e := range ge.Errors {
			if e.Reason == "insufficientPermissions" || e.Reason == "ACCESS_TOKEN_SCOPE_INSUFFICIENT" {
				return fmt.Errorf("%s: the account has not granted Gmail access; add it again with: mcptray auth google add --scopes gmail", doing)
			}
		}
		return fmt.Errorf("%s: Google refused it: %s", doing, msg)
	case http.StatusBadRequest, http.StatusConflict:
		return fmt.Errorf("%s: Google refused it: %s", doing, msg)
	case http.StatusRequestEntityTooLarge:
		return fmt.Errorf("%s: too large for Gmail (a message may hold 25 MB of attachments)", doing)
	}
	if ge.Code >= 500 {
		return fmt.Errorf("%s: Google failed (%d %s); try again in a moment", doing, ge.Code, msg)
	}
	return fmt.Errorf("%s: %w", doing, err)
}
