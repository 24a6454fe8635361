//go:build linux

package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/internal/testdaemon"
)

// lineClient is an assistant speaking newline-delimited JSON-RPC to
// `mcptray connect`, reading raw lines.
type lineClient struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

// startLineClient runs `mcptray connect` (with args, e.g. --tools dynamic)
// against in and initializes its session.
func startLineClient(t *testing.T, in *instance, args ...string) *lineClient {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, append([]string{"connect", "--data", in.Data, "--config", in.Config}, args...)...)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	c := &lineClient{t: t, in: stdin, out: bufio.NewReader(stdout)}
	if line := c.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`); !strings.Contains(line, `"serverInfo"`) {
		t.Fatalf("initialize through connect: %s", line)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *lineClient) send(line string) {
	c.t.Helper()
	if _, err := c.in.Write([]byte(line + "\n")); err != nil {
		c.t.Fatal(err)
	}
}

// call sends a request and returns the raw line answering it.
func (c *lineClient) call(method, params string) string {
	c.t.Helper()
	c.id++
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.id, method, params))
	want := fmt.Sprintf(`"id":%d,`, c.id)
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			c.t.Fatalf("%s: reading the answer: %v", method, err)
		}
		if strings.Contains(line, want) {
			return line
		}
	}
}

// TestHostileServerThroughConnect: what a hostile server sends reaches
// the assistant (through `mcptray connect`, and over HTTP in the desktop
// session) in a form it can trust:
//   - "a__b__pid" is not server a's tool b__pid while a server a__b is
//     configured (here turned off): a call to it is refused, saying why;
//   - a tools/list entry with "name" twice is left out, and the server's
//     log says so;
//   - a result with invalid UTF-8 arrives as valid JSON with U+FFFD;
//   - a reply under a wrong id is logged in the server's log, and the
//     call times out (x-mcptray.callTimeout) as before.
//
// The other tools keep working.
func TestHostileServerThroughConnect(t *testing.T) {
	exe, _ := os.Executable()
	in := &instance{testdaemon.StartConfig(t, map[string]any{
		"mcpServers": map[string]any{
			"a":    fakeEntry(t, "echo", "MCPTRAY_FAKE_TOOLS", "b__pid"),
			"a__b": map[string]any{"command": exe, "disabled": true},
			"h":    fakeEntry(t, "hostile"),
		},
		"x-mcptray": map[string]any{"callTimeout": "5s"},
	})}
	in.WaitFor("a and h ready", states("a", "ready", "h", "ready", "a__b", "disabled"))
	c := startLineClient(t, in)

	var list struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(c.call("tools/list", `{}`)), &list)
	var names []string
	for _, tool := range list.Result.Tools {
		names = append(names, tool.Name)
	}
	for _, bad := range []string{"a__b__pid", "h__run", "h__shown", "h__twice"} {
		if slices.Contains(names, bad) {
			t.Errorf("tools/list has %s: %v", bad, names)
		}
	}
	for _, good := range []string{"a__echo", "h__echo", "h__badutf8"} {
		if !slices.Contains(names, good) {
			t.Errorf("tools/list lacks %s: %v", good, names)
		}
	}

	line := c.call("tools/call", `{"name":"a__b__pid","arguments":{}}`)
	if !strings.Contains(line, `"isError":true`) || !strings.Contains(line, "ambiguous") || !strings.Contains(line, `server \"a__b\"'s tool \"pid\"`) {
		t.Errorf("a__b__pid: %s", line)
	}
	if line := c.call("tools/call", `{"name":"a__echo","arguments":{"message":"still here"}}`); !strings.Contains(line, `"text":"still here"`) {
		t.Errorf("a__echo: %s", line)
	}

	const replaced = "bad \uFFFD\uFFFD bytes \uFFFD( end"
	line = c.call("tools/call", `{"name":"h__badutf8","arguments":{}}`)
	if !utf8.ValidString(line) || !json.Valid([]byte(line)) || !strings.Contains(line, replaced) {
		t.Errorf("h__badutf8 through connect: %q", line)
	}

	line = c.call("tools/call", `{"name":"h__wrongid","arguments":{}}`)
	if !strings.Contains(line, `"code":-32001`) {
		t.Errorf("h__wrongid: %s; want the call timeout", line)
	}
	logFile := filepath.Join(in.Data, "logs", "h.log")
	for _, want := range []string{
		`[stdout] tool "shown" / "run" skipped: its tools/list entry has the key "name" twice`,
		`[stdout] reply with id 999 dropped: it answers no request in flight to this server (stray reply 1)`,
	} {
		waitFor(t, "h.log to say "+want, func() bool {
			b, _ := os.ReadFile(logFile)
			return strings.Contains(string(b), want)
		})
	}
	if line := c.call("tools/call", `{"name":"h__echo","arguments":{"message":"after"}}`); !strings.Contains(line, `"text":"after"`) {
		t.Errorf("h__echo after the stray reply: %s", line)
	}

	// HTTP (the token is in the keyring: the desktop session has one).
	ep, err := app.ReadEndpoint(in.Data)
	if err != nil && os.Getenv("MCPTRAY_TEST_SESSION") != "1" {
		t.Skipf("no HTTP endpoint outside the desktop session (no keyring for the token): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	code, token, errs := cli(t, "token")
	if code != 0 {
		t.Fatalf("token: %s", errs)
	}
	session := ""
	post := func(body string) (string, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", ep.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(token))
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if session == "" {
			session = resp.Header.Get("Mcp-Session-Id")
		}
		return resp.Header.Get("Content-Type"), string(b)
	}
	post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	ct, body := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"h__badutf8","arguments":{}}}`)
	if ct != "application/json" || !utf8.ValidString(body) || !json.Valid([]byte(body)) || !strings.Contains(body, replaced) {
		t.Errorf("h__badutf8 over HTTP: %s %q", ct, body)
	}
}
