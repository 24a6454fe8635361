//go:build linux

package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/inbox"
)

// everythingHTTP starts server-everything in its streamable HTTP mode on a
// free loopback port and returns its /mcp URL once it listens.
func everythingHTTP(t *testing.T, peers string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	script := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	cmd := exec.Command("node", script, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			if !once && strings.Contains(sc.Text(), "listening on port") {
				once = true
				close(listening)
			}
		}
	}()
	select {
	case <-listening:
	case <-done:
		t.Fatal("server-everything (streamableHttp) exited before it listened")
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything (streamableHttp) does not listen")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// httpTools lists every page of tools/list on an HTTP session, each entry
// as sent.
func httpTools(t *testing.T, c *httpClient) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	params := `{}`
	for {
		b, err := c.call("tools/list", params)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		out = append(out, res.Tools...)
		if res.NextCursor == "" {
			return out
		}
		cb, _ := json.Marshal(map[string]string{"cursor": res.NextCursor})
		params = string(cb)
	}
}

// initHTTP starts an HTTP session with the capabilities mcptray declares
// to its servers (so a server met directly offers the same tools).
func initHTTP(t *testing.T, url, token string) *httpClient {
	t.Helper()
	c := newHTTPClient(url, token)
	t.Cleanup(c.close)
	if _, err := c.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"passthrough-http-test","version":"1"}}`); err != nil {
		t.Fatal(err)
	}
	if err := c.notify("notifications/initialized"); err != nil {
		t.Fatal(err)
	}
	return c
}

// A remote (HTTP) server's tool definitions pass through mcptray as the
// server sent them: server-everything in its streamable HTTP mode, listed
// directly over HTTP and through `mcptray connect` and the HTTP endpoint.
func TestHTTPServerToolDefinitionsPassThrough(t *testing.T) {
	peers := npmPeers(t)
	url := everythingHTTP(t, peers)
	direct := byName(t, httpTools(t, initHTTP(t, url, "")), "")
	if ex := direct["simulate-research-query"]; ex == nil || ex["execution"] == nil {
		t.Fatalf("server-everything's simulate-research-query has no execution field: %v", ex)
	}
	in := startDaemon(t, map[string]any{"remote": map[string]any{"type": "http", "url": url}})
	in.WaitFor("remote ready", states("remote", "ready"))
	exe, _ := os.Executable()
	asMcptray := []string{"MCPTRAY_TEST_AS_MCPTRAY=1"}
	connect := func(extra ...string) *rpcPeer {
		return startPeer(t, asMcptray, exe, append([]string{"connect", "--data", in.Data, "--config", in.Config}, extra...)...)
	}
	sameTools(t, "connect", direct, byName(t, connect().tools(), "remote__"))
	sameTools(t, "connect --server remote", direct, byName(t, connect("--server", "remote").tools(), ""))

	epURL, token := in.endpointAndToken(t)
	sameTools(t, "HTTP /mcp", direct, byName(t, httpTools(t, initHTTP(t, epURL, token)), "remote__"))
	sameTools(t, "HTTP /mcp/remote", direct, byName(t, httpTools(t, initHTTP(t, epURL+"/remote", token)), ""))
}

// Tasks of a remote (HTTP) server go through mcptray as they do for a
// stdio server: a task-augmented tools/call to server-everything in its
// streamable HTTP mode returns the server's task, and tasks/get,
// tasks/result (with the server's question on the way), tasks/list and
// tasks/cancel reach it — through `mcptray connect`, and over the HTTP
// endpoint with a progress token and for a tool that waits for approval.
func TestHTTPServerTasksRelayed(t *testing.T) {
	peers := npmPeers(t)
	url := everythingHTTP(t, peers)
	in := startDaemon(t, map[string]any{
		"remote":  map[string]any{"type": "http", "url": url},
		"guarded": map[string]any{"type": "http", "url": url, "x-mcptray": map[string]any{"approve": "all"}},
	})
	in.WaitFor("ready", states("remote", "ready", "guarded", "ready"))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("daemon log:\n%s", in.Stderr)
		}
	})
	exe, _ := os.Executable()
	p := startPeer(t, []string{"MCPTRAY_TEST_AS_MCPTRAY=1"}, exe, "connect", "--data", in.Data, "--config", in.Config)

	type task struct {
		TaskID string `json:"taskId"`
		Status string `json:"status"`
	}
	start := func(args string) string {
		t.Helper()
		var res struct {
			Task task `json:"task"`
		}
		b := p.result("tools/call", `{"name":"remote__simulate-research-query","arguments":`+args+`,"task":{"ttl":60000}}`)
		if err := json.Unmarshal(b, &res); err != nil || res.Task.TaskID == "" {
			t.Fatalf("task-augmented tools/call to an HTTP server: %s", b)
		}
		return res.Task.TaskID
	}
	idOf := func(id string) string {
		b, _ := json.Marshal(map[string]string{"taskId": id})
		return string(b)
	}
	id := start(`{"topic":"remote"}`)
	var got task
	if b := p.result("tasks/get", idOf(id)); json.Unmarshal(b, &got) != nil || got.TaskID != id {
		t.Errorf("tasks/get: %s", b)
	}
	if b := p.call("tasks/result", idOf(id)); !strings.Contains(string(b), "Research Report") {
		t.Errorf("tasks/result: %s", b)
	}
	if b := p.result("tasks/list", `{}`); !strings.Contains(string(b), id) {
		t.Errorf("tasks/list lacks %s: %s", id, b)
	}
	if p.seen["notifications/tasks/status"] == 0 {
		t.Errorf("no notifications/tasks/status came through (saw %v)", p.seen)
	}
	second := start(`{"topic":"remote"}`)
	if b := p.result("tasks/cancel", idOf(second)); json.Unmarshal(b, &got) != nil || got.TaskID != second || got.Status != "cancelled" {
		t.Errorf("tasks/cancel: %s", b)
	}
	p.elicit = `{"interpretation":"historical"}`
	amb := start(`{"topic":"remote","ambiguous":true}`)
	if b := p.result("tasks/result", idOf(amb)); !strings.Contains(string(b), "Clarification**: historical") {
		t.Errorf("tasks/result of a task that asked for input: %s", b)
	}

	epURL, token := in.endpointAndToken(t)
	c := newHTTPClient(epURL, token)
	t.Cleanup(c.close)
	if _, err := c.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tasks-http","version":"1"}}`); err != nil {
		t.Fatal(err)
	}
	if err := c.notify("notifications/initialized"); err != nil {
		t.Fatal(err)
	}
	httpTask := func(how, b string, err error) string {
		t.Helper()
		var created struct {
			Task task `json:"task"`
		}
		if err != nil || json.Unmarshal([]byte(b), &created) != nil || created.Task.TaskID == "" {
			t.Fatalf("%s: %s, %v", how, b, err)
		}
		if b, err := c.call("tasks/result", idOf(created.Task.TaskID)); err != nil || !strings.Contains(string(b), "Research Report") {
			t.Errorf("%s: tasks/result: %s, %v", how, b, err)
		}
		return created.Task.TaskID
	}
	b, err := c.call("tools/call", `{"name":"remote__simulate-research-query","arguments":{"topic":"http"},"task":{"ttl":60000},"_meta":{"progressToken":"p-1"}}`)
	httpTask("HTTP endpoint, with a progress token", string(b), err)

	w := watchInbox(t, in.Data)
	type reply struct {
		b   json.RawMessage
		err error
	}
	replied := make(chan reply, 1)
	go func() {
		b, err := c.call("tools/call", `{"name":"guarded__simulate-research-query","arguments":{"topic":"approved"},"task":{"ttl":60000}}`)
		replied <- reply{b, err}
	}()
	req := w.next(inbox.KindApproval)
	if req.Tool != "simulate-research-query" {
		t.Errorf("approval request for %q", req.Tool)
	}
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--yes"); code != 0 {
		t.Fatal(errs)
	}
	r := <-replied
	httpTask("HTTP endpoint, after approval", string(r.b), r.err)
}
