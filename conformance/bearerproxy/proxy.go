package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
)

// newHandler forwards every request to target, adding the bearer token and
// keeping the client's Host header.
func newHandler(target *url.URL, token string) http.Handler {
	p := newProxy(target, token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Without full duplex, an HTTP/1 server closes the request body
		// when the response starts. The upstream answers (an SSE stream)
		// as soon as it has parsed the JSON body; if the proxy's transport
		// has not read the body's EOF by then, its next read fails, and
		// the transport drops the upstream connection mid-stream. Seen as
		// a suite scenario timing out once in ≈ 5 runs.
		if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
			http.Error(w, "bearerproxy: "+err.Error(), http.StatusInternalServerError)
			return
		}
		p.ServeHTTP(w, r)
	})
}

func newProxy(target *url.URL, token string) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			// SetURL points Host at the target; put the client's back so
			// the target's DNS rebinding check sees it.
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		// Flush every write: MCP responses may be SSE streams that stay open.
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if errors.Is(err, context.Canceled) {
				return // the client went away, e.g. closed its SSE stream
			}
			log.Printf("bearerproxy: %s %s: %v", r.Method, r.URL.Path, err)
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

// isLoopback reports whether host is localhost or a loopback IP.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
