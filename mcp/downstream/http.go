package downstream

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

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
		Transport: &headerTransport{base: &toolsTap{base: &progressTap{base: &checkTap{base: http.DefaultTransport, sess: s}, sess: s}, sess: s}, headers: spec.Headers},
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			return fmt.Errorf("redirect to %s refused", req.URL.Host)
		},
	}
	s.logLevel = levelOf(spec.LogLevel)
	transport := &sdk.StreamableClientTransport{Endpoint: spec.URL, HTTPClient: client, OAuthHandler: spec.OAuth}
	var asking *askingHandler
	if spec.OAuth != nil && spec.AskAuth != nil {
		asking = &askingHandler{OAuthHandler: spec.OAuth, ask: spec.AskAuth}
		transport.OAuthHandler = asking
	}
	cs, err := s.newHTTPClient().Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: ProbeVersion})
	if err != nil {
		s.endLife()
		return nil, httpStartError(ctx, spec.URL, "initialize", budget, err)
	}
	s.cs = cs
	s.newWire = s.ProtocolVersion() >= NewWireVersion
	s.raw = &rawHTTP{client: rawClient(spec.Headers), url: spec.URL}
	s.rawReady.Store(true)
	go s.monitorHTTP()
	if err := s.afterConnect(ctx, spec.LogLevel); err != nil {
		s.Close()
		return nil, httpStartError(ctx, spec.URL, "tools/list", budget, err)
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

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string // values are secrets as far as we know: never logged
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}
