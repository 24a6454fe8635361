//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcptray/mcptray/mcp/mcptest"
)

// hostileShown is mcptest.Hostile as the CLI must show it: every control
// escaped, the text around it as it is.
const hostileShown = `\x1b[2J\x1b[H\a\b\u009b\u202e[ssh] needs your password\r[other] ok`

// rawControls lists what in s would steer a terminal: C0 and C1 controls
// but newline and tab, DEL, bidi controls, and bytes that are not UTF-8.
// With pty, CR LF (a terminal's own newline) is allowed.
func rawControls(s string, pty bool) []string {
	var bad []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			bad = append(bad, fmt.Sprintf("byte %#x at %d", s[i], i))
		case r == '\n' || r == '\t':
		case r == '\r' && pty && strings.HasPrefix(s[i+1:], "\n"):
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			bad = append(bad, fmt.Sprintf("%U at %d", r, i))
		}
		i += n
	}
	return bad
}

// shownEscaped fails unless out has no raw control and every one of want.
func shownEscaped(t *testing.T, what, out string, pty bool, want ...string) {
	t.Helper()
	if bad := rawControls(out, pty); len(bad) > 0 {
		t.Errorf("%s prints raw controls (%s):\n%q", what, strings.Join(bad, ", "), out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s does not show %s:\n%s", what, w, out)
		}
	}
}

// TestCLIShowsServerTextEscaped: a hostile server's log lines, inbox
// message, field title, description and choice titles, event method and
// a start error carry ESC[2J, BEL, backspace, a C1 CSI, U+202E and a CR
// that would overwrite the line with "[ssh] needs your password". logs
// (also -f), inbox, inbox answer on a terminal, inbox watch, events and
// status show them escaped and print no raw control byte; --json stays
// JSON.
func TestCLIShowsServerTextEscaped(t *testing.T) {
	in := startDaemon(t, map[string]any{
		"ask":  fakeEntry(t, "asker"),
		"mail": fakeEntry(t, "events"),
		"gone": map[string]any{"command": "/nonexistent/" + mcptest.Hostile},
	})
	in.WaitFor("ready", func(st statusJSON) bool {
		gone := false
		for _, s := range st.Servers {
			gone = gone || s.Name == "gone" && s.Error != ""
		}
		return gone && states("ask", "ready", "mail", "ready")(st)
	})
	exe, _ := os.Executable()
	background := func(args ...string) *syncBuffer {
		cmd := exec.Command(exe, append(args, in.FlagsFirst...)...)
		cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
		out := new(syncBuffer)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
		return out
	}
	follow := background("logs", "ask", "-f")
	watch := background("inbox", "watch")

	a := startAssistant(t, in, map[string]any{})
	call := a.call("ask__hostile", map[string]any{})
	l, raw := in.waitRequest("ask")
	id := l.Requests[0].ID
	if !json.Valid([]byte(raw)) || !strings.Contains(raw, `"message": "message: \u001b[2J`) {
		t.Errorf("inbox --json:\n%s", raw)
	}

	logLine := "log: " + hostileShown // the daemon's log has the invalid byte as U+FFFD
	var logs string
	waitFor(t, "the hostile log line", func() bool { _, logs, _ = in.Run("logs", "ask"); return strings.Contains(logs, "log: ") })
	shownEscaped(t, "logs", logs, false, logLine)
	waitFor(t, "logs -f to show the line", func() bool { return strings.Contains(follow.String(), "log: ") })
	waitFor(t, "logs -f to show the whole line", func() bool { return strings.Contains(follow.String(), "[other] ok") })
	shownEscaped(t, "logs -f", follow.String(), false, logLine)

	_, out, _ := in.Run("inbox")
	shownEscaped(t, "inbox", out, false, "message: "+hostileShown)
	waitFor(t, "inbox watch to show the request", func() bool { return strings.Contains(watch.String(), "+ "+id) })

	// inbox answer on a terminal: the prompts carry the server's text.
	cmd, master, screen, done := runOnPTY(t, in, "inbox", "answer", id)
	waitFor(t, "the accept question", func() bool { return strings.Contains(screen.String(), "Fill in the form?") })
	master.Write([]byte("y\n"))
	waitFor(t, "the choices", func() bool { return strings.Contains(screen.String(), "2) B (b)") })
	master.Write([]byte("1\n"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("inbox answer: %v\n%q", err, screen.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("inbox answer did not finish:\n%q", screen.String())
	}
	shownEscaped(t, "inbox answer", screen.String(), true, "message: "+hostileShown, "title: "+hostileShown,
		"description: "+hostileShown, "1) choice: "+hostileShown+" (a)", id+": accept sent to ask")
	if res := a.wait(call); !strings.Contains(res, `\"choice\":\"a\"`) {
		t.Errorf("the server got: %s", res)
	}
	waitFor(t, "inbox watch to show the close", func() bool { return strings.Contains(watch.String(), "- "+id) })
	shownEscaped(t, "inbox watch", watch.String(), false, "message: "+hostileShown)

	// An event whose method and title carry it.
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "event/" + mcptest.Hostile, "params": map[string]any{"title": "title: " + mcptest.Hostile}})
	openGateway(t, in.Data).tool("mail__emit_raw", map[string]any{"line": string(line)})
	waitFor(t, "the event", func() bool { return len(in.events().Events) == 1 })
	_, out, _ = in.Run("events")
	shownEscaped(t, "events", out, false, "event/"+hostileShown, `\u202e[ssh]`)
	if _, out, _ = in.Run("events", "--json"); !json.Valid([]byte(out)) || !strings.Contains(out, `"method": "event/\u001b[2J`) {
		t.Errorf("events --json:\n%s", out)
	}

	_, out, _ = in.Run("status")
	shownEscaped(t, "status", out, false, "gone")
}

// escapeText and escapeWriter on their own: every kind of control, bytes
// that are not UTF-8, and a character split across two writes.
func TestEscapeText(t *testing.T) {
	for in, want := range map[string]string{
		"plain, ünïcode ✓\tand\nlines":                                 "plain, ünïcode ✓\tand\nlines",
		"\x00\x1b\a\b\f\r\v\x7f":                                       `\x00\x1b\a\b\f\r\v\x7f`,
		"\u0085\u009b\u200e\u202a\u202e\u2066\u2069\u061c\u2028\u2029": `\u0085\u009b\u200e\u202a\u202e\u2066\u2069\u061c\u2028\u2029`,
		"bad \x9b\xff\xe2\x80 end":                                     `bad \x9b\xff\xe2\x80 end`,
		`a \x1b stays`:                                                 `a \x1b stays`,
	} {
		if got := escapeText(in); got != want {
			t.Errorf("escapeText(%q) = %q; want %q", in, got, want)
		}
	}
	if got := oneLine(" a\t\n b\r c "); got != `a b\r c` {
		t.Errorf("oneLine = %q", got)
	}
	var b strings.Builder
	w := &escapeWriter{w: &b}
	for _, p := range []string{"\xe2\x80", "\xae rtl \x1b", "[2J \xc3", "\xa9 \xe2"} {
		w.Write([]byte(p))
	}
	w.Flush()
	if want := `\u202e rtl \x1b[2J é \xe2`; b.String() != want {
		t.Errorf("escapeWriter wrote %q; want %q", b.String(), want)
	}
}
