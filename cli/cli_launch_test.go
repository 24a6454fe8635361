//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/internal/testdaemon"
)

// startAskingDaemon starts a daemon that asks before a new or changed
// entry runs, as mcptray does (the other tests' daemons trust edits).
func startAskingDaemon(t *testing.T, servers map[string]any, env ...string) *instance {
	t.Helper()
	dir := t.TempDir()
	in := &instance{&testdaemon.Instance{T: t, Config: filepath.Join(dir, "mcp.json"), Data: filepath.Join(dir, "data"),
		Env: append([]string{"MCPTRAY_TEST_ASK_EDITS=1"}, env...)}}
	in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
	writeConfig(t, in.Config, servers)
	in.Start()
	return in
}

// An entry added by a plain write of mcp.json stays needs-approval, the
// inbox saying which file, which entry and what it runs (no secret value),
// until `mcptray approve`; changing its args asks again (answered in the
// inbox); a toggle and mcptray's own edits do not; the entries present at
// the first start run, and the log says they were approved.
func TestNewEntryNeedsApproval(t *testing.T) {
	const secret = "s3cret-from-the-environment"
	in := startAskingDaemon(t, map[string]any{"a": fakeEntry(t, "echo")}, "NOTES_TOKEN="+secret)
	in.WaitFor("a ready", states("a", "ready"))
	w := watchInbox(t, in.Data)

	b := fakeEntry(t, "echo", "MCPTRAY_FAKE_MARK", "${env:NOTES_TOKEN}")
	b["args"] = []string{"--flag", "${env:NOTES_TOKEN}"}
	writeConfig(t, in.Config, map[string]any{"a": fakeEntry(t, "echo"), "b": b})
	req := w.next(inbox.KindLaunch)
	st := in.WaitFor("b needs approval", states("b", control.StateNeedsApproval))
	if l := req.Launch; l == nil || req.Server != "b" || l.Entry != "b" || l.File != in.Config || l.Previous != "" ||
		!strings.HasSuffix(l.CommandLine, " --flag '${env:NOTES_TOKEN}'") || !strings.Contains(strings.Join(l.EnvNames, ","), "MCPTRAY_FAKE_MARK") {
		t.Errorf("launch request %+v %+v", req, req.Launch)
	}
	_, out, _ := in.Run("inbox", "--json")
	_, status, _ := in.Run("status", "--json")
	if strings.Contains(out+status, secret) || !strings.Contains(out, `"kind": "launch"`) {
		t.Errorf("inbox or status shows the secret, or no launch request:\n%s\n%s", out, status)
	}
	if _, pid := state(st, "b"); pid != 0 {
		t.Error("b runs before it is approved")
	}
	if code, out, errs := in.Run("approve", "b"); code != 0 || !strings.Contains(out, "b approved") {
		t.Fatalf("approve: %d %q %s", code, out, errs)
	}
	in.WaitFor("b ready", states("b", "ready"))
	if code, _, errs := in.Run("approve", "a"); code != 1 || !strings.Contains(errs, "does not wait for approval") {
		t.Errorf("approve a ready server: %d %s", code, errs)
	}

	// Changed args ask again; the inbox's yes lets it run.
	b["args"] = []string{"--flag", "${env:NOTES_TOKEN}", "--more"}
	writeConfig(t, in.Config, map[string]any{"a": fakeEntry(t, "echo"), "b": b})
	req = w.next(inbox.KindLaunch)
	if req.Launch == nil || !strings.HasSuffix(req.Launch.Previous, " --flag '${env:NOTES_TOKEN}'") || !strings.HasSuffix(req.Launch.CommandLine, " --more") {
		t.Errorf("changed entry's request %+v", req.Launch)
	}
	in.WaitFor("b needs approval again", states("b", control.StateNeedsApproval))
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--decline"); code != 0 {
		t.Fatal(errs)
	}
	st = in.WaitFor("declined", func(st statusJSON) bool {
		for _, s := range st.Servers {
			if s.Name == "b" {
				return strings.Contains(s.Error, "declined")
			}
		}
		return false
	})
	if s, _ := state(st, "b"); s != control.StateNeedsApproval {
		t.Errorf("declined: b is %s", s)
	}
	if code, _, errs := in.Run("restart", "b"); code != 0 { // a restart asks again
		t.Fatal(errs)
	}
	req = w.next(inbox.KindLaunch)
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--yes"); code != 0 {
		t.Fatal(errs)
	}
	in.WaitFor("b ready again", states("b", "ready"))

	// A toggle, and mcptray's own edits, run without a question.
	for _, args := range [][]string{{"toggle", "b", "off"}, {"toggle", "b", "on"}, {"tools", "b", "off", "add"}} {
		if code, _, errs := in.Run(args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	in.WaitFor("b ready after the toggle", states("b", "ready"))
	raw, _ := os.ReadFile(in.Config)
	if !strings.Contains(string(raw), `"disabledTools": ["add"]`) {
		t.Errorf("mcp.json:\n%s", raw)
	}
	if !strings.Contains(in.Stderr.String(), "first start of this version") {
		t.Errorf("the log does not say the first start's entries were approved:\n%s", in.Stderr)
	}
	select {
	case ev := <-w.ch:
		if ev.Kind == inbox.Added {
			t.Errorf("a question after the toggle: %+v", ev.Request)
		}
	default:
	}

	// x-mcptray.trustConfigEdits: true runs a new entry at once.
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"a": fakeEntry(t, "echo"), "b": b, "c": fakeEntry(t, "echo")},
		"x-mcptray": map[string]any{"trustConfigEdits": true}})
	os.WriteFile(in.Config, cfg, 0o600)
	in.WaitFor("c ready without a question", states("c", "ready"))
}
