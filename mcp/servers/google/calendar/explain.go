package calendar

import (
	"errors"
	"fmt"
	"net/http"

	"google.golang.org/api/googleapi"
)

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
