//go:build linux

package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/trust"
	"github.com/mcptray/mcptray/internal/testdaemon"
)

// Issues 28 and 34 as reported, with the real daemon: a new NODE_OPTIONS
// value waits for a yes, the inbox showing it; then `: > DATA/mcptray.db`
// and a restart approve nothing (the install's marker is in the keyring):
// every entry waits behind one request, answered from the CLI.
func TestEmptiedDatabaseApprovesNothing(t *testing.T) {
	dir := t.TempDir()
	testdaemon.Keyring(t, trust.InstallMarkName(dir+"/data"))
	entry := func(nodeOptions string) map[string]any {
		return fakeEntry(t, "echo", "NODE_OPTIONS", nodeOptions, "API_KEY", "key-secret")
	}
	in := &instance{&testdaemon.Instance{T: t, Config: dir + "/mcp.json", Data: dir + "/data", Env: []string{"MCPTRAY_TEST_ASK_EDITS=1"}}}
	in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
	writeConfig(t, in.Config, map[string]any{"a": entry("--no-warnings")})
	in.Start()
	in.WaitFor("a ready", states("a", "ready"))

	writeConfig(t, in.Config, map[string]any{"a": entry("--require /tmp/evil.js"), "b": fakeEntry(t, "echo")})
	in.WaitFor("a and b need approval", states("a", control.StateNeedsApproval, "b", control.StateNeedsApproval))
	_, out, _ := in.Run("inbox", "--json")
	if !strings.Contains(out, "NODE_OPTIONS: --require /tmp/evil.js") || strings.Contains(out, "key-secret") {
		t.Errorf("inbox:\n%s", out)
	}
	if code, _, errs := in.Run("approve", "a"); code != 0 {
		t.Fatal(errs)
	}
	in.WaitFor("a ready", states("a", "ready", "b", control.StateNeedsApproval))
	testdaemon.Stop(t, in.Instance)

	if err := os.Truncate(in.Data+"/mcptray.db", 0); err != nil {
		t.Fatal(err)
	}
	os.Remove(in.Data + "/mcptray.db-wal")
	os.Remove(in.Data + "/mcptray.db-shm")
	in.Start()
	in.WaitFor("every entry waits", states("a", control.StateNeedsApproval, "b", control.StateNeedsApproval))
	w := watchInbox(t, in.Data)
	req := w.next(inbox.KindLaunchReset)
	if req.Reset == nil || len(req.Reset.Entries) != 2 {
		t.Fatalf("reset request %+v", req)
	}
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--yes"); code != 0 {
		t.Fatal(errs)
	}
	in.WaitFor("all ready", states("a", "ready", "b", "ready"))
}
