package mcp

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Limits on reading an HTTP request (app/endpoint.go sets the header's,
// the idle connection's and the connection cap). A body must arrive
// within HTTPBodyTimeout of the handler's start, or HTTPUnauthBodyTimeout
// when the request lacks the token: net/http reads (to discard) what is
// left of an unread body before it lets a connection go, so without a
// deadline a client that sent a header and one byte of body held its
// connection, unauthenticated, for as long as it liked.
//
// The deadline bounds reading the request only. A request without a body
// (a GET event stream, DELETE) gets none; for one with a body, net/http
// clears the connection's read deadline once the body has been read to
// its end (the background read that notices a client going away runs
// without one), so an answer in progress — an event stream, a long tool
// call — is never cut.
const (
	// MaxHTTPBody is the largest request body read, the SDK's
	// DefaultMaxRequestBodyBytes too; larger ones get 413.
	MaxHTTPBody = 4 << 20
	// HTTPBodyTimeout is how long an authenticated request's body may
	// take to arrive.
	HTTPBodyTimeout = 10 * time.Second
	// HTTPUnauthBodyTimeout is how long net/http may go on reading the
	// body of a request without the token (answered 401, or 403), before
	// the connection is closed.
	HTTPUnauthBodyTimeout = 2 * time.Second
)

var connectionClose = []string{"close"}

// limitBody bounds the reading of r's body (authorized: r carries the
// token) before any handler reads it, and reports whether r may go on;
// when not, it has answered 413. It costs a request with a body one
// deadline: a declared length is already enforced by net/http, so only a
// chunked body gets an http.MaxBytesReader.
func limitBody(w http.ResponseWriter, r *http.Request, authorized bool) bool {
	if r.ContentLength == 0 {
		return true // no body: net/http's background read has begun already, and a deadline now would end a GET stream
	}
	if r.ContentLength > MaxHTTPBody {
		w.Header()["Connection"] = connectionClose
		http.Error(w, fmt.Sprintf("request body too large: at most %d bytes", MaxHTTPBody), http.StatusRequestEntityTooLarge)
		return false
	}
	d := HTTPBodyTimeout
	if !authorized {
		d = HTTPUnauthBodyTimeout
	}
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
	if r.ContentLength < 0 {
		r.Body = http.MaxBytesReader(w, r.Body, MaxHTTPBody)
	}
	return true
}

// bearerIs reports whether r's Authorization header is exactly "Bearer "
// and token, comparing the token in constant time. It is stricter than
// auth.RequireBearerToken (one space, nothing around): what it accepts,
// that accepts.
func bearerIs(r *http.Request, token string) bool {
	const scheme = "Bearer "
	h := r.Header.Get("Authorization")
	if len(h) != len(scheme)+len(token) || len(token) == 0 {
		return false
	}
	return strings.EqualFold(h[:len(scheme)], scheme) && sameSecret(h[len(scheme):], token)
}

// sameSecret reports whether a == b, in a time that depends on their
// lengths only (subtle.ConstantTimeCompare, without converting them).
func sameSecret(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	var v byte
	for i := range len(a) {
		v |= a[i] ^ b[i]
	}
	return v == 0
}
