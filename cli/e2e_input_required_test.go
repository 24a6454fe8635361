//go:build linux

package cli

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// Issue 32's done-when, on the CLI's side: a server on 2026-07-28 asks a
// password through an input_required result (not elicitation/create); it
// shows in the inbox like any secret question, `mcptray inbox answer`
// answers it from stdin, mcptray retries the call with the answer and
// the server's requestState (the server checks both), and the assistant
// gets only the final result, the password redacted. The password is
// nowhere under DATA (the SQLite database and its WAL, the servers'
// logs), in mcptray's own log, in `inbox --json` or in the bytes the
// assistant received.
func TestInputRequiredAnsweredByInboxAnswer(t *testing.T) {
	const secret = "s3cret-Input-Required-7"
	in := startDaemon(t, map[string]any{"vault": fakeEntry(t, "new-wire")})
	in.WaitFor("ready", states("vault", "ready"))
	if _, logs, _ := in.Run("logs", "vault"); !strings.Contains(logs, "protocol 2026-07-28") {
		t.Fatalf("the server's session is not on 2026-07-28:\n%s", logs)
	}
	a := startAssistant(t, in, map[string]any{})
	call := a.call("vault__login", map[string]any{"user": "ada"})

	l, raw := in.waitRequest("vault")
	r := l.Requests[0]
	if r.Tool != "login" || r.Mode != "form" || r.Message != "Password for ada" || len(r.Fields) != 1 ||
		r.Fields[0].Name != "password" || !r.Fields[0].Secret || !r.Fields[0].Required {
		t.Fatalf("inbox --json: %s", raw)
	}
	code, out, errs := in.runCLI(secret+"\n", "inbox", "answer", r.ID, "--field", "password=-")
	if code != 0 || out != r.ID+": accept sent to vault\n" || strings.Contains(out+errs, secret) {
		t.Fatalf("inbox answer: exit %d %q %q", code, out, errs)
	}
	res := a.wait(call)
	if !strings.Contains(res, "action accept, logged in ada with [redacted]") {
		t.Errorf("tool result upstream: %s", res)
	}
	upstream := a.out.String()
	for _, bad := range []string{secret, "input_required", "requestState", "inputRequests", "login:ada"} {
		if strings.Contains(upstream, bad) {
			t.Errorf("the assistant received %q:\n%s", bad, upstream)
		}
	}
	if _, after, _ := in.Run("inbox", "--json"); strings.Contains(after, secret) {
		t.Error("the secret is in inbox --json")
	}
	if _, logs, _ := in.Run("logs", "vault"); strings.Contains(logs, secret) {
		t.Error("the secret is in the server's log")
	}

	// The session goes on: the next call asks again and a decline ends it.
	call = a.call("vault__login", map[string]any{"user": "bob"})
	l, _ = in.waitRequest("vault")
	if code, out, errs := in.runCLI("", "inbox", "answer", l.Requests[0].ID, "--decline"); code != 0 {
		t.Fatalf("decline: exit %d %q %q", code, out, errs)
	}
	if res := a.wait(call); !strings.Contains(res, "action decline, logged in bob with ") {
		t.Errorf("after a decline: %s", res)
	}

	in.Cmd.Process.Signal(syscall.SIGTERM)
	<-in.Exited
	if strings.Contains(in.Stderr.String(), secret) {
		t.Error("the secret is in mcptray's own log")
	}
	noSecretIn(t, in.Data, secret)
	if entries, err := os.ReadDir(in.Data); err != nil || len(entries) == 0 {
		t.Errorf("nothing under DATA to search (%v)", err)
	}
}
