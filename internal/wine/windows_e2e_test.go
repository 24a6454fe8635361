//go:build linux

package wine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

// TestWindowsEndToEnd runs mcptray.exe under Wine as a person would on
// Windows: the programs in folders whose paths hold a space and a
// non-ASCII letter, the config and data in the profile's default places
// (%APPDATA%\mcptray\mcp.json, %LOCALAPPDATA%\mcptray), `mcptray daemon`
// supervising four fake servers (echo.exe; one writes "\r\n"), and every
// other command a separate mcptray.exe talking to it over the control
// pipe; the loopback HTTP endpoint is reached from Linux.
//
// mcptray.exe is the headless build (no cgo), unless MCPTRAY_WINDOWS_BIN
// names a folder with a built mcptray.exe and mcptray-google.exe (`make
// build-windows`'s bin): the daemon and the command line are the same code
// in both, and the tray app's cgo build takes minutes cold.
func TestWindowsEndToEnd(t *testing.T) {
	haveWine(t)
	t0 := time.Now()
	// A clean profile: the registry (Credential Manager, with the keyring
	// mark of a previous run) as wineboot left it, and no mcptray files.
	if out, err := wineScript("--reset"); err != nil {
		t.Fatalf("scripts/wine.sh --reset: %v\n%s", err, out)
	}
	t.Cleanup(func() { wineScript("--kill") })
	appData := filepath.Join(profile(), "AppData", "Roaming", "mcptray")
	localData := filepath.Join(profile(), "AppData", "Local", "mcptray")
	programs := filepath.Join(profile(), "AppData", "Local", "Programs", "mcptray")
	// The servers' folder is this run's own: its name finds this run's
	// echo.exe processes among every Wine process on the machine.
	servers := filepath.Join(profile(), fmt.Sprintf("My Servers %d", os.Getpid()))
	for _, dir := range []string{appData, localData, programs} {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.RemoveAll(servers) })

	build := t.TempDir()
	if bin := os.Getenv("MCPTRAY_WINDOWS_BIN"); bin != "" {
		copyFile(t, filepath.Join(bin, "mcptray.exe"), filepath.Join(programs, "mcptray.exe"))
		copyFile(t, filepath.Join(bin, "mcptray-google.exe"), filepath.Join(programs, "mcptray-google.exe"))
		goBuildWindows(t, build, "", "./mcp/mcptest/fakeserver")
	} else {
		goBuildWindows(t, build, "headless", ".", "./cmd/mcptray-google", "./mcp/mcptest/fakeserver")
		copyFile(t, filepath.Join(build, "mcptray.exe"), filepath.Join(programs, "mcptray.exe"))
		copyFile(t, filepath.Join(build, "mcptray-google.exe"), filepath.Join(programs, "mcptray-google.exe"))
	}
	copyFile(t, filepath.Join(build, "fakeserver.exe"), filepath.Join(servers, "echo.exe"))
	t.Logf("built for windows (%s)", time.Since(t0).Round(time.Millisecond))
	w := &win{t: t, exe: filepath.Join(programs, "mcptray.exe")}

	// --version and --help.
	if code, out, errs := w.run("", "--version"); code != 0 || !strings.HasPrefix(out, "mcptray ") {
		t.Fatalf("mcptray.exe --version: exit %d %q %q", code, out, errs)
	}
	if code, out, errs := w.run("", "--help"); code != 0 || !strings.Contains(out, "usage: mcptray COMMAND") || !strings.Contains(out, "daemon [--config FILE]") {
		t.Fatalf("mcptray.exe --help: exit %d %q %q", code, out, errs)
	}

	// The built-in Google servers run mcptray-google.exe from beside
	// mcptray.exe: it answers initialize (no account is needed for that).
	startAssistant(t, w, "serve", "gcal").close()

	// Four servers in %APPDATA%\mcptray\mcp.json, by hand; crlf ends its
	// lines in "\r\n" after a banner, as Windows programs may.
	echo := winPath(filepath.Join(servers, "echo.exe"))
	entry := func(args []string, env map[string]string) map[string]any {
		return map[string]any{"command": echo, "args": args, "env": env}
	}
	doc := map[string]any{"x-mcptray": map[string]any{"listen": "127.0.0.1:0"}, "mcpServers": map[string]any{
		"a":    entry([]string{"echo"}, map[string]string{"WHO": "a"}),
		"b":    entry([]string{"echo"}, map[string]string{"WHO": "b"}),
		"ask":  entry([]string{"asker"}, map[string]string{"WHO": "ask"}),
		"crlf": entry([]string{"crlf"}, map[string]string{"WHO": "crlf"}),
	}}
	writeJSON(t, filepath.Join(appData, "mcp.json"), doc)

	// mcptray.exe daemon, on the default paths.
	daemon := wineCmd(w.exe, "daemon")
	daemonOut := outFile(t)
	daemon.Stdout, daemon.Stderr = daemonOut, daemonOut
	w.daemonLog = daemonOut.Name()
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { daemon.Wait(); close(exited) }()
	t.Cleanup(func() {
		daemon.Process.Kill()
		<-exited
	})
	st := w.waitStatus("a, b, ask and crlf ready", func(s status) bool {
		return s.state("a") == "ready" && s.state("b") == "ready" && s.state("ask") == "ready" && s.state("crlf") == "ready"
	})
	t.Logf("daemon ready (%s)", time.Since(t0).Round(time.Millisecond))
	if want := `C:\users\Zoë Test\AppData\Roaming\mcptray\mcp.json`; st.ConfigPath != want {
		t.Errorf("status --json: configPath %q, want %q", st.ConfigPath, want)
	}
	if _, err := os.Stat(localData); err != nil {
		t.Errorf("no data dir in %%LOCALAPPDATA%%: %v", err)
	}
	if st.LoginShell.State != "off" || !strings.HasPrefix(st.LoginShell.Detail, "Windows: ") {
		t.Errorf("status --json: loginShell %+v, want off (skipped on Windows)", st.LoginShell)
	}
	for _, s := range st.Servers {
		if s.PID == 0 {
			t.Errorf("status --json: server %s has no pid", s.Name)
		}
	}
	// Status shows Windows pids; Linux sees each echo.exe as a process of
	// its own, whose command line names this run's servers' folder.
	testkit.WaitFor(t, "4 echo.exe of this run", func() bool { return len(w.echoes()) == 4 })

	// The loopback HTTP endpoint, reached from Linux: the bearer token
	// and the Origin rule hold as on Linux.
	code, out, errs := w.run("", "token")
	token := strings.TrimSpace(out)
	if code != 0 || token == "" {
		t.Fatalf("mcptray.exe token: exit %d %q %q", code, out, errs)
	}
	for _, c := range []struct {
		token, origin string
		want          int
	}{{"", "", http.StatusUnauthorized}, {token, "http://evil.example", http.StatusForbidden}, {token, "", http.StatusOK}} {
		if got, body := postInitialize(t, st.Endpoint, c.token, c.origin); got != c.want || c.want == http.StatusOK && !strings.Contains(body, `"serverInfo"`) {
			t.Errorf("POST initialize to %s (token %t, Origin %q): %d %q, want %d", st.Endpoint, c.token != "", c.origin, got, body, c.want)
		}
	}
	t.Logf("the HTTP endpoint: 401 without the token, 403 from another Origin, 200 (%s)", time.Since(t0).Round(time.Millisecond))

	// connect: an assistant on mcptray.exe's stdio.
	a := startAssistant(t, w, "connect")
	tools := a.wait(a.send("tools/list", map[string]any{}))
	for _, name := range []string{"a__echo", "b__add", "ask__login", "crlf__echo"} {
		if !strings.Contains(tools, `"`+name+`"`) {
			t.Errorf("tools/list has no %s: %s", name, tools)
		}
	}
	if res := a.wait(a.call("a__echo", map[string]any{"message": "grüße über Wine"})); !strings.Contains(res, `"text":"grüße über Wine"`) {
		t.Errorf("a__echo: %s", res)
	}
	if res := a.wait(a.call("b__add", map[string]any{"a": 2, "b": 3})); !strings.Contains(res, `"text":"5"`) {
		t.Errorf("b__add: %s", res)
	}
	// CRLF both ways: from the server, and from an assistant.
	a.eol = "\r\n"
	if res := a.wait(a.call("crlf__echo", map[string]any{"message": "CR LF"})); !strings.Contains(res, `"text":"CR LF"`) {
		t.Errorf("crlf__echo: %s", res)
	}
	a.eol = "\n"
	t.Logf("connect: tools/list and calls (%s)", time.Since(t0).Round(time.Millisecond))

	// A hand edit of b: b waits for approval, then restarts alone.
	before := st
	doc["mcpServers"].(map[string]any)["b"] = entry([]string{"echo"}, map[string]string{"WHO": "b2"})
	writeJSON(t, filepath.Join(appData, "mcp.json"), doc)
	w.waitStatus("b needs approval after the edit", func(s status) bool { return s.state("b") == "needs-approval" })
	if code, out, errs := w.run("", "approve", "b"); code != 0 {
		t.Fatalf("approve b: exit %d %q %q", code, out, errs)
	}
	after := w.waitStatus("b ready again", func(s status) bool {
		return s.state("b") == "ready" && s.server("b").PID != before.server("b").PID
	})
	for _, name := range []string{"a", "ask", "crlf"} {
		if b, a := before.server(name), after.server(name); b.PID != a.PID || !b.Since.Equal(a.Since) || a.Restarts != 0 {
			t.Errorf("%s changed with b's edit: %+v, then %+v", name, b, a)
		}
	}
	testkit.WaitFor(t, "b's old echo.exe to end (4 left)", func() bool { return len(w.echoes()) == 4 })
	t.Logf("a hand edit restarted only b (%s)", time.Since(t0).Round(time.Millisecond))

	// toggle off and on.
	if code, out, errs := w.run("", "toggle", "a", "off"); code != 0 {
		t.Fatalf("toggle a off: exit %d %q %q", code, out, errs)
	}
	w.waitStatus("a disabled", func(s status) bool { return s.state("a") == "disabled" })
	testkit.WaitFor(t, "a's echo.exe to end (3 left)", func() bool { return len(w.echoes()) == 3 })
	if b, _ := os.ReadFile(filepath.Join(appData, "mcp.json")); !strings.Contains(string(b), `"disabled": true`) {
		t.Errorf("toggle off did not write disabled into mcp.json:\n%s", b)
	}
	if code, out, errs := w.run("", "toggle", "a", "on"); code != 0 {
		t.Fatalf("toggle a on: exit %d %q %q", code, out, errs)
	}
	w.waitStatus("a ready again", func(s status) bool { return s.state("a") == "ready" })
	t.Logf("toggle off and on (%s)", time.Since(t0).Round(time.Millisecond))

	// secret set and list, in Credential Manager.
	if code, out, errs := w.run("throwaway-Zoë-secret\n", "secret", "set", "e2e-token"); code != 0 {
		t.Fatalf("secret set: exit %d %q %q", code, out, errs)
	}
	code, out, errs = w.run("", "secret", "list", "--json")
	if code != 0 || !strings.Contains(out, `"e2e-token"`) || strings.Contains(out, "throwaway") {
		t.Errorf("secret list --json: exit %d %q %q", code, out, errs)
	}
	if code, out, errs := run(t, "", "reg", "query", `HKCU\Software\Wine\Credential Manager`); code != 0 || !strings.Contains(out, "mcptray") {
		t.Errorf("no mcptray credential in Wine's Credential Manager: exit %d %q %q", code, out, errs)
	}
	t.Logf("secret set and list (%s)", time.Since(t0).Round(time.Millisecond))

	// A password request answered with inbox answer.
	call := a.call("ask__login", map[string]any{"user": "zoë"})
	var id string
	testkit.WaitFor(t, "the password request in the inbox", func() bool {
		_, out, _ := w.run("", "inbox", "--json")
		var in struct {
			Requests []struct {
				ID, Server string
			}
		}
		if json.Unmarshal([]byte(out), &in) == nil && len(in.Requests) == 1 && in.Requests[0].Server == "ask" {
			id = in.Requests[0].ID
			return true
		}
		return false
	})
	if code, out, errs := w.run("pw-from-stdin\n", "inbox", "answer", id, "--field", "password=-"); code != 0 || !strings.Contains(out, "accept sent to ask") {
		t.Fatalf("inbox answer: exit %d %q %q", code, out, errs)
	}
	if res := a.wait(call); !strings.Contains(res, "logged in as zoë") {
		t.Errorf("ask__login: %s", res)
	}
	t.Logf("a password asked and answered (%s)", time.Since(t0).Round(time.Millisecond))

	// kill -9 of mcptray: the Job Objects end every echo.exe.
	echoes := w.echoes()
	if len(echoes) != 4 {
		t.Fatalf("echo.exe of this run before the kill: Linux pids %v, want 4", echoes)
	}
	a.close()
	syscall.Kill(daemon.Process.Pid, syscall.SIGKILL)
	<-exited
	testkit.WaitFor(t, "no echo.exe left after kill -9 of mcptray.exe", func() bool { return len(w.echoes()) == 0 })
	t.Logf("kill -9 of mcptray.exe: its 4 echo.exe (Linux pids %v) ended (%s)", echoes, time.Since(t0).Round(time.Millisecond))
}

// win runs this test's mcptray.exe.
type win struct {
	t   *testing.T
	exe string // the Linux path of mcptray.exe
	// daemonLog holds what mcptray.exe daemon wrote on stdout and stderr.
	daemonLog string
}

// run runs mcptray.exe ARGS with stdin.
func (w *win) run(stdin string, args ...string) (code int, stdout, stderr string) {
	w.t.Helper()
	return run(w.t, stdin, w.exe, args...)
}

// status is what `mcptray status --json` prints, in part.
type status struct {
	Servers    []serverStatus
	ConfigPath string
	Endpoint   string
	LoginShell struct{ State, Detail string }
}

// serverStatus is one server of status.
type serverStatus struct {
	Name     string
	State    string
	PID      int // the Windows pid
	Restarts int
	Since    time.Time
}

// server is the status of the server name (zero if there is none).
func (s status) server(name string) serverStatus {
	for _, sv := range s.Servers {
		if sv.Name == name {
			return sv
		}
	}
	return serverStatus{}
}

func (s status) state(name string) string { return s.server(name).State }

// waitStatus polls `mcptray.exe status --json` until cond holds.
func (w *win) waitStatus(what string, cond func(status) bool) status {
	w.t.Helper()
	var last string
	var st status
	if !testkit.Eventually(testkit.Deadline, func() bool {
		_, out, errs := w.run("", "status", "--json")
		last = out + errs
		st = status{}
		return json.Unmarshal([]byte(out), &st) == nil && cond(st)
	}) {
		log, _ := os.ReadFile(w.daemonLog)
		w.t.Fatalf("timed out waiting for %s; the last status --json:\n%s\nthe daemon's output:\n%s", what, last, log)
	}
	return st
}

// echoes lists the Linux pids of this run's live echo.exe processes. Under
// Wine a Windows process is a Linux one whose command line is the
// Windows one; exited ones linger briefly as zombies, which do not count.
func (w *win) echoes() []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), fmt.Sprintf(`My Servers %d\echo.exe`, os.Getpid())) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) S …: the state follows the last ')'.
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z' {
			pids = append(pids, pid)
		}
	}
	return pids
}

// assistant is a JSON-RPC client on a `mcptray.exe connect` (or another
// MCP server on mcptray.exe's stdio) under Wine.
type assistant struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
	out   testkit.Buffer // what connect wrote on stdout
	// stderr is connect's stderr.
	stderr *os.File
	id     int
	eol    string // what ends each line sent: "\n", or "\r\n"
}

// startAssistant starts mcptray.exe ARGS and initializes an MCP session
// on its stdio.
func startAssistant(t *testing.T, w *win, args ...string) *assistant {
	t.Helper()
	a := &assistant{t: t, lines: make(chan string, 100), eol: "\n"}
	a.cmd = wineCmd(append([]string{w.exe}, args...)...)
	a.in, _ = a.cmd.StdinPipe()
	stdout, _ := a.cmd.StdoutPipe()
	a.cmd.Stderr = outFile(t) // a file: see run
	a.stderr = a.cmd.Stderr.(*os.File)
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			a.out.Write(append(sc.Bytes(), '\n'))
			a.lines <- sc.Text()
		}
		close(a.lines)
	}()
	a.wait(a.send("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "wine-e2e", "version": "1"}}))
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	a.in.Write(append(b, '\n'))
	return a
}

func (a *assistant) close() {
	if a.cmd.Process != nil && a.cmd.ProcessState == nil {
		a.in.Close()
		a.cmd.Process.Kill()
		a.cmd.Wait()
	}
}

func (a *assistant) send(method string, params any) int {
	a.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": a.id, "method": method, "params": params})
	a.in.Write(append(b, a.eol...))
	return a.id
}

func (a *assistant) call(tool string, args map[string]any) int {
	return a.send("tools/call", map[string]any{"name": tool, "arguments": args})
}

// wait returns the reply to request id; other lines are skipped.
func (a *assistant) wait(id int) string {
	a.t.Helper()
	deadline := time.After(testkit.Deadline)
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				b, _ := os.ReadFile(a.stderr.Name())
				a.t.Fatalf("mcptray.exe connect ended before the reply to %d:\n%s%s", id, a.out.String(), b)
			}
			var m struct {
				ID     *int   `json:"id"`
				Method string `json:"method"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && m.ID != nil && *m.ID == id && m.Method == "" {
				return line
			}
		case <-deadline:
			b, _ := os.ReadFile(a.stderr.Name())
			a.t.Fatalf("no reply to request %d within %s; connect said:\n%s%s", id, testkit.Deadline, a.out.String(), b)
		}
	}
}

// postInitialize posts an MCP initialize to url with a bearer token and
// an Origin (none when "") and returns the status and body.
func postInitialize(t *testing.T, url, token, origin string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wine-e2e","version":"1"}}}`
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(b)
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, _ := json.MarshalIndent(v, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
