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
