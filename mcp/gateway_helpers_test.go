//go:build linux || windows

package mcp

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func newTestGateway(t testing.TB, opts GatewayOptions) (*Gateway, *testkit.Buffer) {
	t.Helper()
	tl := &testkit.Buffer{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(tl, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return NewGateway(opts), tl
}

// addServer starts a fake in mode and makes it the gateway's server name.
// Like the supervisor, it re-lists tools on list_changed.
func addServer(t testing.TB, g *Gateway, name, mode string, opts ...fakeOpt) *fake {
	t.Helper()
	var f *fake
	f = startFake(t, mode, downstream.Hooks{ToolsChanged: func() {
		go f.ListTools(context.Background())
	}}, opts...)
	g.SetServer(name, f.Session)
	return f
}

// capture records what a client reads: every message as JSON, and the raw
// result of each response.
type capture struct {
	mu      sync.Mutex
	results [][]byte // guarded by mu: raw results, in arrival order
	msgs    []string // guarded by mu: every message read
}

type captureTransport struct {
	sdk.Transport
	c *capture
}

func (t captureTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &captureConn{Connection: conn, c: t.c}, nil
}

type captureConn struct {
	sdk.Connection
	c *capture
}

func (cc *captureConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := cc.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	b, _ := jsonrpc.EncodeMessage(msg)
	cc.c.mu.Lock()
	if r, ok := msg.(*jsonrpc.Response); ok && r.Result != nil {
		cc.c.results = append(cc.c.results, bytes.Clone(r.Result))
	}
	if len(b) < 4096 {
		cc.c.msgs = append(cc.c.msgs, string(b))
	}
	cc.c.mu.Unlock()
	return msg, nil
}

// testClient is an assistant connected to the gateway (or directly to a
// server).
type testClient struct {
	*sdk.ClientSession
	cap  *capture
	conn io.Closer // the client's end of a stream session; nil otherwise
	done chan error
}

func clientOptions(opts *sdk.ClientOptions) *sdk.ClientOptions {
	if opts == nil {
		opts = &sdk.ClientOptions{}
	}
	if opts.Capabilities == nil {
		opts.Capabilities = &sdk.ClientCapabilities{}
	}
	return opts
}

// connectStream connects an SDK client to g.ServeStream over a socket
// pair.
func connectStream(t testing.TB, g *Gateway, uo UpstreamOptions, co *sdk.ClientOptions) *testClient {
	t.Helper()
	ours, theirs := socketPair(t)
	return connectOver(t, g, uo, co, ours, theirs)
}

// oldWire is the revision the helpers' clients speak unless a test asks
// for another (the go-sdk's client probes for 2026-07-28 by default): the
// tests of the session features of the older revisions.
const oldWire = "2025-11-25"

// connectStreamWire is connectStream for a client that offers version
// (protocol2026: the sessionless wire).
func connectStreamWire(t testing.TB, g *Gateway, uo UpstreamOptions, co *sdk.ClientOptions, version string) *testClient {
	t.Helper()
	ours, theirs := socketPair(t)
	return connectOverWire(t, g, uo, co, ours, theirs, version)
}

// connectOver runs a stream session on theirs, with an SDK client on ours.
func connectOver(t testing.TB, g *Gateway, uo UpstreamOptions, co *sdk.ClientOptions, ours, theirs io.ReadWriteCloser) *testClient {
	t.Helper()
	return connectOverWire(t, g, uo, co, ours, theirs, oldWire)
}

func connectOverWire(t testing.TB, g *Gateway, uo UpstreamOptions, co *sdk.ClientOptions, ours, theirs io.ReadWriteCloser, version string) *testClient {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- g.ServeStream(context.Background(), theirs, uo) }()
	tc := &testClient{cap: &capture{}, conn: ours, done: done}
	client := sdk.NewClient(&sdk.Implementation{Name: "test-assistant", Version: "1"}, clientOptions(co))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, captureTransport{&sdk.IOTransport{Reader: ours, Writer: ours}, tc.cap}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to the gateway: %v", err)
	}
	tc.ClientSession = cs
	t.Cleanup(func() {
		cs.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("ServeStream did not return after the client closed")
		}
	})
	return tc
}

// httpGateway serves g's HTTP handler on a test server.
func httpGateway(t testing.TB, g *Gateway, token string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(g.HTTPHandler(HTTPOptions{Token: token}))
	t.Cleanup(srv.Close)
	return srv
}

// bearerTransport adds the token to every request.
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// connectHTTP connects an SDK client to url with the bearer token.
func connectHTTP(t testing.TB, url, token string, co *sdk.ClientOptions) *testClient {
	t.Helper()
	return connectHTTPWire(t, url, token, co, oldWire)
}

// connectHTTPWire is connectHTTP for a client that offers version.
func connectHTTPWire(t testing.TB, url, token string, co *sdk.ClientOptions, version string) *testClient {
	t.Helper()
	tc := &testClient{cap: &capture{}}
	client := sdk.NewClient(&sdk.Implementation{Name: "test-http-assistant", Version: "1"}, clientOptions(co))
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token, http.DefaultTransport}}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, captureTransport{tr, tc.cap}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	tc.ClientSession = cs
	t.Cleanup(func() { cs.Close() })
	return tc
}

// connectDirect connects an SDK client straight to a fake in mode.
func connectDirect(t testing.TB, mode string, co *sdk.ClientOptions) *testClient {
	t.Helper()
	return connectDirectWire(t, mode, co, downstream.ProtocolVersion)
}

// connectDirectWire is connectDirect for a client that offers version.
func connectDirectWire(t testing.TB, mode string, co *sdk.ClientOptions, version string) *testClient {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = mcptest.Env(mode)
	tc := &testClient{cap: &capture{}}
	client := sdk.NewClient(&sdk.Implementation{Name: "test-direct", Version: "1"}, clientOptions(co))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, captureTransport{&sdk.CommandTransport{Command: cmd}, tc.cap}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to fake %s: %v", mode, err)
	}
	tc.ClientSession = cs
	t.Cleanup(func() { cs.Close() })
	return tc
}

var _ = io.EOF

// rawStream is a stream session driven line by line.
type rawStream struct {
	conn net.Conn
	lr   *wire.LineReader
}

func connectRaw(t testing.TB, g *Gateway, uo UpstreamOptions) *rawStream {
	t.Helper()
	ours, theirs := socketPair(t)
	done := make(chan error, 1)
	go func() { done <- g.ServeStream(context.Background(), theirs, uo) }()
	t.Cleanup(func() {
		ours.Close()
		<-done
	})
	return &rawStream{conn: ours, lr: wire.NewLineReader(ours, wire.MaxLineBytes)}
}

func (r *rawStream) send(t testing.TB, line string) {
	t.Helper()
	if _, err := r.conn.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
}

// recv reads the next line, skipping notifications.
func (r *rawStream) recv(t testing.TB) string {
	t.Helper()
	r.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		line, _, err := r.lr.Next()
		if err != nil {
			t.Fatalf("reading: %v", err)
		}
		if !strings.Contains(string(line), `"method":"notifications/`) {
			return string(line)
		}
	}
}

// initialize runs the handshake.
func (r *rawStream) initialize(t testing.TB) {
	t.Helper()
	r.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if got := r.recv(t); !strings.Contains(got, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s", got)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}
