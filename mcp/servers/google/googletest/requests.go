package googletest

import (
	"net/http"
	"net/url"
	"slices"
	"sync"
)

// The APIs a RateLimit can aim at.
const (
	APICalendar = "calendar"
	APIGmail    = "gmail"
)

// RateLimit is an injected rate-limit answer: Code 429, or 403; Reason is
// the error's reason ("" for rateLimitExceeded; userRateLimitExceeded is
// the per-user quota); RetryAfter is the Retry-After header ("" for none).
// API aims it at one API (APICalendar, APIGmail); "" takes the next
// request of either.
type RateLimit struct {
	Code       int
	RetryAfter string
	Reason     string
	API        string
}

// Request is one API request the fake answered (or refused): its method,
// path, the route pattern it matched, and its query.
type Request struct {
	Method, Path, Pattern string
	Query                 url.Values
}

// requestLog counts and records one API's requests.
type requestLog struct {
	mu       sync.Mutex     // guards the fields below
	counts   map[string]int // "METHOD pattern" and "METHOD path" → requests
	recorded []Request      // every request, in order
}

func (l *requestLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.counts == nil {
		l.counts = map[string]int{}
	}
	l.recorded = append(l.recorded, Request{Method: r.Method, Path: r.URL.Path, Pattern: r.Pattern, Query: r.URL.Query()})
	l.counts[r.Pattern]++
	if path := r.Method + " " + r.URL.Path; path != r.Pattern {
		l.counts[path]++
	}
}

func (l *requestLog) count(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[key]
}

func (l *requestLog) all() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.recorded)
}

// InjectRateLimits answers the next API requests, one each, with these
// rate-limit errors (a limit with API set waits for a request of that
// API).
func (s *Server) InjectRateLimits(limits ...RateLimit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits = append(s.limits, limits...)
}

// admit is what every API request goes through first: it is recorded in
// log and counted, answered with an injected rate limit if one waits for
// api, then its bearer token checked. It returns the token's account and
// scopes, or false when it has answered.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, api string, log *requestLog) (email string, scopes []string, ok bool) {
	log.add(r)
	s.mu.Lock()
	var limit *RateLimit
	for i, l := range s.limits {
		if l.API == "" || l.API == api {
			limit = &l
			s.limits = slices.Delete(s.limits, i, i+1)
			break
		}
	}
	s.mu.Unlock()
	if limit != nil {
		rateLimited(w, *limit)
		return "", nil, false
	}
	return s.bearer(w, r)
}

func rateLimited(w http.ResponseWriter, l RateLimit) {
	if l.RetryAfter != "" {
		w.Header().Set("Retry-After", l.RetryAfter)
	}
	reason, msg := "rateLimitExceeded", "Rate Limit Exceeded"
	if l.Reason == "userRateLimitExceeded" {
		reason, msg = l.Reason, "User Rate Limit Exceeded"
	} else if l.Reason != "" {
		reason = l.Reason
	}
	if l.Code == http.StatusForbidden {
		apiError(w, http.StatusForbidden, msg, reason, "PERMISSION_DENIED")
	} else {
		apiError(w, http.StatusTooManyRequests, msg, reason, "RESOURCE_EXHAUSTED")
	}
}
