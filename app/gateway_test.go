package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
)

// rpc is a minimal newline-delimited JSON-RPC client for tests of the
// gateway's wiring (the protocol itself is tested in package mcp).
type rpc struct {
	t  testing.TB
	rw io.ReadWriteCloser
	r  *bufio.Reader
	id int
}

func (c *rpc) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.id++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if _, err := c.rw.Write(append(msg, '\n')); err != nil {
		c.t.Fatal(err)
	}
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("%s: reading reply: %v", method, err)
		}
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		json.Unmarshal(line, &resp)
		if resp.ID == nil || *resp.ID != c.id {
			continue // a notification
		}
		if resp.Error != nil {
			c.t.Fatalf("%s: error %s", method, resp.Error)
		}
		return resp.Result
	}
}

func (c *rpc) notify(method string) {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	c.rw.Write(append(msg, '\n'))
}

func openRPC(t *testing.T, h *harness, server, tools string) *rpc {
	t.Helper()
	return dialRPC(t, h.data, server, tools)
}

// dialRPC opens an initialized MCP session with the instance on data.
func dialRPC(tb testing.TB, data, server, tools string) *rpc {
	tb.Helper()
	cl, err := control.Dial(data)
	if err != nil {
		tb.Fatal(err)
	}
	rw, err := cl.OpenMCP(context.Background(), server, tools)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { rw.Close() })
	c := &rpc{t: tb, rw: rw, r: bufio.NewReader(rw)}
	c.call("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "test", "version": "1"},
	})
	c.notify("notifications/initialized")
	return c
}

func listedNames(t *testing.T, res json.RawMessage) []string {
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestGatewayOverControlSocket(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo"), "off", `{"command": "x", "disabled": true}`))
	h.wait("ready", stateIs("a", control.StateReady))
	c := openRPC(t, h, "", "")
	names := strings.Join(listedNames(t, c.call("tools/list", map[string]any{})), " ")
	for _, want := range []string{"a__echo", "a__add", "mcptray__servers"} {
		if !strings.Contains(names, want) {
			t.Errorf("tools/list = %s; lacks %s", names, want)
		}
	}
	res := c.call("tools/call", map[string]any{"name": "a__echo", "arguments": map[string]any{"message": "hello"}})
	if !strings.Contains(string(res), "hello") {
		t.Errorf("a__echo = %s", res)
	}
	res = c.call("tools/call", map[string]any{"name": "mcptray__servers", "arguments": map[string]any{}})
	if !strings.Contains(string(res), `"disabled"`) || !strings.Contains(string(res), `"ready"`) {
		t.Errorf("mcptray__servers = %s", res)
	}

	// One server, unprefixed.
	one := openRPC(t, h, "a", "live")
	if got := strings.Join(listedNames(t, one.call("tools/list", map[string]any{})), " "); got != "add echo" && got != "echo add" {
		t.Errorf("--server a lists %q", got)
	}

	cl, _ := control.Dial(h.data)
	if _, err := cl.OpenMCP(context.Background(), "nobody", ""); err == nil || !strings.Contains(err.Error(), `"nobody"`) {
		t.Errorf("OpenMCP(nobody) = %v", err)
	}
	if _, err := cl.OpenMCP(context.Background(), "", "sometimes"); err == nil || !strings.Contains(err.Error(), "live, stable or dynamic") {
		t.Errorf("OpenMCP(tools=sometimes) = %v", err)
	}
}

// stable mode lists a server's cached tools while it is off, and a call to
// it says how to turn it on.
func TestStableModeRemembersToolsOfStoppedServers(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo")))
	h.wait("ready", stateIs("a", control.StateReady))
	h.core.SetEnabled("a", false)
	h.wait("disabled", stateIs("a", control.StateDisabled))
	c := openRPC(t, h, "", "stable")
	names := strings.Join(listedNames(t, c.call("tools/list", map[string]any{})), " ")
	if !strings.Contains(names, "a__echo") {
		t.Fatalf("stable tools/list = %s; lacks the disabled server's a__echo", names)
	}
	res := c.call("tools/call", map[string]any{"name": "a__echo", "arguments": map[string]any{"message": "x"}})
	if !strings.Contains(string(res), `"isError":true`) || !strings.Contains(string(res), "mcptray toggle a on") {
		t.Errorf("call to a disabled server = %s", res)
	}
}

func TestHTTPEndpoint(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo")))
	h.wait("ready", stateIs("a", control.StateReady))
	st := h.wait("endpoint", func(st control.Status) bool { return st.Endpoint != "" })
	ep, err := ReadEndpoint(h.data)
	if err != nil || ep.URL != st.Endpoint || !strings.HasPrefix(ep.URL, "http://127.0.0.1:") {
		t.Fatalf("endpoint.json = %+v, %v; status says %q", ep, err, st.Endpoint)
	}
	post := func(url, token, host, origin string) int {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		what, token, host, origin string
		want                      int
	}{
		{"no token", "", "", "", 401},
		{"wrong token", "nope", "", "", 401},
		{"foreign Host", testToken, "evil.example:80", "", 403},
		{"foreign Origin", testToken, "", "http://evil.example", 403},
		{"good", testToken, "", "", 200},
	} {
		if got := post(ep.URL, c.token, c.host, c.origin); got != c.want {
			t.Errorf("%s: HTTP %d, want %d", c.what, got, c.want)
		}
	}
	if got := post(ep.URL+"/a", testToken, "", ""); got != 200 {
		t.Errorf("/mcp/a: HTTP %d", got)
	}

	// A new listen address in mcp.json moves the endpoint.
	port := freePort(t)
	h.write(fmt.Sprintf(`{"mcpServers": {"a": %s}, "x-mcptray": {"listen": "127.0.0.1:%d"}}`, fake(t, "echo"), port))
	h.wait("moved", func(st control.Status) bool { return st.Endpoint == fmt.Sprintf("http://127.0.0.1:%d/mcp", port) })
}

// A fixed port that another program holds: the endpoint listens on a free
// port instead, and the status says so (and why) — never silently. When
// the port is free again, a restart of the endpoint takes it, and the
// warning goes.
func TestHTTPEndpointPortTaken(t *testing.T) {
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := other.Addr().(*net.TCPAddr).Port
	cfg := func(p int) string {
		return fmt.Sprintf(`{"mcpServers": {"a": %s}, "x-mcptray": {"listen": "127.0.0.1:%d"}}`, fake(t, "echo"), p)
	}
	h := startCore(t, cfg(port))
	st := h.wait("endpoint", func(st control.Status) bool { return st.Endpoint != "" || st.EndpointError != "" })
	want := fmt.Sprintf("port %d is taken by another program, so mcptray listens on port ", port)
	if st.Endpoint == "" || strings.Contains(st.Endpoint, fmt.Sprintf(":%d/", port)) || !strings.Contains(st.EndpointWarning, want) {
		t.Fatalf("endpoint %q, error %q, warning %q; want another port and a warning starting %q", st.Endpoint, st.EndpointError, st.EndpointWarning, want)
	}
	if !strings.Contains(st.EndpointWarning, "x-mcptray.listen") {
		t.Errorf("the warning does not say what to do: %q", st.EndpointWarning)
	}
	if ep, err := ReadEndpoint(h.data); err != nil || ep.URL != st.Endpoint {
		t.Errorf("endpoint.json = %+v, %v; status says %q", ep, err, st.Endpoint)
	}
	resp, err := http.Post(st.Endpoint, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("the fallback endpoint: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the fallback endpoint without a token: HTTP %d, want 401", resp.StatusCode)
	}
	t.Logf("status: endpoint %s, endpointWarning %q", st.Endpoint, st.EndpointWarning)

	// The port is free again and the listen address changes: the new one
	// is taken as configured, without a warning.
	other.Close()
	port2 := freePort(t)
	h.write(cfg(port2))
	h.wait("moved, no warning", func(st control.Status) bool {
		return st.Endpoint == fmt.Sprintf("http://127.0.0.1:%d/mcp", port2) && st.EndpointWarning == ""
	})
}

// x-mcptray.callTimeout reaches the gateway: a call that outlives it ends
// with an error naming the deadline, and the session goes on.
func TestCallTimeoutFromConfig(t *testing.T) {
	h := startCore(t, `{"mcpServers": {"r": `+fake(t, "rich")+`}, "x-mcptray": {"callTimeout": "300ms"}}`)
	h.wait("ready", stateIs("r", control.StateReady))
	c := openRPC(t, h, "", "")
	c.id++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": "tools/call",
		"params": map[string]any{"name": "r__slow", "arguments": map[string]any{"steps": 100, "ms": 100}}})
	c.rw.Write(append(msg, '\n'))
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(line), fmt.Sprintf(`"id":%d`, c.id)) {
			if !strings.Contains(string(line), "within 300ms") {
				t.Errorf("timed-out call answered %s", line)
			}
			break
		}
	}
	if res := c.call("tools/call", map[string]any{"name": "r__echo", "arguments": map[string]any{"message": "still here"}}); !strings.Contains(string(res), "still here") {
		t.Errorf("after a timeout: %s", res)
	}
}
