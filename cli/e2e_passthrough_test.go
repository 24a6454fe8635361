package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app"
)

// aisdk runs testdata/aisdk-client.mjs: the Vercel AI SDK's MCP client
// (@ai-sdk/mcp, default options) connects, lists the tools and calls one.
// It returns the script's one JSON line, decoded.
func aisdk(t *testing.T, peers string, env []string, args ...string) map[string]any {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join("testdata", "aisdk-client.mjs"))
	cmd := exec.Command("node", append([]string{script, peers}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("aisdk-client %v: %v\n%s", args, err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("aisdk-client %v hung\n%s", args, stderr.String())
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("aisdk-client %v printed %q: %v\n%s", args, stdout.String(), err, stderr.String())
	}
	return out
}

// The Vercel AI SDK first sends server/discover (2026-07-28); mcptray must
// answer it as a pre-2026 server does (-32601), so the SDK falls back to
// initialize — through `mcptray connect` and through the HTTP endpoint
// (/mcp and /mcp/NAME) alike.
func TestAISDKClientThroughConnectAndHTTP(t *testing.T) {
	peers := npmPeers(t)
	everything := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	in := startDaemon(t, map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{everything, "stdio"}},
	})
	in.WaitFor("everything ready", states("everything", "ready"))
	exe, _ := os.Executable()
	asMcptray := []string{"MCPTRAY_TEST_AS_MCPTRAY=1"}
	echo := `{"message":"hi there"}`

	check := func(how string, out map[string]any, tool string) {
		t.Helper()
		if e, ok := out["error"]; ok {
			t.Errorf("AI SDK through %s: %v (code %v)", how, e, out["code"])
			return
		}
		b, _ := json.Marshal(out["result"])
		if !strings.Contains(string(b), "hi there") {
			t.Errorf("AI SDK through %s: %s(%s) = %s", how, tool, echo, b)
		}
		if tools, _ := out["tools"].([]any); len(tools) < 5 {
			t.Errorf("AI SDK through %s lists %d tools", how, len(tools))
		}
	}
	direct := aisdk(t, peers, nil, "stdio", "echo", echo, "node", everything, "stdio")
	check("nothing (direct)", direct, "echo")
	check("connect", aisdk(t, peers, asMcptray, "stdio", "everything__echo", echo, exe, "connect", "--data", in.Data, "--config", in.Config), "everything__echo")
	check("connect --server", aisdk(t, peers, asMcptray, "stdio", "echo", echo, exe, "connect", "--server", "everything", "--data", in.Data, "--config", in.Config), "echo")

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
	auth := "Bearer " + strings.TrimSpace(token)
	check("HTTP /mcp", aisdk(t, peers, nil, "http", "everything__echo", echo, ep.URL, auth), "everything__echo")
	check("HTTP /mcp/everything", aisdk(t, peers, nil, "http", "echo", echo, ep.URL+"/everything", auth), "echo")
}
