//go:build linux

package cli

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/mcptest"
)

// cursorArgs is the args of the mcptray entry in home's Cursor config,
// without spaces.
func cursorArgs(t *testing.T, home string) string {
	t.Helper()
	text := readString(t, filepath.Join(home, ".cursor", "mcp.json"))
	_, after, ok := strings.Cut(text, `"args": `)
	if !ok {
		t.Fatalf("no args in:\n%s", text)
	}
	args, _, _ := strings.Cut(after, "]")
	return strings.Join(strings.Fields(args+"]"), "")
}

// `mcptray setup CLIENT` offers dynamic mode past the tools the assistant
// handles well, counted by the running instance (52 here): without a
// terminal it says so with the flag, and writes the assistant's own
// mode; never for Claude Code (it searches tools itself), nor under the
// threshold (Gemini CLI: 60). --tools chooses; an entry in dynamic mode
// stays so when setup runs again; a bad mode is a usage error.
func TestSetupOffersDynamicMode(t *testing.T) {
	in := startDaemon(t, map[string]any{"many": fakeEntry(t, "echo", mcptest.ToolCountEnv, "50")})
	in.WaitFor("many ready", states("many", "ready"))
	home := t.TempDir()

	code, out, errs := runHome(t, home, "", "setup", "cursor", "--data", in.Data)
	if code != 0 || !strings.Contains(out, "note: mcptray serves 52 tools, more than Cursor handles well (40); `mcptray setup cursor --tools dynamic` gives it a tool search") {
		t.Errorf("setup cursor: %d %q %q", code, out, errs)
	}
	if got := cursorArgs(t, home); got != `["connect"]` {
		t.Errorf("setup switched Cursor's mode by itself: %s", got)
	}
	for _, client := range []string{"claude-code", "gemini", "vscode"} {
		if code, out, errs := runHome(t, home, "", "setup", client, "--data", in.Data); code != 0 || strings.Contains(out, "dynamic") {
			t.Errorf("setup %s: %d %q %q", client, code, out, errs)
		}
	}

	if code, out, errs := runHome(t, home, "", "setup", "cursor", "--tools", "dynamic", "--data", in.Data); code != 0 || strings.Contains(out, "note:") {
		t.Errorf("setup cursor --tools dynamic: %d %q %q", code, out, errs)
	}
	if got := cursorArgs(t, home); got != `["connect","--tools","dynamic"]` {
		t.Errorf("--tools dynamic wrote %s", got)
	}
	if code, out, _ := runHome(t, home, "", "setup", "cursor", "--data", in.Data); code != 0 || !strings.Contains(out, "set up already") {
		t.Errorf("setup cursor again: %d %q", code, out)
	}
	if code, out, _ := runHome(t, home, "", "setup", "cursor", "--tools", "live", "--data", in.Data); code != 0 || cursorArgs(t, home) != `["connect"]` {
		t.Errorf("setup cursor --tools live: %d %q %s", code, out, cursorArgs(t, home))
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"setup", "cursor", "--tools", "fast"}, `mcptray: unknown tools mode "fast" (want live, stable or dynamic)`},
		{[]string{"setup", "cursor", "--tools", "dynamic", "--remove"}, "mcptray: --tools and --remove do not go together"},
		{[]string{"setup", "--tools", "dynamic"}, "mcptray: --dry-run, --remove and --tools need a CLIENT"},
	} {
		if code, _, errs := runHome(t, home, "", bad.args...); code != 2 || !strings.HasPrefix(errs, bad.want) {
			t.Errorf("%v: exit %d %q", bad.args, code, errs)
		}
	}
}

// On a terminal, setup asks; "y" writes dynamic mode.
func TestSetupAsksForDynamicMode(t *testing.T) {
	in := startDaemon(t, map[string]any{"many": fakeEntry(t, "echo", mcptest.ToolCountEnv, "50")})
	in.WaitFor("many ready", states("many", "ready"))
	home := t.TempDir()
	master, tty := openPTY(t)
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "setup", "cursor", "--data", in.Data)
	cmd.Env = homeEnv(home)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	screen := new(syncBuffer)
	copied := make(chan struct{})
	go func() { io.Copy(screen, master); close(copied) }()
	waitFor(t, "the question", func() bool {
		return strings.Contains(screen.String(), "mcptray serves 52 tools, more than Cursor handles well (40). Give it dynamic mode instead") && strings.Contains(screen.String(), "[y/N]")
	})
	master.Write([]byte("y\n"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("setup on a terminal: %v\n%s", err, screen)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("setup on a terminal did not finish")
	}
	if got := cursorArgs(t, home); got != `["connect","--tools","dynamic"]` {
		t.Errorf("answered y, wrote %s", got)
	}
}
