//go:build linux

package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testdaemon"
)

// The assistants' own command lines, installed from npm by
// scripts/npm-peers.sh, connect to mcptray as `mcptray setup` configured
// them: no mock of either side.

// assistantCLI is the path of an assistant's command (claude, gemini,
// codex) in the npm peers, skipped or failed like npmPeers when missing.
func assistantCLI(t *testing.T, peers, name string) string {
	t.Helper()
	p := filepath.Join(peers, "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("MCPTRAY_TEST_SESSION") == "1" {
			t.Fatalf("%s missing in the npm peers %s (make test installs them with scripts/npm-peers.sh)", name, peers)
		}
		t.Skipf("%s not installed in the npm peers; run scripts/npm-peers.sh (make test does)", name)
	}
	return p
}

// assistantEnv is this process's environment in a private home: mcptray's
// and the assistants' files all under home (the XDG folders at their
// defaults, so that the `mcptray connect` an assistant starts, with
// whatever part of the environment it passes on, finds the daemon), and
// the assistants' update checks, telemetry and relaunches off.
func assistantEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(pathEnv, k) && k != "XDG_DATA_HOME" && k != "XDG_CACHE_HOME" {
			env = append(env, kv)
		}
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"MCPTRAY_LOGIN_SHELL=off",
		// Claude Code
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"MCP_TIMEOUT=60000", // its servers' start, in ms, on a loaded machine
		// Gemini CLI: no relaunch of itself with more memory, no sandbox.
		"GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_SANDBOX=false",
	)
}

// runIn runs name with args in dir under env, killed after two minutes,
// and returns its exit code and combined output.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitCode(err), out.String()
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s %v did not finish within two minutes:\n%s", filepath.Base(name), args, out.String())
		return 0, ""
	}
}

// The real assistants (Claude Code, Gemini CLI, Codex, from npm): after
// the real `mcptray setup CLIENT` in a private home, each one's own
// command connects to mcptray (a built mcptray, its daemon running
// server-everything and the fake echo server) — `claude mcp list` and
// `gemini mcp list` print the mcptray entry connected; `codex mcp list`
// does not connect, so Codex's app-server lists the MCP servers' status
// and tools, which does.
func TestRealAssistantsConnectThroughMcptray(t *testing.T) {
	peers := npmPeers(t)
	claude := assistantCLI(t, peers, "claude")
	gemini := assistantCLI(t, peers, "gemini")
	codex := assistantCLI(t, peers, "codex")
	everything := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")

	bin := buildMcptray(t, "mcptray-headless", []string{"CGO_ENABLED=0"}, "-tags", "headless")
	home := t.TempDir()
	work := filepath.Join(home, "project")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	env := assistantEnv(home)
	in := &testdaemon.Instance{T: t, Bin: bin, Env: env,
		Config: filepath.Join(home, ".config", "mcptray", "mcp.json"),
		Data:   filepath.Join(home, ".local", "state", "mcptray")}
	in.StartConfig(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{everything, "stdio"}},
		"echo":       fakeEntry(t, "echo"),
	}})
	// A built mcptray asks before it runs a new entry (but on its first
	// start with a keyring, which approves the config it finds): approve
	// them as a person does.
	servers := []string{"everything", "echo"}
	st := in.WaitFor("everything and echo waiting for approval or ready", func(st statusJSON) bool {
		for _, name := range servers {
			if s, _ := state(st, name); s != "needs-approval" && s != "ready" {
				return false
			}
		}
		return true
	})
	for _, name := range servers {
		if s, _ := state(st, name); s != "needs-approval" {
			continue
		}
		if code, out := runIn(t, work, env, bin, "approve", name); code != 0 {
			t.Fatalf("mcptray approve %s: exit %d\n%s", name, code, out)
		}
	}
	in.WaitFor("everything and echo ready", states("everything", "ready", "echo", "ready"))

	setup := func(t *testing.T, client string) {
		t.Helper()
		if code, out := runIn(t, work, env, bin, "setup", client); code != 0 {
			t.Fatalf("mcptray setup %s: exit %d\n%s", client, code, out)
		}
	}
	// connected finds the mcptray line of an `mcp list` and checks that it
	// says Connected.
	connected := func(t *testing.T, what, out string) {
		t.Helper()
		line := regexp.MustCompile(`(?m)^.*mcptray: \S+ connect.*$`).FindString(out)
		if line == "" || !strings.Contains(line, bin) || !strings.Contains(line, "Connected") || strings.Contains(line, "Disconnected") {
			t.Errorf("%s does not show mcptray (%s) connected:\n%s", what, bin, out)
		}
	}

	t.Run("claude-code", func(t *testing.T) {
		setup(t, "claude-code")
		code, out := runIn(t, work, env, claude, "mcp", "list")
		if code != 0 {
			t.Fatalf("claude mcp list: exit %d\n%s", code, out)
		}
		connected(t, "claude mcp list", out)
	})

	t.Run("gemini", func(t *testing.T) {
		// Gemini CLI runs no MCP server in a folder it does not trust:
		// trust the project folder the documented way. Usage statistics
		// off in its settings, which setup then edits.
		trusted, _ := json.Marshal(map[string]string{work: "TRUST_FOLDER"})
		writeFile(t, filepath.Join(home, ".gemini", "trustedFolders.json"), string(trusted))
		writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"privacy": {"usageStatisticsEnabled": false}}`)
		setup(t, "gemini")
		code, out := runIn(t, work, env, gemini, "mcp", "list")
		if code != 0 {
			t.Fatalf("gemini mcp list: exit %d\n%s", code, out)
		}
		connected(t, "gemini mcp list", out)
	})

	t.Run("codex", func(t *testing.T) {
		setup(t, "codex")
		code, out := runIn(t, work, env, codex, "mcp", "list")
		if code != 0 || !regexp.MustCompile(`(?m)^mcptray\s+`+regexp.QuoteMeta(bin)+`\s+connect\s.*\benabled\b`).MatchString(out) {
			t.Fatalf("codex mcp list: exit %d, mcptray not listed enabled:\n%s", code, out)
		}
		tools := codexMCPTools(t, work, env, codex)
		for _, want := range []string{"everything__echo", "everything__get-sum", "echo__echo"} {
			if !slices.Contains(tools, want) {
				t.Errorf("codex lists no %s through mcptray; it lists %v", want, tools)
			}
		}
	})
}

// codexMCPTools asks Codex's app-server (JSON-RPC on stdio) for the status
// of its MCP servers, which starts and initializes them and lists their
// tools, and returns the tool names of the mcptray entry.
func codexMCPTools(t *testing.T, dir string, env []string, codex string) []string {
	t.Helper()
	// Codex gives a server 10 s to start by default: a minute on a loaded
	// machine, for this run only (the config stays as setup wrote it).
	cmd := exec.Command(codex, "app-server", "-c", "mcp_servers.mcptray.startup_timeout_sec=60")
	cmd.Dir, cmd.Env = dir, env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan []byte, 64)
	go func() {
		defer close(lines)
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	fmt.Fprintln(stdin, `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"mcptray-test","version":"1"}}}`)
	fmt.Fprintln(stdin, `{"method":"initialized"}`)
	fmt.Fprintln(stdin, `{"id":2,"method":"mcpServerStatus/list","params":{"detail":"toolsAndAuthOnly"}}`)
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("codex app-server ended before answering:\n%s", stderr.String())
			}
			var msg struct {
				ID     *int            `json:"id"`
				Error  json.RawMessage `json:"error"`
				Result struct {
					Data []struct {
						Name  string                     `json:"name"`
						Tools map[string]json.RawMessage `json:"tools"`
					} `json:"data"`
				} `json:"result"`
			}
			if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != 2 {
				continue
			}
			if msg.Error != nil {
				t.Fatalf("codex app-server mcpServerStatus/list: %s", msg.Error)
			}
			for _, s := range msg.Result.Data {
				if s.Name == "mcptray" {
					var names []string
					for name := range s.Tools {
						names = append(names, name)
					}
					slices.Sort(names)
					return names
				}
			}
			t.Fatalf("codex app-server lists no mcptray server: %s", line)
		case <-deadline:
			t.Fatalf("codex app-server did not answer mcpServerStatus/list within two minutes:\n%s", stderr.String())
		}
	}
}
