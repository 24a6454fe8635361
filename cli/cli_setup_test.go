//go:build linux

package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/internal/testdaemon"
)

// pathEnv are the variables that move the assistants' configs and
// mcptray's own files: a test home leaves them unset.
var pathEnv = []string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME",
	"APPDATA", "LOCALAPPDATA", "MCPTRAY_CONFIG", "MCPTRAY_DATA", "MCPTRAY_TEST_AS_MCPTRAY"}

// homeEnv is this process's environment with home as HOME and none of
// pathEnv, running the test binary as mcptray.
func homeEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(pathEnv, k) {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "MCPTRAY_TEST_AS_MCPTRAY=1")
}

// runHome runs mcptray (the test binary) with args under home, stdin not
// a terminal.
func runHome(t *testing.T, home, stdin string, args ...string) (int, string, string) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, args...)
	cmd.Env = homeEnv(home)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	return exitCode(cmd.Run()), out.String(), errb.String()
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// `mcptray setup` lists the clients; `setup CLIENT` with --dry-run
// prints the diff and writes nothing, then writes, says so (and what to
// restart), changes nothing the second time; --remove gives back the
// original; a broken file is refused with its line and column.
func TestSetupCLI(t *testing.T) {
	home := t.TempDir()
	exe, _ := os.Executable()
	desktop := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	original := "{\n  // mine\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n  }\n}\n"
	writeFile(t, desktop, original)

	code, out, errs := runHome(t, home, "", "setup")
	if code != 0 || errs != "" {
		t.Fatalf("setup: exit %d %q", code, errs)
	}
	for _, want := range []string{"CLIENT  ", "claude-desktop  found   no       " + desktop, "zed             none    no       " + filepath.Join(home, ".config", "zed", "settings.json")} {
		if !strings.Contains(out, want) {
			t.Errorf("setup's list lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runHome(t, home, "", "setup", "--json")
	var list struct {
		Clients []struct {
			Name, Path        string
			Exists, Installed bool
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Clients) != 8 || list.Clients[0].Name != "claude-desktop" || !list.Clients[0].Exists {
		t.Errorf("setup --json: exit %d\n%s", code, out)
	}

	code, out, errs = runHome(t, home, "", "setup", "claude-desktop", "--dry-run")
	wantDiff := fmt.Sprintf("--- %s\n+++ %s\n@@ -1,6 +1,14 @@\n {\n   // mine\n   \"mcpServers\": {\n-    \"a\": {\"command\": \"x\"}\n+    \"a\": {\"command\": \"x\"},\n+    \"mcptray\": {\n+      \"command\": %q,\n+      \"args\": [\n+        \"connect\",\n+        \"--tools\",\n+        \"stable\"\n+      ]\n+    }\n   }\n }\n", desktop, desktop, exe)
	if code != 0 || out != wantDiff || errs != "" {
		t.Errorf("setup --dry-run: exit %d %q\n%s\nwant\n%s", code, errs, out, wantDiff)
	}
	if readString(t, desktop) != original {
		t.Fatal("--dry-run wrote the file")
	}

	code, out, _ = runHome(t, home, "", "setup", "claude-desktop")
	want := fmt.Sprintf("added mcptray to Claude Desktop's config %s (backup: %s.mcptray-backup)\nrestart Claude Desktop to load mcptray\n", desktop, desktop)
	if code != 0 || out != want {
		t.Errorf("setup: exit %d\n%s\nwant\n%s", code, out, want)
	}
	if readString(t, desktop+".mcptray-backup") != original {
		t.Error("the backup is not the original")
	}
	written := readString(t, desktop)
	code, out, _ = runHome(t, home, "", "setup", "claude-desktop")
	if code != 0 || !strings.HasPrefix(out, "Claude Desktop is set up already") || readString(t, desktop) != written {
		t.Errorf("setup again: exit %d %q", code, out)
	}
	code, out, _ = runHome(t, home, "", "setup")
	if code != 0 || !strings.Contains(out, "claude-desktop  found   yes") {
		t.Errorf("setup's list after setup: exit %d\n%s", code, out)
	}
	code, out, _ = runHome(t, home, "", "setup", "claude-desktop", "--remove")
	if code != 0 || !strings.HasPrefix(out, "removed mcptray from Claude Desktop's config") || !strings.Contains(out, "restart Claude Desktop for it to stop running mcptray") {
		t.Errorf("setup --remove: exit %d %q", code, out)
	}
	if readString(t, desktop) != original {
		t.Errorf("after --remove:\n%s\nwant the original:\n%s", readString(t, desktop), original)
	}

	// A client with no config: setup creates it, --remove deletes it.
	vscode := filepath.Join(home, ".config", "Code", "User", "mcp.json")
	if code, out, _ := runHome(t, home, "", "setup", "vscode"); code != 0 || strings.Contains(out, "backup") || strings.Contains(out, "restart") {
		t.Errorf("setup vscode: exit %d %q", code, out)
	}
	if want := fmt.Sprintf("{\n  \"servers\": {\n    \"mcptray\": {\n      \"type\": \"stdio\",\n      \"command\": %q,\n      \"args\": [\n        \"connect\"\n      ]\n    }\n  }\n}\n", exe); readString(t, vscode) != want {
		t.Errorf("VS Code's new mcp.json:\n%s", readString(t, vscode))
	}
	if code, out, _ := runHome(t, home, "", "setup", "vscode", "--remove"); code != 0 || !strings.Contains(out, "deleted") {
		t.Errorf("setup vscode --remove: exit %d %q", code, out)
	}
	if _, err := os.Stat(vscode); err == nil {
		t.Error("VS Code's mcp.json, which setup created, is still there")
	}

	// A broken file: exit 1, line and column, untouched, no backup.
	zed := filepath.Join(home, ".config", "zed", "settings.json")
	broken := "{\n  \"theme\": \"One Dark\"\n  \"vim_mode\": true\n}\n"
	writeFile(t, zed, broken)
	code, out, errs = runHome(t, home, "", "setup", "zed")
	if want := "mcptray: " + zed + ":3:3: invalid character '\"' after object key:value pair\n"; code != 1 || out != "" || errs != want {
		t.Errorf("setup with a broken file: exit %d %q %q, want 1 and %q", code, out, errs, want)
	}
	if readString(t, zed) != broken {
		t.Error("the broken file changed")
	}
	if _, err := os.Stat(zed + ".mcptray-backup"); err == nil {
		t.Error("a backup of the broken file was written")
	}

	for _, args := range [][]string{{"setup", "nope"}, {"setup", "a", "b"}, {"setup", "--remove"}, {"import"}, {"import", "nope"}, {"import", "cursor", "--move-secrets", "--keep-secrets"}} {
		if code, out, errs := runHome(t, home, "", args...); code != 2 || out != "" || !strings.Contains(errs, "run 'mcptray "+args[0]+" --help' for usage") {
			t.Errorf("%v: exit %d %q %q, want a usage error", args, code, out, errs)
		}
	}
}

// importFixture is a Claude Desktop config with a server named name whose
// API_TOKEN is value, run by the echo fake.
func importFixture(t *testing.T, name, value string) string {
	t.Helper()
	exe, _ := os.Executable()
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{name: map[string]any{
		"command": exe, "env": map[string]string{"MCPTRAY_FAKE_SERVER": "echo", "GORACE": "atexit_sleep_ms=0", "API_TOKEN": value},
	}}}, "", "  ")
	return string(b) + "\n"
}

// Without a terminal, an import whose servers hold secrets refuses unless
// a flag decides, and says which; with --keep-secrets the value is
// copied, with --dry-run nothing is written.
func TestImportNeedsADecisionWithoutATerminal(t *testing.T) {
	home := t.TempDir()
	value := secretValue(t)
	desktop := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	fixture := importFixture(t, "notes", value)
	writeFile(t, desktop, fixture)
	cfg := filepath.Join(home, "mcp.json")
	flags := []string{"--config", cfg, "--data", filepath.Join(home, "data")}
	var outputs []string

	code, out, errs := runHome(t, home, "", append([]string{"import", "claude-desktop"}, flags...)...)
	outputs = append(outputs, out, errs)
	if want := "mcptray: 1 value(s) look like secrets: pass --move-secrets to put them in the keyring (mcp.json gets ${keyring:…} references), or --keep-secrets to copy them into mcp.json as they are\n"; code != 2 || !strings.HasPrefix(errs, want) {
		t.Errorf("import without a decision: exit %d %q, want 2 and %q", code, errs, want)
	}
	if !strings.Contains(out, "notes env API_TOKEN → ${keyring:notes-API_TOKEN}") {
		t.Errorf("the secret is not listed by name:\n%s", out)
	}
	if _, err := os.Stat(cfg); err == nil {
		t.Error("mcp.json was written")
	}

	code, out, errs = runHome(t, home, "", append([]string{"import", "claude-desktop", "--dry-run", "--replace"}, flags...)...)
	outputs = append(outputs, out, errs)
	if code != 0 || !strings.Contains(out, `+        "API_TOKEN": "${keyring:notes-API_TOKEN}"`) || !strings.Contains(out, `-        "API_TOKEN": "********"`) {
		t.Errorf("import --dry-run: exit %d %q\n%s", code, errs, out)
	}
	if _, err := os.Stat(cfg); err == nil || readString(t, desktop) != fixture {
		t.Error("--dry-run wrote a file")
	}

	code, out, errs = runHome(t, home, "", append([]string{"import", "claude-desktop", "--keep-secrets"}, flags...)...)
	outputs = append(outputs, out, errs)
	if code != 0 || !strings.Contains(out, "imported 1 server(s) into "+cfg) || !strings.Contains(out, "Claude Desktop still runs them too") {
		t.Errorf("import --keep-secrets: exit %d %q\n%s", code, errs, out)
	}
	if !strings.Contains(readString(t, cfg), `"API_TOKEN": "`+value+`"`) || readString(t, desktop) != fixture {
		t.Error("--keep-secrets did not copy the value as it is, or touched Claude Desktop's file")
	}
	for _, o := range outputs {
		secretLeaks(t, value, "an output", o)
	}
}

// On a terminal, import asks: no to moving the secrets (copied as they
// are), yes to replacing (the server out of Claude Desktop's file,
// mcptray in).
func TestImportAsksOnATerminal(t *testing.T) {
	home := t.TempDir()
	value := secretValue(t)
	desktop := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	writeFile(t, desktop, importFixture(t, "notes", value))
	cfg := filepath.Join(home, "mcp.json")

	master, tty := openPTY(t)
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "import", "claude-desktop", "--config", cfg, "--data", filepath.Join(home, "data"))
	cmd.Env = homeEnv(home)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	screen := new(syncBuffer)
	go io.Copy(screen, master)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })

	waitFor(t, "the question about secrets", func() bool { return strings.Contains(screen.String(), "references in mcp.json? [y/N] ") })
	master.Write([]byte("n\n"))
	waitFor(t, "the question about replacing", func() bool { return strings.Contains(screen.String(), "so that none runs twice? [y/N] ") })
	master.Write([]byte("y\n"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("import on a terminal: %v\n%s", err, screen)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("import on a terminal did not finish:\n%s", screen)
	}
	waitFor(t, "the last line", func() bool { return strings.Contains(screen.String(), "restart Claude Desktop to load mcptray") })
	secretLeaks(t, value, "the terminal", screen.String())
	if !strings.Contains(readString(t, cfg), `"API_TOKEN": "`+value+`"`) {
		t.Error("after no, the secret is not copied as it is")
	}
	d := readString(t, desktop)
	if strings.Contains(d, "notes") || !strings.Contains(d, `"mcptray"`) {
		t.Errorf("Claude Desktop's file after yes to replacing:\n%s", d)
	}
}

// The real keyring: an import with --move-secrets stores the value
// through the running instance, mcp.json shows ${keyring:…}, and the
// instance starts the imported server with the value. Runs inside
// scripts/desktop-session.sh (skips without a keyring elsewhere).
func TestImportMovesASecretToTheKeyring(t *testing.T) {
	server := fmt.Sprintf("imp%d-%d", os.Getpid(), time.Now().UnixNano())
	name := server + "-API_TOKEN"
	testdaemon.Keyring(t, "keyring/"+name)
	testdaemon.Keyring(t, "keyring-index")
	value := secretValue(t)

	// A daemon that asks before new entries run: an import is mcptray's
	// own edit, whose servers run without a question.
	in := startAskingDaemon(t, map[string]any{"echo": fakeEntry(t, "echo")})
	in.WaitFor("echo ready", states("echo", "ready"))
	home := t.TempDir()
	desktop := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	writeFile(t, desktop, importFixture(t, server, value))

	code, out, errs := runHome(t, home, "", "import", "claude-desktop", "--move-secrets", "--replace", "--config", in.Config, "--data", in.Data)
	secretLeaks(t, value, "the output", out, errs)
	if code != 0 || !strings.Contains(out, "moved 1 secret(s) into the keyring") {
		t.Fatalf("import --move-secrets: exit %d %q\n%s", code, errs, out)
	}
	if got, err := keyring.Get("keyring/" + name); err != nil || got != value {
		t.Fatalf("the keyring entry keyring/%s: %v (holds the value: %t)", name, err, got == value)
	}
	cfg := readString(t, in.Config)
	secretLeaks(t, value, "mcp.json", cfg)
	if !strings.Contains(cfg, `"API_TOKEN": "${keyring:`+name+`}"`) {
		t.Errorf("mcp.json does not refer to the keyring:\n%s", cfg)
	}
	d := readString(t, desktop)
	secretLeaks(t, value, "Claude Desktop's file", d)
	if strings.Contains(d, server) {
		t.Errorf("the server is still in Claude Desktop's file:\n%s", d)
	}
	st := in.WaitFor("the imported server ready", states(server, "ready"))
	_, pid := state(st, server)
	if envOf(pid, "API_TOKEN") != value {
		t.Error("the imported server's API_TOKEN is not the moved value")
	}
}

// The end-to-end of issue 22: `setup claude-desktop` under a test home,
// then exactly the command it wrote, run with Claude Desktop's stripped
// environment (HOME, PATH, USER only), reaches the running instance (its
// data dir the default one under that home) and lists its tools.
func TestSetupClaudeDesktopEndToEnd(t *testing.T) {
	bin := buildMcptray(t, "mcptray", []string{"CGO_ENABLED=0"}, "-tags", "headless")
	home := t.TempDir()
	stripped := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "USER=" + os.Getenv("USER")}

	setup := exec.Command(bin, "setup", "claude-desktop")
	setup.Env = stripped
	if out, err := setup.CombinedOutput(); err != nil || !strings.Contains(string(out), "restart Claude Desktop to load mcptray") {
		t.Fatalf("setup claude-desktop: %v\n%s", err, out)
	}
	var written struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
			Env     map[string]string
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(readString(t, filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"))), &written); err != nil {
		t.Fatal(err)
	}
	entry, ok := written.MCPServers["mcptray"]
	if !ok || entry.Command != bin || !slices.Equal(entry.Args, []string{"connect", "--tools", "stable"}) || entry.Env != nil {
		t.Fatalf("the entry written: %+v", written)
	}

	dir := t.TempDir()
	in := &instance{&testdaemon.Instance{T: t, Config: filepath.Join(dir, "mcp.json"), Data: filepath.Join(home, ".local", "state", "mcptray"), Bin: bin}}
	in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
	writeConfig(t, in.Config, map[string]any{"echo": fakeEntry(t, "echo")})
	in.Start()
	in.WaitFor("echo ready", states("echo", "ready"))

	cmd := exec.Command(entry.Command, entry.Args...)
	cmd.Env = stripped
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr := new(syncBuffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	r := bufio.NewReader(stdout)
	call := func(line string) string {
		t.Helper()
		stdin.Write([]byte(line + "\n"))
		reply, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v; stderr: %s", line, err, stderr)
		}
		return reply
	}
	if reply := call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.1"}}}`); !strings.Contains(reply, `"serverInfo"`) {
		t.Fatalf("initialize: %s", reply)
	}
	stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	reply := call(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var list struct{ Result json.RawMessage }
	json.Unmarshal([]byte(reply), &list)
	if names := toolNames(t, string(list.Result)); !slices.Contains(names, "echo__echo") {
		t.Errorf("tools/list through the command setup wrote: %v\n%s", names, reply)
	}
}
