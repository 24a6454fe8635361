package downstream

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// StartHTTP connects to a remote streamable-HTTP server, runs initialize
// and a full tools/list, all within ctx and spec.StartTimeout (as in
// Start). Redirects are refused. Hooks.Event
// is not called for HTTP servers: their connection is the SDK's own (a
// wrapper would stop its background event stream).
func StartHTTP(ctx context.Context, spec HTTPSpec, hooks Hooks) (*Session, error) {
	begun := time.Now()
	budget := startBudget(ctx, begun, spec.StartTimeout)
	u, err := url.Parse(spec.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("url must be an absolute http:// or https:// address")
	}
	s := newSession(hooks)
	for _, v := range spec.Secrets {
		s.addSecret(v)
	}
	s.attachEarly(spec.Router)
	ctx, done := s.boundStart(ctx, spec.StartTimeout)
	defer done()
	client := &http.Client{
		Transport: &headerTransport{sess: s, base: &toolsTap{base: &progressTap{base: &checkTap{base: http.DefaultTransport, sess: s}, sess: s}, sess: s}, headers: spec.Headers},
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			return fmt.Errorf("redirect to %s refused", req.URL.Host)
		},
	}
	s.logLevel = levelOf(spec.LogLevel)
	var oauth auth.OAuthHandler
	var authErrs *authTrack
	var asking *askingHandler
	if spec.OAuth != nil {
		authErrs = &authTrack{OAuthHandler: spec.OAuth}
		oauth = authErrs
		if spec.AskAuth != nil {
			asking = &askingHandler{OAuthHandler: authErrs, ask: spec.AskAuth, ok: spec.AuthOK}
			oauth = asking
		}
	}
	client.Transport.(*headerTransport).observer = observerOf(oauth)
	transport := &sdk.StreamableClientTransport{Endpoint: spec.URL, HTTPClient: client, OAuthHandler: oauth}
	cs, err := s.newHTTPClient().Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: ProbeVersion})
	if err != nil {
		s.endLife()
		return nil, httpStartError(ctx, spec.URL, "initialize", budget, authErrs.join(err))
	}
	s.cs = cs
	s.newWire = s.ProtocolVersion() >= NewWireVersion
	// The raw fast path (a task's tools/call) asks as the SDK's calls do.
	s.raw = &rawHTTP{client: rawClient(spec.Headers, s, observerOf(oauth)), url: spec.URL, oauth: oauth}
	s.rawReady.Store(true)
	go s.monitorHTTP()
	if err := s.afterConnect(ctx, spec.LogLevel); err != nil {
		s.Close()
		return nil, httpStartError(ctx, spec.URL, "tools/list", budget, authErrs.join(err))
	}
	if asking != nil {
		asking.ready.Store(true)
	}
	return s, nil
}

func httpStartError(ctx context.Context, rawURL, phase string, budget time.Duration, err error) error {
	if ctx.Err() != nil {
		return timeoutError(ctx, phase, budget, "")
	}
	// The SDK's and net/http's errors quote the URL; keep its query and
	// user info (which may hold credentials) out of the message.
	msg := strings.ReplaceAll(err.Error(), rawURL, redactURL(rawURL))
	return &startupError{msg: phase + ": " + msg, cause: err}
}

// authTrack keeps the first error the OAuth handler's Authorize returned
// during a start. go-sdk falls back from server/discover to initialize on
// any error, so a sign-in needed on the first may end the start with the
// second's answer (a server may refuse that initialize for another
// reason): the start error carries it all the same.
type authTrack struct {
	auth.OAuthHandler
	mu    sync.Mutex
	first error // guarded by mu
}

func (t *authTrack) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	err := t.OAuthHandler.Authorize(ctx, req, resp)
	if err != nil {
		t.mu.Lock()
		if t.first == nil {
			t.first = err
		}
		t.mu.Unlock()
	}
	return err
}

// ObserveResponse passes the answers on to the handler, if it hears them.
func (t *authTrack) ObserveResponse(req *http.Request, resp *http.Response) {
	if o := observerOf(t.OAuthHandler); o != nil {
		o.ObserveResponse(req, resp)
	}
}

// join is err with the handler's first error, when err does not carry
// it already: that one says what to do (sign in), so it comes first.
func (t *authTrack) join(err error) error {
	if t == nil || err == nil {
		return err
	}
	t.mu.Lock()
	first := t.first
	t.mu.Unlock()
	if first == nil || errors.Is(err, first) || strings.Contains(err.Error(), first.Error()) {
		return err
	}
	return &joined{first: first, then: err}
}

// joined is a start error after an authorization error.
type joined struct{ first, then error }

func (j *joined) Error() string   { return j.first.Error() + " (then: " + j.then.Error() + ")" }
func (j *joined) Unwrap() []error { return []error{j.first, j.then} }

// observerOf is h's responseObserver, or nil.
func observerOf(h any) responseObserver {
	o, _ := h.(responseObserver)
	return o
}

// redactURL drops user info, query and fragment.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(url)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// monitorHTTP ends the session when the connection drops or on Close.
func (s *Session) monitorHTTP() {
	dropped := make(chan struct{})
	go func() {
		s.cs.Wait()
		close(dropped)
	}()
	reason := "connection closed"
	select {
	case <-dropped:
	case <-s.closeReq:
		reason = "stopped"
		s.endLife() // in-flight calls return first, so Close does not wait on them
		s.cs.Close()
	}
	s.endLife()
	s.exitReason, s.exitCode = reason, -1
	close(s.done)
}

// headerTransport adds the configured headers to every request, and
// puts a bearer token it carries (OAuth's) in the session's redactions.
type headerTransport struct {
	base     http.RoundTripper
	headers  map[string]string // values are secrets as far as we know: never logged
	sess     *Session
	observer responseObserver // the OAuth handler's, if it has one
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	tok, bearer := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if bearer && tok != "" && t.sess != nil {
		t.sess.addSecret(tok)
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && bearer && t.observer != nil {
		t.observer.ObserveResponse(req, resp)
	}
	return resp, err
}

// responseObserver is what an OAuth handler may implement to hear the
// server's answers to the requests it signed (mcp/oauthclient's does:
// a token that worked is no longer suspect).
type responseObserver interface {
	ObserveResponse(req *http.Request, resp *http.Response)
}
