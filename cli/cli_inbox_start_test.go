//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A server that asks for a passphrase while it starts (unlock at start:
// after notifications/initialized, or while it handles tools/list, and
// before it lists its tools) gets the inbox like any other: the request
// shows under the server's name with no tool, while the server is still
// starting; the answer given with `mcptray inbox answer` reaches it; it
// becomes ready and its tools work. The passphrase it echoes on stderr is
// redacted in its log, and is nowhere under DATA or in mcptray's log.
func TestInboxWhileStarting(t *testing.T) {
	for _, mode := range []string{"unlock", "unlock-list"} {
		t.Run(mode, func(t *testing.T) {
			const secret = "c0rrect-h0rse-unl0ck"
			rec := filepath.Join(t.TempDir(), "record")
			in := startDaemon(t, map[string]any{
				"vault": fakeEntry(t, mode, "MCPTRAY_FAKE_RECORD", rec),
				"echo":  fakeEntry(t, "echo"),
			})
			l, raw := in.waitRequest("vault")
			r := l.Requests[0]
			if r.Tool != "" || r.Mode != "form" || r.Message != "Passphrase to unlock the vault" || len(r.Fields) != 1 ||
				r.Fields[0].Name != "passphrase" || !r.Fields[0].Secret || !r.Fields[0].Required {
				t.Fatalf("the request while starting: %s", raw)
			}
			// The server waits for the person: still starting, while the
			// others are ready.
			st := in.WaitFor("echo ready", states("echo", "ready"))
			if s, _ := state(st, "vault"); s != "starting" {
				t.Errorf("vault is %q while its request waits, want starting", s)
			}

			code, out, errs := in.runCLI(secret+"\n", "inbox", "answer", r.ID, "--field", "passphrase=-")
			if code != 0 || out != r.ID+": accept sent to vault\n" || strings.Contains(out+errs, secret) {
				t.Fatalf("inbox answer: exit %d %q %q", code, out, errs)
			}
			in.WaitFor("vault ready", states("vault", "ready"))
			a := startAssistant(t, in, map[string]any{})
			if res := a.wait(a.call("vault__status", map[string]any{})); !strings.Contains(res, `"text":"unlocked"`) || strings.Contains(res, secret) {
				t.Errorf("vault__status: %s", res)
			}
			if b, err := os.ReadFile(rec); err != nil || !strings.Contains(string(b), `"passphrase":"`+secret+`"`) {
				t.Errorf("the server did not receive the passphrase (%v)", err)
			}
			code, logs, _ := in.Run("logs", "vault")
			if code != 0 || !strings.Contains(logs, "unlocked the vault with [redacted]") {
				t.Errorf("the server's log lacks its redacted echo (exit %d)", code)
			}
			if strings.Contains(logs, secret) {
				t.Error("the passphrase is in the server's log")
			}
			in.Cmd.Process.Signal(syscall.SIGTERM)
			<-in.Exited
			if strings.Contains(in.Stderr.String(), secret) {
				t.Error("the passphrase is in mcptray's own log")
			}
			noSecretIn(t, in.Data, secret)
		})
	}
}
