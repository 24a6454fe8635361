//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// inspector runs @modelcontextprotocol/inspector-cli (a real MCP client from
// npm) with args and returns its stdout. It runs from node_modules so that
// the 1.0.3 release finds its package.json.
func inspector(t *testing.T, peers string, env []string, args ...string) string {
	t.Helper()
	cli := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "index.js")
	cmd := exec.Command("node", append([]string{cli}, args...)...)
	cmd.Dir = filepath.Join(peers, "node_modules")
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("inspector-cli %v: %v\n%s", args, err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("inspector-cli %v hung\n%s", args, stderr.String())
	}
	return stdout.String()
}

// canonical re-encodes JSON so two outputs compare by content.
func canonical(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func toolNames(t *testing.T, listJSON string) []string {
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(listJSON), &res); err != nil {
		t.Fatalf("tools/list output: %v\n%s", err, listJSON)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// The acceptance run for the gateway: a real client from npm lists
// and calls tools of server-everything and two other servers through
// `mcptray connect` and through the HTTP endpoint, with results identical
// to a direct call.
func TestInspectorThroughConnectAndHTTP(t *testing.T) {
	peers := npmPeers(t)
	everything := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	in := startDaemon(t, map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{everything, "stdio"}},
		"echo":       fakeEntry(t, "echo"),
		"many":       fakeEntry(t, "echo", "MCPTRAY_FAKE_TOOL_COUNT", "150"),
	})
	in.WaitFor("all ready", states("everything", "ready", "echo", "ready", "many", "ready"))
	exe, _ := os.Executable()
	asMcptray := []string{"MCPTRAY_TEST_AS_MCPTRAY=1"}
	connect := []string{exe, "connect", "--data", in.Data, "--config", in.Config}

	direct := inspector(t, peers, nil, "node", everything, "stdio", "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi there")
	listed := inspector(t, peers, asMcptray, append(connect, "--method", "tools/list")...)
	names := toolNames(t, listed)
	for _, want := range []string{"everything__echo", "echo__echo", "echo__add", "many__tool_0149", "mcptray__servers"} {
		if !contains(names, want) {
			t.Errorf("tools/list through connect lacks %s (has %d tools)", want, len(names))
		}
	}
	viaConnect := inspector(t, peers, asMcptray, append(connect, "--method", "tools/call", "--tool-name", "everything__echo", "--tool-arg", "message=hi there")...)
	if canonical(t, viaConnect) != canonical(t, direct) {
		t.Errorf("through connect:\n%s\ndirect:\n%s", viaConnect, direct)
	}
	sum := inspector(t, peers, asMcptray, append(connect, "--method", "tools/call", "--tool-name", "echo__add", "--tool-arg", "a=2", "b=3")...)
	if !strings.Contains(sum, "5") {
		t.Errorf("echo__add(2,3) = %s", sum)
	}

	// The HTTP endpoint, with the bearer token.
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
	auth := "Authorization: Bearer " + strings.TrimSpace(token)
	viaHTTP := inspector(t, peers, nil, ep.URL, "--transport", "http", "--header", auth, "--method", "tools/call", "--tool-name", "everything__echo", "--tool-arg", "message=hi there")
	if canonical(t, viaHTTP) != canonical(t, direct) {
		t.Errorf("through HTTP:\n%s\ndirect:\n%s", viaHTTP, direct)
	}
	one := inspector(t, peers, nil, ep.URL+"/everything", "--transport", "http", "--header", auth, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi there")
	if canonical(t, one) != canonical(t, direct) {
		t.Errorf("through /mcp/everything:\n%s\ndirect:\n%s", one, direct)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// startConnect starts `mcptray connect` against in on pipes and runs the
// initialize request through it; the rest of its stdout is not read.
func startConnect(t *testing.T, in *instance) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "connect", "--data", in.Data, "--config", in.Config)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.Contains(line, `"serverInfo"`) {
		t.Fatalf("initialize through connect: %q, %v", line, err)
	}
	return cmd, stdin
}

// connect hands its stdio to the instance and exits 0 when the assistant
// closes its stdin; an unknown --server fails with a one-line reason.
func TestConnectLifecycle(t *testing.T) {
	in := startDaemon(t, map[string]any{"echo": fakeEntry(t, "echo")})
	in.WaitFor("ready", states("echo", "ready"))
	cmd, stdin := startConnect(t, in)
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("connect exited with %v after stdin closed", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("connect did not exit after its stdin closed")
	}

	exe, _ := os.Executable()
	bad := exec.Command(exe, "connect", "--server", "nobody", "--data", in.Data, "--config", in.Config)
	bad.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	out, err := bad.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), `"nobody"`) {
		t.Errorf("connect --server nobody: %v: %s", err, out)
	}
}

// TestConnectAnswersAfterStdinEnds: `mcptray connect < requests.jsonl`
// answers every request in the file, although its stdin ends right away.
func TestConnectAnswersAfterStdinEnds(t *testing.T) {
	in := startDaemon(t, map[string]any{"echo": fakeEntry(t, "echo")})
	in.WaitFor("ready", states("echo", "ready"))
	reqs := filepath.Join(t.TempDir(), "requests.jsonl")
	os.WriteFile(reqs, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo__echo","arguments":{"message":"from a file"}}}
`), 0o600)
	f, err := os.Open(reqs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "connect", "--data", in.Data, "--config", in.Config)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	cmd.Stdin = f
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("connect < requests.jsonl: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"serverInfo"`) || lines[1] != `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"from a file"}]}}` {
		t.Fatalf("connect < requests.jsonl wrote:\n%s", out)
	}
}

// TestConnectKilledWhileAnsweringCancels: an assistant that closes
// connect's stdin and then kills it (the MCP SDKs' shutdown: stdin, a
// grace period, SIGTERM) gets its call cancelled downstream when connect
// goes, even though the gateway was still waiting to answer it.
func TestConnectKilledWhileAnsweringCancels(t *testing.T) {
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	noted := func(s string) bool { b, _ := os.ReadFile(cancelFile); return strings.Contains(string(b), s) }
	in := startDaemon(t, map[string]any{"r": fakeEntry(t, "rich", mcptest.CancelFileEnv, cancelFile)})
	in.WaitFor("ready", states("r", "ready"))
	cmd, stdin := startConnect(t, in)
	stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"r__slow","arguments":{"steps":100,"ms":100}}}` + "\n"))
	waitFor(t, "the server to start the call", func() bool { return noted("started slow") })
	stdin.Close()
	time.Sleep(200 * time.Millisecond) // the gateway waits to answer the call
	if noted("cancelled slow") {
		t.Fatal("the call was cancelled when stdin closed, while stdout was still read")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	waitFor(t, "the server to see the cancellation", func() bool { return noted("cancelled slow") })
}

// connect starts an instance when none runs (headless here: no DISPLAY).
func TestConnectStartsAnInstance(t *testing.T) {
	dir := t.TempDir()
	cfg, data := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "data")
	writeConfig(t, cfg, map[string]any{"echo": fakeEntry(t, "echo")})
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "connect", "--data", data, "--config", cfg)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1", "DISPLAY=", "WAYLAND_DISPLAY=")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
		if b, err := os.ReadFile(filepath.Join(data, "mcptray.lock")); err == nil {
			var pid int
			fmt.Sscan(string(b), &pid)
			if pid > 0 {
				syscall.Kill(pid, syscall.SIGTERM)
				waitGone(t, pid, "the instance connect started")
			}
		}
	})
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo"`) {
		t.Fatalf("initialize through a freshly started instance: %q, %v", line, err)
	}
}
