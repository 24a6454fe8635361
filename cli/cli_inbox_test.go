//go:build linux

package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcptray/mcptray/internal/testdaemon"
)

// assistant is a JSON-RPC client behind a real `mcptray connect`
// subprocess: everything the assistant receives (the upstream bytes) is
// kept in out.
type assistant struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   syncBuffer
	lines chan string
	id    int
}

func startAssistant(t *testing.T, in *instance, capabilities map[string]any) *assistant {
	t.Helper()
	exe, _ := os.Executable()
	a := &assistant{t: t, lines: make(chan string, 1000)}
	a.cmd = exec.Command(exe, append([]string{"connect"}, in.FlagsFirst...)...)
	a.cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	a.in, _ = a.cmd.StdinPipe()
	stdout, _ := a.cmd.StdoutPipe()
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.in.Close(); a.cmd.Process.Kill(); a.cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			a.out.Write(append(sc.Bytes(), '\n'))
			a.lines <- sc.Text()
		}
		close(a.lines)
	}()
	id := a.send("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": capabilities,
		"clientInfo": map[string]any{"name": "test-assistant", "version": "1"}})
	a.wait(id)
	a.notify("notifications/initialized")
	return a
}

func (a *assistant) send(method string, params any) int {
	a.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": a.id, "method": method, "params": params})
	a.in.Write(append(b, '\n'))
	return a.id
}

func (a *assistant) notify(method string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	a.in.Write(append(b, '\n'))
}

func (a *assistant) call(tool string, args map[string]any) int {
	return a.send("tools/call", map[string]any{"name": tool, "arguments": args})
}

// wait returns the reply to request id; other lines are skipped (they
// stay in a.out).
func (a *assistant) wait(id int) string {
	a.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				a.t.Fatalf("mcptray connect ended before the reply to %d", id)
			}
			var m struct {
				ID     *int   `json:"id"`
				Method string `json:"method"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && m.ID != nil && *m.ID == id && m.Method == "" {
				return line
			}
		case <-deadline:
			a.t.Fatalf("no reply to request %d within 60s; the assistant got:\n%s", id, a.out.String())
		}
	}
}

type inboxJSON struct {
	Requests []struct {
		ID      string `json:"id"`
		Server  string `json:"server"`
		Tool    string `json:"tool"`
		Message string `json:"message"`
		Mode    string `json:"mode"`
		URL     string `json:"url"`
		Host    string `json:"host"`
		Fields  []struct {
			Name     string `json:"name"`
			Type     string `json:"type"`
			Secret   bool   `json:"secret"`
			Required bool   `json:"required"`
			Default  any    `json:"default"`
		} `json:"fields"`
		Created  time.Time `json:"created"`
		Deadline time.Time `json:"deadline"`
	} `json:"requests"`
}

// waitRequest polls `mcptray inbox --json` until a request from server
// shows, and returns it with the raw output.
func (in *instance) waitRequest(server string) (inboxJSON, string) {
	in.T.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, out, errs := in.Run("inbox", "--json")
		if code != 0 {
			in.T.Fatalf("inbox --json: exit %d: %s", code, errs)
		}
		var l inboxJSON
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			in.T.Fatalf("inbox --json is not JSON: %v\n%s", err, out)
		}
		for i, r := range l.Requests {
			if r.Server == server {
				l.Requests[0], l.Requests[i] = l.Requests[i], l.Requests[0]
				return l, out
			}
		}
		if time.Now().After(deadline) {
			in.T.Fatalf("no request from %s in the inbox: %s", server, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runOnPTY runs mcptray with args against in, on a pseudo-terminal of its
// own (its controlling terminal): what it prints collects in screen, what
// is written to master is its input, and done gets its exit.
func runOnPTY(t *testing.T, in *instance, args ...string) (cmd *exec.Cmd, master *os.File, screen *syncBuffer, done <-chan error) {
	t.Helper()
	master, tty := openPTY(t)
	exe, _ := os.Executable()
	cmd = exec.Command(exe, append(args, in.FlagsFirst...)...)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	screen = new(syncBuffer)
	copied := make(chan struct{})
	go func() { io.Copy(screen, master); close(copied) }() // EIO once the command's side is closed
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		// What it wrote last may still be in the terminal: done says so only
		// once screen has it all.
		select {
		case <-copied:
		case <-time.After(10 * time.Second):
		}
		exited <- err
	}()
	return cmd, master, screen, exited
}

// openPTY opens a pseudo-terminal pair (Linux).
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// echoOff reports whether the terminal behind master has echo turned off
// (a masked read is in progress).
func echoOff(master *os.File) bool {
	tio, err := unix.IoctlGetTermios(int(master.Fd()), unix.TCGETS)
	return err == nil && tio.Lflag&unix.ECHO == 0
}

// noSecretIn fails if secret is in any file under dir.
func noSecretIn(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSocket != 0 {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), secret) {
			t.Errorf("the secret is in %s", path)
		}
		return nil
	})
}

// The done-when: a tool call that needs a password completes end
// to end with the answer typed into `mcptray inbox answer` on a terminal.
// The server gets the password; the assistant gets the result with it
// redacted; it is nowhere under DATA, in the logs, in the CLI's output or
// in the upstream bytes.
func TestInboxAnswerTypedOnATerminal(t *testing.T) {
	const secret = "Tr0ub4dor&3-horse"
	rec := filepath.Join(t.TempDir(), "record")
	in := startDaemon(t, map[string]any{"ask": fakeEntry(t, "asker", "MCPTRAY_FAKE_RECORD", rec)})
	in.WaitFor("ready", states("ask", "ready"))
	a := startAssistant(t, in, map[string]any{})
	call := a.call("ask__login", map[string]any{"user": "ada"})

	l, raw := in.waitRequest("ask")
	r := l.Requests[0]
	if r.Tool != "login" || r.Mode != "form" || r.Message != "Password for ada on prod" || len(r.Fields) != 1 ||
		r.Fields[0].Name != "password" || r.Fields[0].Type != "string" || !r.Fields[0].Secret || !r.Fields[0].Required ||
		r.Deadline.Sub(r.Created) != 5*time.Minute {
		t.Fatalf("inbox --json: %s", raw)
	}
	for _, key := range []string{`"id"`, `"server"`, `"message"`, `"mode"`, `"fields"`, `"name"`, `"type"`, `"title"`, `"secret"`, `"required"`, `"created"`, `"deadline"`} {
		if !strings.Contains(raw, key) {
			t.Errorf("inbox --json lacks %s", key)
		}
	}

	cmd, master, screen, done := runOnPTY(t, in, "inbox", "answer", r.ID)

	waitFor(t, "the accept question", func() bool { return strings.Contains(screen.String(), "Fill in the form?") })
	master.Write([]byte("y\n"))
	waitFor(t, "the masked password prompt", func() bool {
		return strings.Contains(screen.String(), "Password (secret, not shown; required): ") && echoOff(master)
	})
	master.Write([]byte(secret + "\n"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("inbox answer: %v\n%s", err, screen.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("inbox answer did not finish:\n%s", screen.String())
	}
	if out := screen.String(); !strings.Contains(out, r.ID+": accept sent to ask") || strings.Contains(out, secret) {
		t.Errorf("the terminal showed:\n%s", out)
	}

	res := a.wait(call)
	if !strings.Contains(res, "logged in as ada; the server echoes [redacted]") {
		t.Errorf("tool result upstream: %s", res)
	}
	var got struct {
		Result struct {
			Content struct{ Password string }
		}
	}
	if b, _ := os.ReadFile(rec); json.Unmarshal(b, &got) != nil || got.Result.Content.Password != secret {
		t.Errorf("the server received: %s", b)
	}
	_, after, _ := in.Run("inbox", "--json")
	if strings.Contains(after, secret) || strings.Contains(a.out.String(), secret) {
		t.Error("the secret is in inbox --json or in the upstream bytes")
	}
	in.Cmd.Process.Signal(syscall.SIGTERM)
	<-in.Exited
	if strings.Contains(in.Stderr.String(), secret) {
		t.Error("the secret is in mcptray's own log")
	}
	noSecretIn(t, in.Data, secret)
}

// runCLI runs mcptray in a subprocess with stdin (not a terminal).
func (in *instance) runCLI(stdin string, args ...string) (int, string, string) {
	in.T.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, append(args, in.FlagsFirst...)...)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		in.T.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// The non-interactive answers: --field (with - for stdin), --yes,
// --decline, --cancel, invalid values, and the errors a person sees.
func TestInboxAnswerFlags(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "record")
	in := startDaemon(t, map[string]any{"ask": fakeEntry(t, "asker", "MCPTRAY_FAKE_RECORD", rec)})
	in.WaitFor("ready", states("ask", "ready"))
	a := startAssistant(t, in, map[string]any{})

	if code, out, _ := in.Run("inbox"); code != 0 || out != "No requests waiting.\n" {
		t.Errorf("empty inbox: %d %q", code, out)
	}
	call := a.call("ask__form", map[string]any{"form": "types"})
	r := func() string { l, _ := in.waitRequest("ask"); return l.Requests[0].ID }()
	if code, out, errs := in.Run("inbox"); code != 0 || !regexp.MustCompile(r+`\s+ask\s+form\s+form \(12 fields\)\s+in (4m5\ds|5m0s)\s+Please fill in the types form`).MatchString(out) {
		t.Errorf("inbox table: exit %d %s\n%s", code, errs, out)
	}
	code, _, errs := in.Run("inbox", "answer", r, "--field", "name=Ada", "--field", "age=200", "--field", "color=red")
	if code != 1 || errs != "mcptray: field \"age\" must be at most 150 (nothing was sent; the request stays open)\n" {
		t.Errorf("invalid value: exit %d %q", code, errs)
	}
	for _, bad := range [][]string{
		{"inbox", "answer", r, "--field", "novalue"},
		{"inbox", "answer", r, "--yes", "--decline"},
		{"inbox", "answer", r, "--decline", "--field", "a=b"},
		{"inbox", "answer"},
		{"inbox", "nope"},
	} {
		if code, _, errs := in.Run(bad...); code != 2 || !strings.HasPrefix(errs, "mcptray: ") {
			t.Errorf("%v: exit %d %q, want a usage error", bad, code, errs)
		}
	}
	code, out, errs := in.Run("inbox", "answer", r, "--field", "name=Ada", "--field", "age=36", "--field", "color=Green",
		"--field", "tags=a,c", "--field", "subscribe=yes", "--field", "size=Large", "--field", "score=2.5")
	if code != 0 || out != r+": accept sent to ask\n" {
		t.Fatalf("answer: exit %d %q %q", code, out, errs)
	}
	a.wait(call)
	if b, _ := os.ReadFile(rec); !strings.Contains(string(b), `"content":{"age":36,"color":"green","name":"Ada","score":2.5,"size":"l","subscribe":true,"tags":["a","c"]}`) {
		t.Errorf("the server received %s", b)
	}
	if code, _, errs := in.Run("inbox", "answer", r, "--yes"); code != 1 || !strings.Contains(errs, "no open request "+r) {
		t.Errorf("answered twice: exit %d %q", code, errs)
	}

	// A secret from stdin, never on the command line.
	call = a.call("ask__login", map[string]any{"user": "bob"})
	l, _ := in.waitRequest("ask")
	if code, out, errs := in.runCLI("pw-from-stdin\n", "inbox", "answer", l.Requests[0].ID, "--field", "password=-"); code != 0 || strings.Contains(out+errs, "pw-from-stdin") {
		t.Errorf("--field password=-: exit %d %q %q", code, out, errs)
	}
	if res := a.wait(call); !strings.Contains(res, "logged in as bob") {
		t.Errorf("login: %s", res)
	}

	// Decline and cancel; no flag and no terminal accepts with defaults.
	for _, tc := range []struct{ flag, want string }{{"--decline", "decline"}, {"--cancel", "cancel"}, {"", "accept"}} {
		call = a.call("ask__form", map[string]any{"form": "defaults"})
		l, _ := in.waitRequest("ask")
		args := []string{"inbox", "answer", l.Requests[0].ID}
		if tc.flag != "" {
			args = append(args, tc.flag)
		}
		if code, out, errs := in.runCLI("", args...); code != 0 || !strings.Contains(out, tc.want+" sent to ask") {
			t.Errorf("%s: exit %d %q %q", tc.flag, code, out, errs)
		}
		if res := a.wait(call); !strings.Contains(res, `\"action\":\"`+tc.want+`\"`) {
			t.Errorf("%s: %s", tc.flag, res)
		}
	}

	if code, out, _ := in.Run("inbox", "--help"); code != 0 || !strings.Contains(out, "inbox answer ID") {
		t.Errorf("inbox --help: exit %d %q", code, out)
	}
	// "no value stored" in a desktop session; without one, the keyring's
	// absence is the reason.
	if code, _, errs := in.Run("inputs", "forget", "never-set"); code != 1 || errs != "mcptray: forgetting ${input:never-set}: no value stored\n" &&
		!strings.HasPrefix(errs, "mcptray: forgetting ${input:never-set}: keyring: deleting \"input/never-set\": no session D-Bus") {
		t.Errorf("inputs forget: exit %d %q", code, errs)
	}
}

// `mcptray inbox watch --json` prints events as they happen.
func TestInboxWatch(t *testing.T) {
	in := startDaemon(t, map[string]any{"ask": fakeEntry(t, "asker")})
	in.WaitFor("ready", states("ask", "ready"))
	exe, _ := os.Executable()
	cmd := exec.Command(exe, append([]string{"inbox", "watch", "--json"}, in.FlagsFirst...)...)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	var out syncBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	a := startAssistant(t, in, map[string]any{})
	call := a.call("ask__form", map[string]any{"form": "confirm"})
	waitFor(t, "an added event", func() bool { return strings.Contains(out.String(), `"kind":"added"`) })
	l, _ := in.waitRequest("ask")
	in.Run("inbox", "answer", l.Requests[0].ID, "--decline")
	a.wait(call)
	waitFor(t, "a closed event", func() bool {
		return strings.Contains(out.String(), `"kind":"closed"`) && strings.Contains(out.String(), `"outcome":"decline","by":"cli"`)
	})
}

// A real third-party server: server-everything's elicitation tools through
// `mcptray connect`, answered with the CLI.
func TestInboxServerEverything(t *testing.T) {
	peers := npmPeers(t)
	everything := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	opened := filepath.Join(t.TempDir(), "opened")
	browser := filepath.Join(t.TempDir(), "browser.sh")
	os.WriteFile(browser, []byte("#!/bin/sh\necho \"$1\" >> "+opened+"\n"), 0o755)
	t.Setenv("BROWSER", browser)
	dir := t.TempDir()
	in := &instance{&testdaemon.Instance{T: t, Config: filepath.Join(dir, "mcp.json"), Data: filepath.Join(dir, "data")}}
	os.WriteFile(in.Config, fmt.Appendf(nil, `{"mcpServers": {"everything": {"command": "node", "args": [%q, "stdio"]}},
		"x-mcptray": {"elicitation": "local"}}`, everything), 0o600)
	in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
	in.Start()
	in.WaitFor("ready", states("everything", "ready"))
	// The assistant can take elicitations, but "local" keeps them here.
	a := startAssistant(t, in, map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}})

	call := a.call("everything__trigger-elicitation-request", map[string]any{})
	l, raw := in.waitRequest("everything")
	r := l.Requests[0]
	if len(r.Fields) != 13 || r.Fields[0].Name != "name" || !r.Fields[0].Required {
		t.Fatalf("server-everything's form: %s", raw)
	}
	code, _, errs := in.Run("inbox", "answer", r.ID, "--field", "name=Ada Lovelace", "--field", "check=yes",
		"--field", "email=ada@example.com", "--field", "integer=7", "--field", "untitledMultipleSelectEnum=Piano,Drums",
		"--field", "titledSingleSelectEnum=Wonder Woman")
	if code != 0 {
		t.Fatalf("answer: %s", errs)
	}
	res := a.wait(call)
	for _, want := range []string{`- Name: Ada Lovelace`, `- Agreed to terms: true`, `- Favorite Integer: 7`,
		`\"Piano\",\n      \"Drums\"`, `\"titledSingleSelectEnum\": \"hero-3\"`,
		`\"firstLine\": \"It was a dark and stormy night.\"`, `\"number\": 3.14`, `\"legacyTitledEnum\": \"pet-1\"`} {
		if !strings.Contains(res, want) {
			t.Errorf("result lacks %s: %s", want, res)
		}
	}

	// URL mode: consent opens the browser.
	call = a.call("everything__trigger-url-elicitation", map[string]any{"url": "https://auth.example.com/start?x=1", "elicitationId": "e2e-1"})
	l, _ = in.waitRequest("everything")
	if r := l.Requests[0]; r.Mode != "url" || r.URL != "https://auth.example.com/start?x=1" || r.Host != "auth.example.com" {
		t.Errorf("url request: %+v", r)
	}
	if code, out, errs := in.Run("inbox", "answer", l.Requests[0].ID, "--yes"); code != 0 || !strings.Contains(out, "opening https://auth.example.com/start?x=1") {
		t.Errorf("url answer: %d %q %q", code, out, errs)
	}
	if res := a.wait(call); !strings.Contains(res, "User completed the URL elicitation flow") {
		t.Errorf("url result: %s", res)
	}
	waitFor(t, "the browser", func() bool { b, _ := os.ReadFile(opened); return string(b) == "https://auth.example.com/start?x=1\n" })

	// The error path (-32042): the error goes to the assistant, the URL to
	// the inbox; after the person opens it, the retry goes through.
	call = a.call("everything__trigger-url-elicitation", map[string]any{"url": "https://auth.example.com/files", "elicitationId": "e2e-2", "errorPath": true})
	if res := a.wait(call); !strings.Contains(res, `"code":-32042`) {
		t.Errorf("error path: %s", res)
	}
	l, _ = in.waitRequest("everything")
	if r := l.Requests[0]; r.URL != "https://modelcontextprotocol.io" {
		t.Errorf("-32042 request: %+v", r)
	}
	in.Run("inbox", "answer", l.Requests[0].ID, "--yes")
	waitFor(t, "the browser again", func() bool {
		b, _ := os.ReadFile(opened)
		return strings.Contains(string(b), "https://modelcontextprotocol.io\n")
	})
	call = a.call("everything__trigger-url-elicitation", map[string]any{"url": "https://auth.example.com/files", "elicitationId": "e2e-2", "errorPath": true})
	l, _ = in.waitRequest("everything")
	in.Run("inbox", "answer", l.Requests[0].ID, "--decline")
	if res := a.wait(call); !strings.Contains(res, "User declined to open the URL") {
		t.Errorf("retry: %s", res)
	}
}

// `mcptray inbox watch` on a terminal asks for each new request in turn:
// choices by number, a bad one refused with the reason and asked again.
func TestInboxWatchOnATerminal(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "record")
	in := startDaemon(t, map[string]any{"ask": fakeEntry(t, "asker", "MCPTRAY_FAKE_RECORD", rec)})
	in.WaitFor("ready", states("ask", "ready"))
	cmd, master, screen, done := runOnPTY(t, in, "inbox", "watch")
	waitFor(t, "watch to start", func() bool { return strings.Contains(screen.String(), "Waiting for requests") })

	a := startAssistant(t, in, map[string]any{})
	call := a.call("ask__form", map[string]any{"form": "legacy"})
	waitFor(t, "the request", func() bool { return strings.Contains(screen.String(), "Fill in the form?") })
	master.Write([]byte("y\n"))
	waitFor(t, "the choices", func() bool { return strings.Contains(screen.String(), "2) Pro (p)") })
	master.Write([]byte("9\n"))
	waitFor(t, "the reason", func() bool { return strings.Contains(screen.String(), `field "plan" must be one of f, p`) })
	master.Write([]byte("2\n"))
	if res := a.wait(call); !strings.Contains(res, `{\"plan\":\"p\"}`) {
		t.Errorf("result: %s\nscreen:\n%s", res, screen.String())
	}
	waitFor(t, "the report", func() bool { return strings.Contains(screen.String(), "accept sent to ask") })
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("watch after SIGTERM: %v\n%s", err, screen.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("watch did not stop:\n%s", screen.String())
	}
}
