//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// Only the person answers (DESIGN.md §14). A server that finds the
// control socket runs the real command line against it: its child, and
// an orphan that called setsid() after a double fork and cleared its
// environment (reparented to mcptray, the subreaper). Each action that
// decides for the person is refused and shown as an event; the server
// still reads its own inbox requests, and no other server's; the person's
// own answers, from this test (not a descendant of mcptray) and from a
// process of its own, still work.
func TestOnlyThePersonAnswers(t *testing.T) {
	evil := fakeEntry(t, "commander")
	evil["x-mcptray"] = map[string]any{"approve": "all"} // its own requests for the inbox
	in := startDaemon(t, map[string]any{
		"notes": fakeEntry(t, "echo", "MCPTRAY_FAKE_ANNOTATED", "1"),
		"evil":  evil,
	})
	in.WaitFor("ready", states("notes", "ready", "evil", "ready"))
	cfgBefore, _ := os.ReadFile(in.Config)

	w := watchInbox(t, in.Data)
	assistant := openGateway(t, in.Data)
	done := callAsync(t, assistant, "notes__delete_note", map[string]any{"id": 1})
	req := w.next(inbox.KindApproval)

	exe, _ := os.Executable()
	evilShell := &serverShell{t: t, in: in, g: openGateway(t, in.Data), tool: "evil__run"}
	run, runArgv, check, refused := evilShell.run, evilShell.runArgv, evilShell.check, evilShell.refused
	// The person lets the attacking session call run; another session's
	// call waits in the inbox: a request of evil's own.
	waitFor(t, "evil's run routed", func() bool { return slices.Contains(evilShell.g.listedTools(), "evil__run") })
	first := callAsync(t, evilShell.g, "evil__run", mcptest.RunArgs{Argv: []string{"true"}})
	if code, _, errs := in.Run("inbox", "answer", w.next(inbox.KindApproval).ID, "--session"); code != 0 {
		t.Fatalf("allowing the session: %s", errs)
	}
	if _, isErr := awaitCall(t, first); isErr != "" {
		t.Fatal("the session's first run was refused")
	}
	pending := callAsync(t, openGateway(t, in.Data), "evil__run", mcptest.RunArgs{Argv: []string{"true"}})
	own := w.next(inbox.KindApproval)

	// Its own request, through mcptray's command line; another server's,
	// which it cannot see, straight on the socket; the same from an
	// orphan.
	refused(false, "inbox", "answer", own.ID, "--yes")
	refused(false, "inbox", "answer", own.ID, "--always")
	if r := run(false, "inbox", "answer", req.ID, "--yes"); r.Code == 0 {
		t.Errorf("a server answered another server's request it cannot see: %q", r.Stdout)
	}
	answer := `{"action": "accept", "content": {}}`
	evilShell.postRefused(false, "POST", "/v1/inbox/"+req.ID, answer)
	evilShell.postRefused(true, "POST", "/v1/inbox/"+req.ID, answer)
	evilShell.postRefused(true, "POST", "/v1/inbox/"+own.ID, answer)
	refused(false, "toggle", "notes", "off")
	refused(true, "toggle", "evil", "on")
	refused(false, "remove", "notes")
	refused(false, "tools", "notes", "off", "read_note")
	refused(false, "approve", "notes")
	refused(false, "inputs", "forget", "anything")
	add := append(append([]string{exe, "add", "extra"}, in.FlagsFirst...), "--", "/bin/true")
	check(runArgv(false, add...), false, "add")
	refused(false, "secret", "remove", "anything")
	check(runArgv(false, append([]string{"/bin/sh", "-c", `printf v | "$0" secret set NAME "$@"`, exe}, in.FlagsFirst...)...), false, "secret", "set")
	// A server reads its own requests, and no other server's; an orphan
	// that names no server, none.
	if r := run(false, "inbox", "--json"); r.Code != 0 || !strings.Contains(r.Stdout, own.ID) || strings.Contains(r.Stdout, req.ID) {
		t.Errorf("a server's inbox --json (its own %s, not %s): exit %d %q %q", own.ID, req.ID, r.Code, r.Stdout, r.Stderr)
	}
	if r := run(true, "inbox", "--json"); r.Code != 0 || strings.Contains(r.Stdout, own.ID) || strings.Contains(r.Stdout, req.ID) {
		t.Errorf("an orphan's inbox --json: exit %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	if code, out, _ := in.Run("inbox", "--json"); code != 0 || !strings.Contains(out, own.ID) || !strings.Contains(out, req.ID) {
		t.Errorf("the person's inbox --json: %d %q", code, out)
	}
	if r := run(true, "status"); r.Code != 0 {
		t.Errorf("a detached server process's status: exit %d %q", r.Code, r.Stderr)
	}

	if cfg, _ := os.ReadFile(in.Config); string(cfg) != string(cfgBefore) {
		t.Errorf("a server edited mcp.json:\n%s", cfg)
	}

	// Shown: an event of the server for each refusal, and the log.
	// The orphans name no server: their link to it is gone.
	// The writer stores events a moment after the refusal.
	var refusals map[string]int
	waitFor(t, "a refusal event for each refusal", func() bool {
		refusals = map[string]int{}
		for _, ev := range in.allEvents().Events {
			if ev.Method == app.RefusedMethod {
				refusals[ev.Server]++
			}
		}
		return refusals["evil"]+refusals["mcptray"] >= 14
	})
	if refusals["evil"] != 11 || refusals["mcptray"] != 3 || len(refusals) != 2 {
		t.Errorf("refusal events by server: %v; want evil 11, mcptray 3", refusals)
	}
	if !strings.Contains(in.Stderr.String(), "refused a server's request on the control socket") {
		t.Error("the log does not say so")
	}

	// The person: from a process of its own, and in-process.
	if code, _, errs := in.runCLI("", "tools", "notes", "off", "read_note"); code != 0 {
		t.Errorf("the person's tools off: %s", errs)
	}
	if code, out, errs := in.Run("inbox", "answer", req.ID, "--yes"); code != 0 || !strings.Contains(out, "allowed") {
		t.Fatalf("the person's answer: %d %q %s", code, out, errs)
	}
	if text, isErr := awaitCall(t, done); isErr != "" {
		t.Errorf("the allowed call: %q %s", text, isErr)
	}
	if code, _, errs := in.Run("inbox", "answer", own.ID, "--decline"); code != 0 {
		t.Errorf("the person's decline: %s", errs)
	}
	if _, isErr := awaitCall(t, pending); isErr != "isError" {
		t.Error("the declined run went ahead")
	}
}

// serverShell has a commander server (mcptest) run command lines: a
// server turned against mcptray.
type serverShell struct {
	t    *testing.T
	in   *instance
	g    *gatewayConn
	tool string // the server's run tool, as the gateway names it
}

// runArgv has the server run argv as its child, or (detach) as an orphan
// that called setsid() after a double fork, with no MCPTRAY_ variable.
func (s *serverShell) runArgv(detach bool, argv ...string) mcptest.RunResult {
	s.t.Helper()
	return s.runWith(mcptest.RunArgs{Argv: argv, Detach: detach, ClearEnv: detach, Env: []string{"MCPTRAY_TEST_AS_MCPTRAY=1"}})
}

// post has the server send one request straight to the control socket,
// as its child or (detach) as an orphan, and checks it is refused.
func (s *serverShell) postRefused(detach bool, method, path, body string) {
	s.t.Helper()
	exe, _ := os.Executable()
	req, _ := json.Marshal(mcptest.PostRequest{Socket: control.SocketPath(s.in.Data), Method: method, Path: path, Body: body})
	r := s.runWith(mcptest.RunArgs{Argv: []string{exe}, Mode: "poster", Detach: detach, ClearEnv: detach, Env: []string{mcptest.PostEnv + "=" + string(req)}})
	if r.Code == 0 || !strings.HasPrefix(r.Stdout, "status 403\n") || !strings.Contains(r.Stdout, "refused: only the person may") {
		s.t.Errorf("a server's %s %s (detached %t): exit %d, stdout %q, stderr %q; want a refusal", method, path, detach, r.Code, r.Stdout, r.Stderr)
	}
}

func (s *serverShell) runWith(args mcptest.RunArgs) mcptest.RunResult {
	s.t.Helper()
	args.Env = append(args.Env, "GORACE=atexit_sleep_ms=0")
	res := s.g.tool(s.tool, args)
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	var out mcptest.RunResult
	if err := json.Unmarshal(res, &r); err != nil || len(r.Content) == 0 || json.Unmarshal([]byte(r.Content[0].Text), &out) != nil {
		s.t.Fatalf("run %v: %s", args.Argv, res)
	}
	return out
}

// run has the server run mcptray (this test binary as mcptray) with args,
// then the instance's flags.
func (s *serverShell) run(detach bool, args ...string) mcptest.RunResult {
	s.t.Helper()
	exe, _ := os.Executable()
	return s.runArgv(detach, append(append([]string{exe}, args...), s.in.FlagsFirst...)...)
}

// check fails the test unless r is a refusal.
func (s *serverShell) check(r mcptest.RunResult, detach bool, args ...string) {
	s.t.Helper()
	if r.Code == 0 || !strings.Contains(r.Stderr, "refused: only the person may") {
		s.t.Errorf("a server's %q (detached %t): exit %d, stdout %q, stderr %q; want a refusal", strings.Join(args, " "), detach, r.Code, r.Stdout, r.Stderr)
	}
	s.t.Logf("%s (detached %t): %s", strings.Join(args, " "), detach, r.Stderr)
}

// refused runs mcptray with args as run does, and checks it is refused.
func (s *serverShell) refused(detach bool, args ...string) {
	s.t.Helper()
	s.check(s.run(detach, args...), detach, args...)
}

// A new entry written into mcp.json waits for the person's yes; the
// server that wrote it can neither answer the launch request nor approve
// the entry; the person can.
func TestOnlyThePersonApprovesALaunch(t *testing.T) {
	evil := fakeEntry(t, "commander")
	evil["x-mcptray"] = map[string]any{"approve": "off"}
	in := startAskingDaemon(t, map[string]any{"evil": evil})
	in.WaitFor("ready", states("evil", "ready"))
	w := watchInbox(t, in.Data)
	sh := &serverShell{t: t, in: in, g: openGateway(t, in.Data), tool: "evil__run"}

	writeConfig(t, in.Config, map[string]any{"evil": evil, "newbie": fakeEntry(t, "echo")})
	req := w.next(inbox.KindLaunch)
	in.WaitFor("newbie needs approval", states("newbie", control.StateNeedsApproval))
	// The request is not the server's (it is newbie's): it cannot see it,
	// and straight on the socket it is refused.
	answer := `{"action": "accept", "content": {}}`
	sh.postRefused(false, "POST", "/v1/inbox/"+req.ID, answer)
	sh.postRefused(true, "POST", "/v1/inbox/"+req.ID, answer)
	sh.refused(false, "approve", "newbie")
	sh.refused(true, "approve", "newbie")
	if st, _ := state(in.Status(), "newbie"); st != control.StateNeedsApproval {
		t.Fatalf("newbie is %s after the server's tries", st)
	}
	if code, out, errs := in.Run("approve", "newbie"); code != 0 || !strings.Contains(out, "newbie approved") {
		t.Fatalf("the person's approve: %d %q %s", code, out, errs)
	}
	in.WaitFor("newbie ready", states("newbie", "ready"))
}
