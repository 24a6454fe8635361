package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/mcp"
)

// tokenEntry is the keyring entry holding the HTTP endpoint's bearer token.
const tokenEntry = "http-token"

// Endpoint is what DATA/endpoint.json holds: where the HTTP endpoint listens.
type Endpoint struct {
	URL string `json:"url"`
	PID int    `json:"pid"`
}

func endpointPath(data string) string { return filepath.Join(data, "endpoint.json") }

// ReadEndpoint reads DATA/endpoint.json.
func ReadEndpoint(data string) (Endpoint, error) {
	var ep Endpoint
	b, err := os.ReadFile(endpointPath(data))
	if err != nil {
		return ep, err
	}
	return ep, json.Unmarshal(b, &ep)
}

// Token returns the HTTP bearer token, creating it in the keyring on first
// use. It fails when the keyring is unavailable: the token is never kept
// anywhere else.
func Token() (string, error) {
	return keyring.WithTimeout(keyringTimeout, func() (string, error) {
		tok, err := keyring.Get(tokenEntry)
		if err == nil && tok != "" {
			return tok, nil
		}
		if !errors.Is(err, keyring.ErrNotFound) && err != nil {
			return "", err
		}
		var b [32]byte
		rand.Read(b[:])
		tok = hex.EncodeToString(b[:])
		if err := keyring.Set(tokenEntry, tok); err != nil {
			return "", err
		}
		return tok, nil
	})
}

// serveHTTP runs the loopback HTTP endpoint on x-mcptray.listen until ctx
// ends, restarting it when the listen address changes. Without a token
// (no keyring) it stays off and says why in the status.
func (c *Core) serveHTTP(ctx context.Context, listenChanged <-chan struct{}) {
	defer os.Remove(endpointPath(c.opts.DataDir))
	token, err := c.opts.Token()
	if err != nil {
		c.setEndpoint("", "HTTP endpoint off: no bearer token: "+err.Error(), "")
		return
	}
	for {
		c.mu.Lock()
		addr := c.settings.Listen
		c.mu.Unlock()
		if addr == "" {
			addr = config.DefaultListen
		}
		srv, err := c.startHTTP(addr, token)
		if err != nil {
			c.setEndpoint("", err.Error(), "")
		}
		select {
		case <-ctx.Done():
		case <-listenChanged:
		}
		if srv != nil {
			srv.Close()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// httpSessionIdle is how long an HTTP session may go without a request
// (an open GET stream counts as one) before the next session to start
// closes it: clients that never send DELETE would otherwise leave their
// sessions behind for as long as mcptray runs.
const httpSessionIdle = time.Hour

// httpUnusedSessionIdle is httpSessionIdle for a session that made no
// request after initialize (but the initialized notification): a client
// that starts a session and goes away, the common case of a script or a
// probe.
const httpUnusedSessionIdle = 2 * time.Minute

// maxHTTPSessions caps the HTTP sessions open at a time (there is one
// token): a new one past it closes the session idle the longest, or gets
// 503 when every session has a request in flight. Each costs about 16 KB
// and two goroutines.
const maxHTTPSessions = 64

// Limits of the HTTP endpoint's connections (the README's HTTP section
// and docs/internals.md's timing table say them too): a request's header must arrive
// within httpHeaderTimeout, its body within mcp.HTTPBodyTimeout
// (gateway_http_limits.go); a connection with no request for
// httpIdleTimeout is closed; at most maxHTTPConns are open at a time
// (endpoint_conns.go), at most maxFreshConns of them still sending their
// first header past a short grace (endpoint_fresh.go). Nothing bounds an answer: no ReadTimeout, no
// WriteTimeout, so an event stream or a long tool call lasts as long as
// it takes. The control socket's server has the same header and idle
// limits (core.go).
const (
	httpHeaderTimeout  = 3 * time.Second // a header is one write on loopback; slow ones hold a slot
	httpIdleTimeout    = 2 * time.Minute
	httpMaxHeaderBytes = 64 << 10
	maxHTTPConns       = 256
)

func (c *Core) startHTTP(addr, token string) (*http.Server, error) {
	ln, warning, err := listenHTTP(addr)
	if err != nil {
		return nil, fmt.Errorf("HTTP endpoint off: listening on %s: %w", addr, err)
	}
	if warning != "" {
		c.log.Warn("HTTP endpoint: " + warning)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	p := strconv.Itoa(port)
	handler := c.gw.HTTPHandler(mcp.HTTPOptions{
		Token:             token,
		DefaultTools:      c.toolsMode(),
		AllowedHosts:      []string{"127.0.0.1:" + p, "localhost:" + p, "[::1]:" + p},
		SessionIdle:       httpSessionIdle,
		UnusedSessionIdle: httpUnusedSessionIdle,
		MaxSessions:       maxHTTPSessions,
	})
	capped := capConns(mcp.RawListener(ln), maxHTTPConns, c.log, "HTTP endpoint").withFreshShare(maxFreshConns)
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: httpHeaderTimeout, IdleTimeout: httpIdleTimeout, MaxHeaderBytes: httpMaxHeaderBytes,
		ConnState: capped.connState}
	go srv.Serve(capped)
	host := ln.Addr().(*net.TCPAddr).IP.String()
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		host = "[" + host + "]"
	}
	url := fmt.Sprintf("http://%s:%d/mcp", host, port)
	// The user's alone: 0600 on Unix, the data dir's inherited DACL on
	// Windows (makePrivate).
	ep, _ := json.Marshal(Endpoint{URL: url, PID: os.Getpid()})
	if err := config.WriteAtomic(endpointPath(c.opts.DataDir), append(ep, '\n')); err != nil {
		c.log.Warn("writing endpoint.json", "err", err)
	}
	c.setEndpoint(url, "", warning)
	c.log.Info("HTTP endpoint listening", "url", url)
	return srv, nil
}

// listenHTTP listens on addr. When a fixed port is taken, it listens on a
// free port of the same host instead, and warning says so: a client's
// saved URL no longer reaches mcptray, which the person must learn from
// status and the Assistants tab, never find out by a failing client.
func listenHTTP(addr string) (ln net.Listener, warning string, err error) {
	ln, err = net.Listen("tcp", addr)
	if err == nil || !addrInUse(err) {
		return ln, "", err
	}
	host, port, _ := net.SplitHostPort(addr)
	ln, err2 := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err2 != nil {
		return nil, "", err
	}
	free := ln.Addr().(*net.TCPAddr).Port
	return ln, fmt.Sprintf("port %s is taken by another program, so mcptray listens on port %d instead, until the next start: "+
		"URLs saved with port %s do not reach mcptray; free the port, or set another one in x-mcptray.listen", port, free, port), nil
}

func (c *Core) setEndpoint(url, errText, warning string) {
	c.mu.Lock()
	c.endpoint, c.endpointErr, c.endpointWarning = url, errText, warning
	c.mu.Unlock()
	c.broadcast()
}

// toolsMode is the configured default tool-list mode.
func (c *Core) toolsMode() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settings.Tools == "" {
		return config.DefaultTools
	}
	return c.settings.Tools
}
