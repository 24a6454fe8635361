//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// newDiscover is what a 2026-07-28 client (the go-sdk's, the Vercel AI
// SDK) sends first.
const newDiscover = `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"ai-sdk","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`

const versionsListed = `"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`

// newMeta is the _meta of a 2026-07-28 request.
const newMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw-new","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// rawPOST posts body to url with the token and headers (name, value, …)
// and returns the status, headers and body of the answer.
func rawPOST(t *testing.T, url, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// server/discover lists every revision the gateway serves, newest first,
// on a stream and over HTTP (without a session); one without the
// revision's _meta is answered -32601, as by an older server, and an old
// client's initialize works after either.
func TestServerDiscoverListsVersions(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "e", "echo")
	r := connectRaw(t, g, UpstreamOptions{})
	r.send(t, newDiscover)
	if got := r.recv(t); !strings.Contains(got, `"id":0,"result":{`) || !strings.Contains(got, versionsListed) || !strings.Contains(got, `"name":"mcptray"`) {
		t.Errorf("server/discover: %s", got)
	}
	// A stream that discovered 2026-07-28 speaks it (the SDK refuses an
	// initialize after it); an old client's probe is another stream.
	r = connectRaw(t, g, UpstreamOptions{})
	r.send(t, `{"jsonrpc":"2.0","id":"old","method":"server/discover","params":{}}`)
	if got := r.recv(t); !strings.Contains(got, `"id":"old","error":{"code":-32601`) {
		t.Errorf("server/discover without _meta: %s", got)
	}
	r.initialize(t)
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e__echo","arguments":{"message":"after discover"}}}`)
	if got := r.recv(t); !strings.Contains(got, "after discover") || strings.Contains(got, "resultType") {
		t.Errorf("an old call after server/discover: %s", got)
	}

	url := httpGateway(t, g, "tok").URL
	for _, path := range []string{"/mcp", "/mcp/e", "/servers/e/mcp"} {
		status, h, body := rawPOST(t, url+path, newDiscover, "Mcp-Protocol-Version", protocol2026, "Mcp-Method", methodDiscover)
		if status != http.StatusOK || !strings.Contains(body, versionsListed) || h.Get("Mcp-Session-Id") != "" {
			t.Errorf("server/discover on %s: %d (session %q) %s", path, status, h.Get("Mcp-Session-Id"), body)
		}
	}
	if status, h, body := rawPOST(t, url+"/mcp", initializeBody); status != http.StatusOK || h.Get("Mcp-Session-Id") == "" {
		t.Errorf("initialize after server/discover: %d (session %q) %s", status, h.Get("Mcp-Session-Id"), body)
	}
}

// A 2026-07-28 client and an old one use the gateway at once, on a stream
// and over HTTP, on every route: the new one gets no session, and its
// results are what the server (the fake, go-sdk's) answers a 2026-07-28
// client direct, but for mcptray's serverInfo in place of the server's;
// the old one's are the server's bytes of the older wire.
func TestNewWireBesideOldWire(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	direct := connectDirect(t, "rich", nil)
	direct26 := connectDirectWire(t, "rich", nil, protocol2026)
	base := httpGateway(t, g, "tok").URL
	args := map[string]any{"note": "n\u00e9"}
	_, wantRaw, err := direct.call(t, "rich", args)
	if err != nil {
		t.Fatal(err)
	}
	_, want26, err := direct26.call(t, "rich", args)
	if err != nil {
		t.Fatal(err)
	}
	fakeInfo := `"io.modelcontextprotocol/serverInfo":{"name":"fake-rich","version":"1.0.0"}`
	if !strings.Contains(string(want26), `"resultType":"complete"`) || !strings.Contains(string(want26), fakeInfo) {
		t.Fatalf("the fake's 2026-07-28 result changed: %s", want26)
	}
	completed := func(name string) string {
		return strings.Replace(string(want26), fakeInfo, `"io.modelcontextprotocol/serverInfo":{"name":"`+name+`","title":"mcptray","version":"`+downstream.Version()+`"}`, 1)
	}

	for _, tc := range []struct {
		name, tool, version string
		client              *testClient
		want                string
	}{
		{"stream new", "r__rich", protocol2026, connectStreamWire(t, g, UpstreamOptions{}, nil, protocol2026), completed("mcptray")},
		{"stream old", "r__rich", oldWire, connectStream(t, g, UpstreamOptions{}, nil), string(wantRaw)},
		{"stream new, one server", "rich", protocol2026, connectStreamWire(t, g, UpstreamOptions{Server: "r"}, nil, protocol2026), completed("mcptray/r")},
		{"http new /mcp", "r__rich", protocol2026, connectHTTPWire(t, base+"/mcp", "tok", nil, protocol2026), completed("mcptray")},
		{"http old /mcp", "r__rich", oldWire, connectHTTP(t, base+"/mcp", "tok", nil), string(wantRaw)},
		{"http new /mcp/r", "rich", protocol2026, connectHTTPWire(t, base+"/mcp/r", "tok", nil, protocol2026), completed("mcptray/r")},
		{"http new /servers/r/mcp", "rich", protocol2026, connectHTTPWire(t, base+"/servers/r/mcp", "tok", nil, protocol2026), completed("mcptray/r")},
	} {
		if got := tc.client.InitializeResult().ProtocolVersion; got != tc.version {
			t.Errorf("%s: speaks %s, want %s", tc.name, got, tc.version)
		}
		if strings.HasPrefix(tc.name, "http") && (tc.client.ID() == "") != (tc.version == protocol2026) {
			t.Errorf("%s: session id %q", tc.name, tc.client.ID())
		}
		for range 2 { // the first call of a stream may take the slow path
			_, raw, err := tc.client.call(t, tc.tool, args)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !sameJSON(t, raw, []byte(tc.want)) {
				t.Errorf("%s: result\n got %s\nwant %s", tc.name, raw, tc.want)
			}
		}
		if names := toolNames(t, tc.client.ClientSession); len(names) == 0 {
			t.Errorf("%s: no tools listed", tc.name)
		}
	}
}

// The fast path's splice (completeEdits) for each shape of result a
// server may send.
func TestCompleteEdits(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	v, err := g.view("", toolsLive)
	if err != nil {
		t.Fatal(err)
	}
	info := string(v.serverInfo)
	for _, tc := range []struct{ in, want string }{
		{`{}`, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		{`{"content":[]}`, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `},"content":[]}`},
		{`{"content":[],"_meta":{}}`, `{"resultType":"complete","content":[],"_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		{`{"_meta":{"a":1},"content":[]}`, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `,"a":1},"content":[]}`},
		{`{"_meta":null}`, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		{`{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"upstream"},"b":2}}`, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `,"b":2}}`},
		{`{"resultType":"input_required","x":1}`, `{"_meta":{"io.modelcontextprotocol/serverInfo":` + info + `},"resultType":"input_required","x":1}`},
		{` { "content" : [ ] } `, ` {"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}, "content" : [ ] } `},
	} {
		if got := string(v.completeRaw([]byte(tc.in))); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// What the assistant's per-request _meta becomes for the server.
func TestStripMeta(t *testing.T) {
	for _, tc := range []struct{ in, tok, want string }{
		{`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":7,"io.modelcontextprotocol/clientInfo":{"name":"x"},"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info","app/k":[1]}`, `"gw-1"`, `{"progressToken":"gw-1","app/k":[1]}`},
		{`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`, ``, `{}`},
		{`{"a":1,"io.modelcontextprotocol/related-task":{"taskId":"t"}}`, ``, `{"a":1,"io.modelcontextprotocol/related-task":{"taskId":"t"}}`},
	} {
		var tok []byte
		if tc.tok != "" {
			tok = []byte(tc.tok)
		}
		if got := string(stripMeta([]byte(tc.in), tok)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// Bad 2026-07-28 input gets the spec's errors: a version the gateway does
// not serve, a request without the capabilities the revision requires,
// a route that does not exist, a GET stream (there is none on this wire).
func TestNewWireRefusals(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "e", "echo")
	r := connectRaw(t, g, UpstreamOptions{})
	call := func(meta string) string {
		return `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"e__echo","arguments":{"message":"hi"},` + meta + `}}`
	}
	foreign := strings.ReplaceAll(newMeta, protocol2026, "2099-01-01")
	r.send(t, call(foreign))
	if got := r.recv(t); !strings.Contains(got, `"id":5,"error":{"code":-32022`) || !strings.Contains(got, `"supported":["2026-07-28"`) {
		t.Errorf("a foreign version on a stream: %s", got)
	}
	noCaps := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	r.send(t, call(noCaps))
	if got := r.recv(t); !strings.Contains(got, `"id":5,"error":{"code":-32602`) || !strings.Contains(got, "clientCapabilities") {
		t.Errorf("a call without clientCapabilities on a stream: %s", got)
	}
	r.send(t, call(newMeta))
	if got := r.recv(t); !strings.Contains(got, `"resultType":"complete"`) || !strings.Contains(got, "hi") {
		t.Errorf("a good call after the refusals: %s", got)
	}

	url := httpGateway(t, g, "tok").URL
	named := []string{"Mcp-Method", "tools/call", "Mcp-Name", "e__echo"}
	hdr := func(version string) []string { return append([]string{"Mcp-Protocol-Version", version}, named...) }
	status, _, body := rawPOST(t, url+"/mcp", call(foreign), hdr("2099-01-01")...)
	if status != http.StatusBadRequest || !strings.Contains(body, `"code":-32022`) {
		t.Errorf("a foreign version over HTTP: %d %s", status, body)
	}
	status, _, body = rawPOST(t, url+"/mcp", call(noCaps), hdr(protocol2026)...)
	if !strings.Contains(body, `"code":-32602`) {
		t.Errorf("a call without clientCapabilities over HTTP: %d %s", status, body)
	}
	status, _, body = rawPOST(t, url+"/mcp", call(newMeta), named...) // no version header: the revision requires it
	if status != http.StatusBadRequest || !strings.Contains(body, `"code":-32020`) {
		t.Errorf("a 2026-07-28 call without its header: %d %s", status, body)
	}
	status, _, body = rawPOST(t, url+"/mcp/nosuch", call(newMeta), hdr(protocol2026)...)
	if status != http.StatusNotFound || !strings.Contains(body, `unknown server "nosuch"`) {
		t.Errorf("a 2026-07-28 call to a route that does not exist: %d %s", status, body)
	}
	req, _ := http.NewRequest(http.MethodGet, url+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", protocol2026)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("a 2026-07-28 GET: %s", resp.Status)
	}
	// A good call: the fast path answers it, with one JSON body (the SDK
	// would open an event stream).
	status, h, body := rawPOST(t, url+"/mcp", call(newMeta), hdr(protocol2026)...)
	if status != http.StatusOK || !strings.Contains(body, `"resultType":"complete"`) || h.Get("Content-Type") != "application/json" {
		t.Errorf("a good call over HTTP: %d %s %s", status, h.Get("Content-Type"), body)
	}
	// A log level asks for the call's log messages: the SDK's stream.
	withLevel := strings.Replace(newMeta, `"_meta":{`, `"_meta":{"io.modelcontextprotocol/logLevel":"info",`, 1)
	status, h, body = rawPOST(t, url+"/mcp", call(withLevel), hdr(protocol2026)...)
	if status != http.StatusOK || !strings.Contains(body, `"resultType":"complete"`) || !strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") {
		t.Errorf("a call with a log level over HTTP: %d %s %s", status, h.Get("Content-Type"), body)
	}
}

// connectHTTPNamed is a 2026-07-28 client named name on url.
func connectHTTPNamed(t *testing.T, url, name string) *testClient {
	t.Helper()
	tc := &testClient{cap: &capture{}}
	client := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, clientOptions(nil))
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{"tok", http.DefaultTransport}}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, captureTransport{tr, tc.cap}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	tc.ClientSession = cs
	t.Cleanup(func() { cs.Close() })
	return tc
}

// On the sessionless wire over HTTP, the approval names the client its
// request's _meta names, and "allow for this session" holds for that
// client's later requests (each its own HTTP request), not another
// client's, nor a client that gave no name.
func TestNewWireApprovalByClient(t *testing.T) {
	ap := newApprover()
	g, _ := newTestGateway(t, GatewayOptions{Approve: ap.approve})
	addServer(t, g, "n", "echo", withEnv(mcptest.AnnotatedEnv+"=1"))
	g.SetPolicy("n", &ToolPolicy{Approve: ApproveDestructive})
	url := httpGateway(t, g, "tok").URL + "/mcp"
	alpha, beta := connectHTTPNamed(t, url, "alpha"), connectHTTPNamed(t, url, "beta")
	if alpha.ID() != "" || alpha.InitializeResult().ProtocolVersion != protocol2026 {
		t.Fatalf("alpha speaks %s (session %q)", alpha.InitializeResult().ProtocolVersion, alpha.ID())
	}
	asks := func(c *testClient, who string, answer Approval) {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			res, _, err := c.call(t, "n__delete_note", map[string]any{"id": 1})
			if err == nil && res.IsError {
				err = errors.New(textOf(t, res))
			}
			done <- err
		}()
		if req := <-ap.reqs; req.Client != who {
			t.Errorf("approval names %q, want %q", req.Client, who)
		}
		ap.answers <- answer
		if err := <-done; err != nil {
			t.Errorf("%s's call: %v", who, err)
		}
	}
	asks(alpha, "alpha", AllowSession)
	if res, _, err := alpha.call(t, "n__delete_note", map[string]any{"id": 2}); err != nil || res.IsError { // no question
		t.Errorf("alpha's second call: %v %+v", err, res)
	}
	asks(beta, "beta", AllowOnce)

	// A client that gives no clientInfo: "for this session" is this call.
	nameless := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"n__delete_note","arguments":{"id":3},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	hdr := []string{"Mcp-Protocol-Version", protocol2026, "Mcp-Method", "tools/call", "Mcp-Name", "n__delete_note"}
	for range 2 {
		done := make(chan string, 1)
		go func() { _, _, body := rawPOST(t, url, nameless, hdr...); done <- body }()
		if req := <-ap.reqs; req.Client != "" {
			t.Errorf("a nameless client's approval names %q", req.Client)
		}
		ap.answers <- AllowSession
		if body := <-done; !strings.Contains(body, `delete_note: {\"id\":3}`) {
			t.Errorf("the nameless call: %s", body)
		}
	}
	select {
	case req := <-ap.reqs:
		t.Errorf("unexpected approval request %+v", req)
	default:
	}
}

// A stateless client's allowances lapse once it has been idle clientIdle.
func TestClientAllowancesLapse(t *testing.T) {
	var c clientAllowances
	k := sessionKey{"n", "delete_note"}
	t0 := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	c.allow("alpha\x001", k, t0)
	c.allow("", k, t0)
	switch {
	case !c.allowed("alpha\x001", k, t0.Add(clientIdle)):
		t.Error("alpha's allowance gone within clientIdle")
	case c.allowed("beta\x001", k, t0):
		t.Error("beta has alpha's allowance")
	case c.allowed("", k, t0):
		t.Error("a nameless client has an allowance")
	case c.allowed("alpha\x001", sessionKey{"n", "write_note"}, t0):
		t.Error("alpha has an allowance for another tool")
	case c.allowed("alpha\x001", k, t0.Add(2*clientIdle+time.Second)):
		t.Error("alpha's allowance outlived an idle clientIdle")
	}
}

// subscriptions/listen on the new wire: a client that listens hears a
// server's tool list change (fanned in from the server's list_changed),
// on a stream and over HTTP; the tool-list modes are the route's
// (?tools=), as for a session.
func TestNewWireListChanged(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	var streamHeard, httpHeard atomic.Int32
	heard := func(n *atomic.Int32) *sdk.ClientOptions {
		return &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { n.Add(1) }}
	}
	url := httpGateway(t, g, "tok").URL + "/mcp"
	stream := connectStreamWire(t, g, UpstreamOptions{}, heard(&streamHeard), protocol2026)
	web := connectHTTPWire(t, url, "tok", heard(&httpHeard), protocol2026)
	dynamic := connectHTTPWire(t, url+"?tools=dynamic", "tok", nil, protocol2026)
	addServer(t, g, "e", "changing")
	testkit.WaitFor(t, "list_changed when e came up", func() bool { return streamHeard.Load() > 0 && httpHeard.Load() > 0 })
	s0, h0 := streamHeard.Load(), httpHeard.Load()
	if _, _, err := web.call(t, "e__add_tool", map[string]any{"name": "fresh"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "list_changed after add_tool", func() bool { return streamHeard.Load() > s0 && httpHeard.Load() > h0 })
	for _, c := range []*testClient{stream, web} {
		if names := toolNames(t, c.ClientSession); !slices.Contains(names, "e__fresh") {
			t.Errorf("tools after the change: %v", names)
		}
	}
	if names := toolNames(t, dynamic.ClientSession); slices.Contains(names, "e__fresh") || !slices.Contains(names, "mcptray__call_tool") {
		t.Errorf("dynamic tools: %v", names)
	}
}

// Mcp-Method and Mcp-Name must say what the body says (-32020, HTTP 400,
// before anything routes the request): on the new wire they are required,
// on an older one optional but checked when sent; base64 values
// (=?base64?…?=) are decoded first.
func TestMcpHeadersMatchTheBody(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "e", "echo")
	url := httpGateway(t, g, "tok").URL + "/mcp"
	call := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"e__echo","arguments":{"message":"hi"},` + newMeta + `}}`
	list := `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{` + newMeta + `}}`
	read := `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"fake://x",` + newMeta + `}}`
	v := []string{"Mcp-Protocol-Version", protocol2026}
	for _, tc := range []struct {
		name, body string
		header     []string
		want       string // in the error message; "" for no refusal
	}{
		{"method differs", call, append(v, "Mcp-Method", "tools/list", "Mcp-Name", "e__echo"), `Mcp-Method header value \"tools/list\" does not match body value \"tools/call\"`},
		{"name differs", call, append(v, "Mcp-Method", "tools/call", "Mcp-Name", "e__add"), `Mcp-Name header value \"e__add\" does not match body value \"e__echo\"`},
		{"uri differs", read, append(v, "Mcp-Method", "resources/read", "Mcp-Name", "fake://y"), `Mcp-Name header value \"fake://y\" does not match body value \"fake://x\"`},
		{"no method", call, append(v, "Mcp-Name", "e__echo"), "missing required Mcp-Method header"},
		{"no name", call, append(v, "Mcp-Method", "tools/call"), `missing required Mcp-Name header for method \"tools/call\"`},
		{"a name for a list", list, append(v, "Mcp-Method", "tools/list", "Mcp-Name", "e__echo"), `Mcp-Name header on \"tools/list\"`},
		{"bad base64", call, append(v, "Mcp-Method", "tools/call", "Mcp-Name", "=?base64?!!?="), "Mcp-Name header: invalid base64"},
		{"old wire, name differs", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, []string{"Mcp-Method", "tools/call"}, `Mcp-Method header value \"tools/call\"`},
		{"base64 name differs", call, append(v, "Mcp-Method", "tools/call", "Mcp-Name", "=?base64?ZV9fYWRk?="), `Mcp-Name header value \"e__add\" does not match`},
		{"all match", call, append(v, "Mcp-Method", "tools/call", "Mcp-Name", "e__echo"), ""},
	} {
		status, _, body := rawPOST(t, url, tc.body, tc.header...)
		switch {
		case tc.want == "" && (status != http.StatusOK || !strings.Contains(body, `"text":"hi"`)):
			t.Errorf("%s: %d %s", tc.name, status, body)
		case tc.want != "" && (status != http.StatusBadRequest || !strings.Contains(body, `{"jsonrpc":"2.0","id":9,"error":{"code":-32020,`) || !strings.Contains(body, tc.want)):
			t.Errorf("%s: %d %s\nwant 400, -32020 and %s", tc.name, status, body, tc.want)
		}
	}
}

// Every list carries ttlMs and cacheScope ("private", ttlMs 0: see
// cacheable), and lists the tools in one order — by name — whatever the
// client, the wire or the order the servers came up in.
func TestListsCacheableAndOrdered(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "z", "echo")
	addServer(t, g, "a", "changing")
	url := httpGateway(t, g, "tok").URL + "/mcp"
	var orders [][]string
	for _, c := range []*testClient{
		connectStreamWire(t, g, UpstreamOptions{}, nil, protocol2026),
		connectStream(t, g, UpstreamOptions{}, nil),
		connectHTTPWire(t, url, "tok", nil, protocol2026),
		connectHTTP(t, url, "tok", nil),
	} {
		orders = append(orders, toolNames(t, c.ClientSession))
		raw := c.cap.lastResult()
		if !strings.Contains(string(raw), `"ttlMs":0,"cacheScope":"private"`) {
			t.Errorf("tools/list result without ttlMs and cacheScope: %.300s", raw)
		}
	}
	want := []string{"a__add", "a__add_tool", "a__echo", "z__add", "z__echo"}
	for i, o := range orders {
		if !slices.Equal(o, want) {
			t.Errorf("client %d lists %v, want %v", i, o, want)
		}
	}
	r := connectRaw(t, g, UpstreamOptions{})
	for _, m := range []string{"resources/list", "resources/templates/list", "prompts/list"} {
		r.send(t, `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":{`+newMeta+`}}`)
		if got := r.recv(t); !strings.Contains(got, `"ttlMs":0,"cacheScope":"private"`) || !strings.Contains(got, `"resultType":"complete"`) {
			t.Errorf("%s: %s", m, got)
		}
	}
}

// Resource updates on the new wire: a client's Subscribe is a
// subscriptions/listen (go-sdk's client), which the gateway fans in from
// the server that has the resource, on a stream and over HTTP; when the
// listen ends, so does the server's subscription.
func TestNewWireResourceUpdates(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	var streamHeard, httpHeard atomic.Int32
	heard := func(n *atomic.Int32) *sdk.ClientOptions {
		return &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			if req.Params.URI == "fake://readme" {
				n.Add(1)
			}
		}}
	}
	stream := connectStreamWire(t, g, UpstreamOptions{}, heard(&streamHeard), protocol2026)
	web := connectHTTPWire(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", heard(&httpHeard), protocol2026)
	key := subKey{"r", "fake://readme"}
	subscribed := func() int {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.subs[key]
	}
	for _, c := range []*testClient{stream, web} {
		if err := c.Subscribe(context.Background(), &sdk.SubscribeParams{URI: "fake://readme"}); err != nil {
			t.Fatal(err)
		}
	}
	testkit.WaitFor(t, "both listens subscribed at the server", func() bool { return subscribed() == 2 })
	if _, _, err := stream.call(t, "r__touch", map[string]any{"uri": "fake://readme"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the update on both listens", func() bool { return streamHeard.Load() == 1 && httpHeard.Load() == 1 })
	for _, c := range []*testClient{stream, web} {
		if err := c.Unsubscribe(context.Background(), &sdk.UnsubscribeParams{URI: "fake://readme"}); err != nil {
			t.Fatal(err)
		}
	}
	testkit.WaitFor(t, "the server's subscription dropped", func() bool { return subscribed() == 0 })
}

// sameJSON reports whether a and b are the same JSON value (key order
// aside); the older wire's results are compared byte for byte elsewhere
// (TestGatewayPassesEverythingThrough).
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// What a server gets for a 2026-07-28 call: the assistant's _meta without
// the revision's keys, and mcptray's in their place, the capabilities the
// assistant's with elicitation (the inbox) added.
func TestToServerMeta(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","app/k":1,"io.modelcontextprotocol/clientInfo":{"name":"x"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}`,
			`{"app/k":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":` + string(mcptrayClient) + `,"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"sampling":{}}}`},
		{`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`,
			`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":` + string(mcptrayClient) + `,"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`},
		{`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`,
			`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":` + string(mcptrayClient) + `,"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}}`},
	} {
		m := scanMeta([]byte(tc.in))
		if got := string(toServerMeta([]byte(tc.in), &m, true, nil)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	if !strings.Contains(string(mcptrayClient), `"name":"mcptray"`) {
		t.Errorf("mcptray's clientInfo: %s", mcptrayClient)
	}
}

// Mcp-Param-* headers (SEP-2243) mirror the arguments a tool's listed
// schema binds with x-mcp-header: checked against the body, an empty
// string's header present and empty (go-sdk's client sends it so, and
// go-sdk's server would refuse it: the views register their tools
// without the annotations).
func TestParamHeaders(t *testing.T) {
	def := json.RawMessage(`{"name":"t","inputSchema":{"type":"object","properties":{` +
		`"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},` +
		`"empty":{"type":"string","x-mcp-header":"Empty"},"f":{"type":"number","x-mcp-header":"F"},` +
		`"deep":{"type":"object","properties":{"on":{"type":"boolean","x-mcp-header":"On"}}},"plain":{"type":"string"}}}}`)
	bs := paramBindings(def)
	if len(bs) != 5 {
		t.Fatalf("bindings %+v", bs)
	}
	args := `{"arguments":{"region":"Hello, 世界","n":42,"empty":"","f":3.5,"deep":{"on":true},"plain":"x"}}`
	good := http.Header{}
	good.Set("Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?=")
	good.Set("Mcp-Param-N", "42")
	good["Mcp-Param-Empty"] = []string{""}
	good.Set("Mcp-Param-On", "true")
	if why := checkParamHeaders(good, []byte(args), bs); why != "" {
		t.Errorf("good headers refused: %s", why)
	}
	for _, tc := range []struct {
		name     string
		edit     func(h http.Header)
		args     string
		wantPart string
	}{
		{"region differs", func(h http.Header) { h.Set("Mcp-Param-Region", "us-west1") }, args, `Mcp-Param-Region header value does not match the body's "region"`},
		{"n missing", func(h http.Header) { h.Del("Mcp-Param-N") }, args, `missing Mcp-Param-N header for parameter "n"`},
		{"empty missing", func(h http.Header) { h.Del("Mcp-Param-Empty") }, args, `missing Mcp-Param-Empty header`},
		{"a fraction mirrored", func(h http.Header) { h.Set("Mcp-Param-F", "3.5") }, args, `unexpected Mcp-Param-F header`},
		{"nested differs", func(h http.Header) { h.Set("Mcp-Param-On", "false") }, args, `body's "deep.on"`},
		{"absent argument", func(h http.Header) {}, `{"arguments":{"n":42,"empty":"","deep":{"on":true}}}`, `unexpected Mcp-Param-Region header`},
		{"two values", func(h http.Header) { h.Add("Mcp-Param-N", "43") }, args, `more than one Mcp-Param-N header`},
	} {
		h := good.Clone()
		tc.edit(h)
		if why := checkParamHeaders(h, []byte(tc.args), bs); !strings.Contains(why, tc.wantPart) {
			t.Errorf("%s: %q, want %q", tc.name, why, tc.wantPart)
		}
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"region": map[string]any{"type": "string", "x-mcp-header": "Region"},
		"deep":   map[string]any{"properties": map[string]any{"on": map[string]any{"x-mcp-header": "On"}}},
	}}
	stripped, changed := withoutHeaderBindings(schema)
	if b, _ := json.Marshal(stripped); !changed || strings.Contains(string(b), "x-mcp-header") {
		t.Errorf("stripped schema %s", b)
	}
	if b, _ := json.Marshal(schema); strings.Count(string(b), "x-mcp-header") != 2 {
		t.Errorf("the server's schema changed: %s", b)
	}
}
