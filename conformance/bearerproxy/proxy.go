package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
)

// maxBody bounds a request body; an MCP message is far smaller.
const maxBody = 16 << 20

// newHandler forwards every request to target, adding the bearer token.
// selfPort is the port the proxy listens on (see mapHost); logger gets
// errors other than a client going away.
func newHandler(target *url.URL, token, selfPort string, logger *log.Logger) http.Handler {
	p := newProxy(target, token, selfPort, logger)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the whole body before forwarding (an MCP POST is one JSON
		// message). Streamed, the upstream may answer (an SSE stream) as
		// soon as it has parsed the JSON, before the transport has read
		// the body's EOF; the HTTP/1 server then closes the body under the
		// transport, which drops the upstream connection mid-stream (a
		// suite scenario timed out once in ≈ 5 runs). Full duplex instead
		// leaves the transport reading the body after an early answer
		// (a 401) while the server reads the next request: a panic.
		if r.Body != nil && r.Body != http.NoBody {
			b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
			if err != nil {
				status := http.StatusBadRequest
				if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
					status = http.StatusRequestEntityTooLarge
				}
				http.Error(w, "bearerproxy: reading the request body: "+err.Error(), status)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.ContentLength = int64(len(b))
			r.TransferEncoding = nil
		}
		p.ServeHTTP(w, r)
	})
}

func newProxy(target *url.URL, token, selfPort string, logger *log.Logger) *httputil.ReverseProxy {
	targetPort := target.Port()
	if targetPort == "" {
		targetPort = "80"
	}
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			// SetURL points Host at the target. Keep what the client
			// sent instead, only mapping the proxy's own address to the
			// target's, so the target's DNS rebinding check judges a
			// foreign Host or Origin as if the client had come directly.
			r.Out.Host = r.In.Host
			if h, ok := mapHost(r.In.Host, selfPort, targetPort); ok {
				r.Out.Host = h
			}
			if o, err := url.Parse(r.In.Header.Get("Origin")); err == nil && o.Host != "" {
				if h, ok := mapHost(o.Host, selfPort, targetPort); ok {
					o.Host = h
					r.Out.Header.Set("Origin", o.String())
				}
			}
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		// Flush every write: MCP responses may be SSE streams that stay open.
		FlushInterval: -1,
		ErrorLog:      logger,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if errors.Is(err, context.Canceled) {
				return // the client went away, e.g. closed its SSE stream
			}
			logger.Printf("%s %s: %v", r.Method, r.URL.Path, err)
			w.WriteHeader(http.StatusBadGateway)
		},
	}
}

// parseTarget checks that raw is an http URL on a loopback host.
func parseTarget(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, fmt.Errorf("-target is required (e.g. http://127.0.0.1:8080)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parsing -target: %w", err)
	}
	if u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("-target %q: want http://HOST:PORT", raw)
	}
	if !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("-target %q: host must be loopback (the token goes there)", raw)
	}
	return u, nil
}

// mapHost turns host, when it names the proxy itself (a loopback host on
// selfPort), into the same host name on targetPort.
func mapHost(host, selfPort, targetPort string) (string, bool) {
	name, port, err := net.SplitHostPort(host)
	if err != nil || port != selfPort || !isLoopback(name) {
		return "", false
	}
	return net.JoinHostPort(name, targetPort), true
}

// isLoopback reports whether host is localhost or a loopback IP.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
