//go:build unix

package ssh

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gossh "golang.org/x/crypto/ssh"
	xknownhosts "golang.org/x/crypto/ssh/knownhosts"
)

// env is one test's SSH server side and mcptray side: a Server with its
// own home, known_hosts and alias store, and an MCP client session whose
// elicitations are answered from a script.
type env struct {
	t      *testing.T
	srv    *Server
	store  *MemoryStore
	home   string // the local home (key files, local roots)
	known  string // known_hosts
	client *sdk.ClientSession
	asks   *scriptedAsks
	clock  *fakeClock
}

// envOption changes the Server's options or the client's protocol.
type envOption func(o *Options, protocol *string)

// withProtocol pins the client to an older protocol version, as mcptray's
// gateway does (2025-11-25): secrets are then asked with
// elicitation/create during the call, not with input-required results.
func withProtocol(v string) envOption { return func(_ *Options, p *string) { *p = v } }

func withOptions(f func(*Options)) envOption { return func(o *Options, _ *string) { f(o) } }

func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	home := t.TempDir()
	e := &env{t: t, store: NewMemoryStore(), home: home, known: filepath.Join(home, ".ssh", "known_hosts"),
		asks: &scriptedAsks{}, clock: &fakeClock{now: time.Now()}}
	o := Options{Aliases: e.store, Home: home, KnownHosts: e.known, Now: e.clock.Now, Version: "test",
		Logger: slog.New(slog.NewTextHandler(testWriter{t}, nil))}
	var protocol string
	for _, f := range opts {
		f(&o, &protocol)
	}
	e.srv = New(o)
	t.Cleanup(e.srv.Close)

	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := e.srv.mcpServer().Connect(ctx, st, nil)
	must(t, err)
	t.Cleanup(func() { ss.Close() })
	client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: e.asks.handle,
	})
	e.client, err = client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: protocol})
	must(t, err)
	t.Cleanup(func() { e.client.Close() })
	return e
}

// trust writes the server's ed25519 key to known_hosts.
func (e *env) trust(ts *testServer) {
	e.t.Helper()
	must(e.t, os.MkdirAll(filepath.Dir(e.known), 0o700))
	line := xknownhosts.Line([]string{xknownhosts.Normalize(ts.addr)}, ts.ed25519.PublicKey())
	f, err := os.OpenFile(e.known, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	must(e.t, err)
	fmt.Fprintln(f, line)
	f.Close()
}

// keyAlias adds an alias logging in with a fresh unencrypted key to ts,
// whose host key is trusted.
func (e *env) keyAlias(name string, ts *testServer, mods ...func(*Alias)) Alias {
	e.t.Helper()
	path, pub := clientKey(e.t, e.home, "")
	ts.authorize(pub)
	e.trust(ts)
	a := Alias{Name: name, Host: "127.0.0.1", Port: ts.port, User: "tester", Auth: AuthKey, KeyPath: path, Sudo: SudoPrompt}
	for _, m := range mods {
		m(&a)
	}
	if _, _, err := e.srv.AddAlias(a, true); err != nil {
		e.t.Fatal(err)
	}
	return a
}

// call calls a tool; the result's structured content is decoded into out
// (when not nil). It returns the result.
func (e *env) call(name string, args map[string]any, out any) *sdk.CallToolResult {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.client.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	if out != nil {
		reflect.ValueOf(out).Elem().SetZero()
	}
	if out != nil && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		must(e.t, json.Unmarshal(b, out))
	}
	return res
}

// ok calls a tool that must succeed.
func (e *env) ok(name string, args map[string]any, out any) *sdk.CallToolResult {
	e.t.Helper()
	res := e.call(name, args, out)
	if res.IsError {
		e.t.Fatalf("%s(%v) failed: %s", name, args, text(res))
	}
	return res
}

// fail calls a tool that must fail and returns its error text.
func (e *env) fail(name string, args map[string]any) string {
	e.t.Helper()
	res := e.call(name, args, nil)
	if !res.IsError {
		e.t.Fatalf("%s(%v) succeeded, want an error: %s", name, args, text(res))
	}
	return text(res)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// scriptedAsks answers elicitations from a queue and records them.
type scriptedAsks struct {
	mu      sync.Mutex // guards the fields below
	answers []answer
	seen    []*sdk.ElicitParams
}

// answer is one scripted reply: accept with value, or an action.
type answer struct {
	action string // "" = accept
	value  string
}

func (a *scriptedAsks) push(ans ...answer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.answers = append(a.answers, ans...)
}

func (a *scriptedAsks) handle(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, req.Params)
	if len(a.answers) == 0 {
		return &sdk.ElicitResult{Action: "cancel"}, nil
	}
	ans := a.answers[0]
	a.answers = a.answers[1:]
	if ans.action != "" {
		return &sdk.ElicitResult{Action: ans.action}, nil
	}
	schema, _ := json.Marshal(req.Params.RequestedSchema)
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	content := map[string]any{}
	for name := range s.Properties {
		content[name] = ans.value
	}
	return &sdk.ElicitResult{Action: "accept", Content: content}, nil
}

// asked returns the messages of the elicitations so far.
func (a *scriptedAsks) asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, p := range a.seen {
		out = append(out, p.Message)
	}
	return out
}

func (a *scriptedAsks) last() *sdk.ElicitParams {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.seen) == 0 {
		return nil
	}
	return a.seen[len(a.seen)-1]
}

// fakeClock is the secrets' clock.
type fakeClock struct {
	mu  sync.Mutex // guards now
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testWriter sends the server's log to t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// fingerprint is a host key's SHA256 fingerprint.
func fingerprint(s gossh.Signer) string { return gossh.FingerprintSHA256(s.PublicKey()) }
