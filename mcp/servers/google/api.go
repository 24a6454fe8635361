package google

import (
	"context"
	"net/http"
	"os"
	"strings"
)

// APIURLEnv names the environment variable holding the base URL that both
// APIs are served under: calendar/v3/… and gmail/v1/… below it. Tests and
// Google-compatible endpoints set it; the default is Google's.
const APIURLEnv = "MCPTRAY_GOOGLE_API_URL"

// DefaultAPIURL is Google's base URL for the Calendar and Gmail APIs.
const DefaultAPIURL = "https://www.googleapis.com/"

// APIURL is the base URL of the APIs, ending in "/".
func APIURL() string {
	u := os.Getenv(APIURLEnv)
	if u == "" {
		return DefaultAPIURL
	}
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}

// AccountSource is what a Google server needs of the accounts: their
// addresses and an authorized HTTP client for each. Accounts implements
// it.
type AccountSource interface {
	// Emails lists the accounts, first added first.
	Emails() ([]string, error)
	// Client returns an HTTP client whose requests carry a fresh access
	// token of email. It returns a *SignInNeededError when the account
	// must sign in again (or does not exist).
	Client(ctx context.Context, email string) (*http.Client, error)
}

// SignInNeededError says that an account has to sign in (again) before
// its calls can go on, and why, in words for the person.
type SignInNeededError struct {
	Email  string // "" when no account exists yet
	Reason string
}

func (e *SignInNeededError) Error() string {
	if e.Email == "" {
		return "no Google account is signed in: " + e.Reason
	}
	return "the Google account " + e.Email + " needs to sign in again: " + e.Reason
}
