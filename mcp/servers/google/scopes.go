package google

import (
	"fmt"
	"slices"
	"strings"
)

// The services an account can be signed in for: the names `mcptray auth
// google add --scopes` takes and `list` shows.
const (
	ServiceCalendar = "calendar"
	ServiceGmail    = "gmail"
)

// DefaultServices are what an account is signed in for unless told
// otherwise.
var DefaultServices = []string{ServiceCalendar, ServiceGmail}

// The OAuth scopes of each service: Calendar's full scope (events,
// calendar list, free/busy) and gmail.modify (read, label, draft and send;
// everything but deleting for good).
const (
	ScopeCalendar = "https://www.googleapis.com/auth/calendar"
	ScopeGmail    = "https://www.googleapis.com/auth/gmail.modify"
)

// identityScopes are asked for always: the ID token's email.
var identityScopes = []string{"openid", "email"}

var serviceScopes = map[string]string{ServiceCalendar: ScopeCalendar, ServiceGmail: ScopeGmail}

// serviceWhat says what an account loses without a service.
var serviceWhat = map[string]string{
	ServiceCalendar: "the gcal server's tools and calendar notifications will not work for this account",
	ServiceGmail:    "the gmail server's tools and new-mail notifications will not work for this account",
}

// ParseServices reads a comma-separated list of services ("calendar,gmail").
func ParseServices(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		if _, ok := serviceScopes[f]; !ok {
			return nil, fmt.Errorf("unknown Google service %q: the choices are calendar and gmail", f)
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no Google service given: the choices are calendar and gmail")
	}
	return out, nil
}

// scopesFor is the OAuth scopes of a sign-in for services.
func scopesFor(services []string) []string {
	scopes := slices.Clone(identityScopes)
	for _, s := range services {
		scopes = append(scopes, serviceScopes[s])
	}
	return scopes
}

// grantedServices splits services into those whose scope is in granted
// (the token response's space-separated "scope") and those missing.
func grantedServices(services []string, granted string) (have, missing []string) {
	g := strings.Fields(granted)
	for _, s := range services {
		if slices.Contains(g, serviceScopes[s]) {
			have = append(have, s)
		} else {
			missing = append(missing, s)
		}
	}
	return have, missing
}

// MissingMessage says, for a service whose scope was not granted, what
// that disables and how to fix it.
func MissingMessage(email, service string) string {
	return fmt.Sprintf("%s did not grant %s access (%s): %s; to fix it, run `mcptray auth google add` again and tick every box on Google's consent page",
		email, service, serviceScopes[service], serviceWhat[service])
}
