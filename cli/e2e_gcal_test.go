//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testdaemon"
	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/calendar"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
	gcal "google.golang.org/api/calendar/v3"
)

// gcalSetup is a Google account signed in against the fake (client file
// imported and `auth google add` driven through the BROWSER script), and
// mcp.json with the default config's entry of one Google server (gcal, or
// gmail for newGmailSetup), switched on, polling every second.
type gcalSetup struct {
	*googleEnv
	server string // "gcal" or "gmail"
	config string
	outs   *strings.Builder // what the in-process CLI commands printed
}

func newGcalSetup(t *testing.T) *gcalSetup {
	t.Helper()
	// approve off: the run calls update_event and delete_event, which would ask first.
	return newGoogleServerSetup(t, "gcal", "calendar", map[string]any{"calendarPoll": "1s"}, map[string]any{"approve": "off"})
}

// newGoogleServerSetup signs ada in for the services scopes and writes
// mcp.json with server's entry, x-mcptray.google settings and the other
// top-level x-mcptray settings top.
func newGoogleServerSetup(t *testing.T, server, scopes string, settings, top map[string]any) *gcalSetup {
	t.Helper()
	g := newGoogleEnv(t)
	clientFile := filepath.Join(t.TempDir(), "client_secret_desktop.json")
	os.WriteFile(clientFile, g.fake.ClientFile(), 0o600)
	g.mustRun("auth", "google", "client", clientFile)
	if out := g.mustRun("auth", "google", "add", "--scopes", scopes); out != "added ada@example.com ("+scopes+")\n" {
		t.Fatalf("add: %q", out)
	}
	s := &gcalSetup{googleEnv: g, server: server, config: filepath.Join(t.TempDir(), "mcp.json"), outs: new(strings.Builder)}
	x := map[string]any{"google": settings}
	for k, v := range top {
		x[k] = v
	}
	cfg, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{server: map[string]any{"command": "${self}", "args": []string{"serve", server},
			"env": map[string]string{"GORACE": "atexit_sleep_ms=0"}}},
		"x-mcptray": x,
	})
	os.WriteFile(s.config, cfg, 0o600)
	return s
}

// daemon starts `mcptray daemon` (bin, "" for the test binary) on the
// setup's config and data dir, with its environment (BROWSER, the fake's
// API URL).
func (s *gcalSetup) daemon(bin string) *instance {
	s.t.Helper()
	in := &instance{&testdaemon.Instance{T: s.t, Config: s.config, Data: s.data, Env: s.env, Bin: bin}}
	in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
	in.Start()
	return in
}

// run runs a CLI command against in and keeps its output.
func (s *gcalSetup) run(in *instance, args ...string) (int, string, string) {
	s.t.Helper()
	code, out, errs := in.Run(args...)
	s.outs.WriteString(out + errs)
	return code, out, errs
}

// waitSynced waits for the poller's first sync (its cursors file), after
// which a new event is announced.
func (s *gcalSetup) waitSynced() {
	s.t.Helper()
	waitFor(s.t, "the first calendar sync", func() bool {
		b, err := os.ReadFile(filepath.Join(s.data, calendar.CursorsFile))
		return err == nil && strings.Contains(string(b), "ada@example.com")
	})
}

// waitEvent polls `mcptray events --json --server SERVER` until an event
// of method whose params hold want shows, and returns its params.
func (s *gcalSetup) waitEvent(in *instance, method, want string) map[string]any {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, out, errs := s.run(in, "events", "--json", "--server", s.server)
		if code != 0 {
			s.t.Fatalf("events --json: %d %s", code, errs)
		}
		var l eventsJSON
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			s.t.Fatalf("events --json: %v\n%s", err, out)
		}
		for _, e := range l.Events {
			if e.Method == method && strings.Contains(string(e.Params), want) {
				var p map[string]any
				json.Unmarshal(e.Params, &p)
				return p
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no %s with %q in mcptray events: %s", method, want, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// invitation is an event bob made on his own device, inviting ada.
func invitation(summary string, start time.Time) *gcal.Event {
	return &gcal.Event{Summary: summary, Organizer: &gcal.EventOrganizer{Email: "bob@example.com"},
		Attendees: []*gcal.EventAttendee{{Email: "bob@example.com", ResponseStatus: "accepted"}, {Email: "ada@example.com"}},
		Start:     &gcal.EventDateTime{DateTime: start.Format(time.RFC3339)},
		End:       &gcal.EventDateTime{DateTime: start.Add(time.Hour).Format(time.RFC3339)}}
}

// calReply is a calendar tool's reply as the assistant gets it.
type calReply = toolReply[map[string]any]

// The end-to-end run of the Calendar server through a real
// `mcptray daemon` and `mcptray connect`: the account is signed in through
// the BROWSER script, every tool works through the gateway, an event made
// "on another device" becomes event/new_calendar_event in `mcptray
// events`, invalid_grant turns into a sign-in request in `mcptray inbox`
// whose answer (the browser again) lets the call succeed, and no token
// nor the client secret is anywhere: DATA, logs, argv, output, upstream.
func TestGcalEndToEnd(t *testing.T) {
	s := newGcalSetup(t)
	in := s.daemon("")
	in.WaitFor("gcal ready", states("gcal", "ready"))
	s.waitSynced()
	a := startAssistant(t, in, map[string]any{})
	// gcal serves 2026-07-28 and older: mcptray asks initialize first and
	// speaks 2025-11-25 to it (downstream.Start), so its sign-in below is
	// an elicitation/create. The 2026-07-28 sign-in (input_required and a
	// retry): mcp/servers/google's TestSignInRetryModel.
	if _, logs, _ := in.Run("logs", "gcal"); !strings.Contains(logs, "protocol 2025-11-25") {
		t.Errorf("gcal's session is not on 2025-11-25:\n%s", logs)
	}

	call := func(tool string, args map[string]any) calReply {
		t.Helper()
		r := parseToolReply[map[string]any](t, a.wait(a.call("gcal__"+tool, args)))
		if r.Result.IsError || r.Result.Structured == nil || len(r.Result.Content) == 0 {
			t.Fatalf("%s: %+v", tool, r.Result)
		}
		return r
	}
	id := a.send("tools/list", map[string]any{})
	list := a.wait(id)
	for _, tool := range []string{"list_calendars", "list_events", "get_event", "create_event", "update_event",
		"delete_event", "respond_to_event", "find_free_time", "current_time"} {
		if !strings.Contains(list, `"gcal__`+tool+`"`) {
			t.Errorf("tools/list lacks gcal__%s", tool)
		}
	}

	// Every tool.
	if r := call("current_time", nil); r.Result.Structured["time_zone"] == nil {
		t.Errorf("current_time: %+v", r.Result.Structured)
	}
	if r := call("list_calendars", nil); !strings.Contains(fmt.Sprint(r.Result.Structured), "ada@example.com") {
		t.Errorf("list_calendars: %+v", r.Result.Structured)
	}
	start := time.Now().Add(24 * time.Hour).Truncate(time.Hour)
	created := call("create_event", map[string]any{"summary": "Standup", "start": start.Format(time.RFC3339),
		"end": start.Add(15 * time.Minute).Format(time.RFC3339), "location": "Room 1"})
	ev, _ := created.Result.Structured["event"].(map[string]any)
	evID, _ := ev["id"].(string)
	if evID == "" {
		t.Fatalf("create_event: %+v", created.Result.Structured)
	}
	if _, ok := s.fake.Event("ada@example.com", "primary", evID); !ok {
		t.Errorf("the event %s is not at Google", evID)
	}
	if r := call("list_events", map[string]any{"time_min": start.Add(-time.Hour).Format(time.RFC3339),
		"time_max": start.Add(time.Hour).Format(time.RFC3339)}); !strings.Contains(fmt.Sprint(r.Result.Structured), "Standup") {
		t.Errorf("list_events: %+v", r.Result.Structured)
	}
	if r := call("get_event", map[string]any{"event_id": evID}); !strings.Contains(fmt.Sprint(r.Result.Structured), "Room 1") {
		t.Errorf("get_event: %+v", r.Result.Structured)
	}
	call("update_event", map[string]any{"event_id": evID, "summary": "Standup (moved)"})
	if stored, _ := s.fake.Event("ada@example.com", "primary", evID); stored == nil || stored.Summary != "Standup (moved)" {
		t.Errorf("update_event did not reach Google: %+v", stored)
	}
	if r := call("find_free_time", map[string]any{"time_min": start.Add(-2 * time.Hour).Format(time.RFC3339),
		"time_max": start.Add(2 * time.Hour).Format(time.RFC3339), "include_weekends": true,
		"working_hours_start": "00:00", "working_hours_end": "23:59"}); r.Result.Structured["busy"] == nil {
		t.Errorf("find_free_time: %+v", r.Result.Structured)
	}

	// An invitation made on another device: announced, then answered.
	inv, err := s.fake.AddEvent("ada@example.com", "primary", invitation("Offsite", start.Add(3*time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	p := s.waitEvent(in, "event/new_calendar_event", `"Offsite"`)
	if p["event_id"] != inv.Id || p["account"] != "ada@example.com" || !strings.HasPrefix(fmt.Sprint(p["title"]), "New event: Offsite") {
		t.Errorf("event/new_calendar_event: %+v", p)
	}
	call("respond_to_event", map[string]any{"event_id": inv.Id, "response": "accepted", "comment": "see you"})
	if stored, _ := s.fake.Event("ada@example.com", "primary", inv.Id); stored.Attendees[1].ResponseStatus != "accepted" {
		t.Errorf("respond_to_event did not reach Google: %+v", stored.Attendees[1])
	}
	call("delete_event", map[string]any{"event_id": evID})
	if stored, ok := s.fake.Event("ada@example.com", "primary", evID); ok && stored.Status != "cancelled" {
		t.Errorf("delete_event: still %+v", stored)
	}
	// Our own event was not announced as new.
	_, out, _ := s.run(in, "events", "--json", "--server", "gcal")
	if strings.Contains(out, `"summary":"Standup"`) || strings.Contains(out, `"summary": "Standup"`) {
		t.Errorf("the assistant's own event was announced: %s", out)
	}

	// invalid_grant: the next start of the server (access tokens live in
	// RAM only) finds the sign-in refused; the next call asks the person.
	s.fake.FailRefresh("ada@example.com", googletest.ExpiredOrRevoked)
	_, pid := state(in.Status(), "gcal")
	if code, _, errs := s.run(in, "restart", "gcal"); code != 0 {
		t.Fatalf("restart gcal: %s", errs)
	}
	in.WaitFor("gcal ready again", func(st statusJSON) bool {
		state, p := state(st, "gcal")
		return state == "ready" && p != pid
	})
	exchanges := s.fake.Counts().Exchanges
	id = a.call("gcal__list_events", map[string]any{})
	l, raw := in.waitRequest("gcal")
	r := l.Requests[0]
	if r.Mode != "url" || !strings.Contains(r.Message, "Sign in to Google again for ada@example.com") ||
		!strings.HasPrefix(r.URL, s.fake.URL+googletest.AuthPath+"?") || !strings.Contains(r.Message, "In production") {
		t.Fatalf("the inbox request: %s", raw)
	}
	if code, out, errs := s.run(in, "inbox", "answer", r.ID, "--yes"); code != 0 || !strings.Contains(out, "accepted; opening") {
		t.Fatalf("inbox answer: %d %q %q", code, out, errs)
	}
	reply := parseToolReply[map[string]any](t, a.wait(id))
	if reply.Result.IsError || reply.Result.Structured == nil {
		t.Fatalf("list_events after signing in again: %+v", reply.Result)
	}
	if s.fake.Counts().Exchanges != exchanges+1 {
		t.Errorf("the loopback sign-in did not complete at the fake: %+v", s.fake.Counts())
	}
	if l := s.list(); len(l.Accounts) != 1 || l.Accounts[0].Status != google.StatusOK {
		t.Errorf("after signing in again: %+v", l)
	}
	if strings.Contains(a.out.String(), "elicitation/create") {
		t.Errorf("the assistant was asked to sign in: %s", a.out.String())
	}

	// Secrets, by value: argv of the daemon and the server while they
	// run, then DATA (logs and the database included), the daemon's log,
	// the commands' output, the upstream bytes.
	argv := map[string]string{}
	for _, pid := range []int{in.Cmd.Process.Pid, func() int { _, p := state(in.Status(), "gcal"); return p }(), a.cmd.Process.Pid} {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if len(b) == 0 {
			t.Errorf("no argv of process %d", pid)
		}
		argv["the argv of process "+strconv.Itoa(pid)] = string(b)
	}
	a.in.Close()
	testdaemon.Stop(t, in.Instance)
	s.searchAll(map[string]string{
		"mcptray's log":       in.Stderr.String(),
		"the upstream bytes":  a.out.String(),
		"the CLI's output":    s.outs.String(),
		"argv (daemon, gcal)": fmt.Sprint(argv),
		"the inbox request":   raw,
	})
	if b, _ := os.ReadFile(filepath.Join(s.data, "logs", "gcal.log")); len(b) == 0 {
		t.Errorf("the gcal server's log is empty")
	}
}

// searchAll is searchSecrets (the data dir, the browser's records, the
// auth commands' output) plus more places, by value.
func (s *gcalSetup) searchAll(places map[string]string) {
	s.t.Helper()
	secrets := append(s.fake.Issued(), s.fake.ClientSecret())
	if len(secrets) < 4 {
		s.t.Errorf("only %d secrets to search for", len(secrets))
	}
	for where, text := range places {
		for _, sec := range secrets {
			if strings.Contains(text, sec) {
				s.t.Errorf("a secret (%.8s…) is in %s", sec, where)
			}
		}
	}
	s.searchSecrets()
}

// A bad x-mcptray.google setting stops `serve gcal` at once, and `mcptray
// status` says which setting and what it takes.
func TestGcalBadSettingInStatus(t *testing.T) {
	for _, c := range []struct {
		poll any
		want string
	}{
		{"soon", `x-mcptray.google.calendarPoll "soon" is not a duration: write it like "2m0s"`},
		{"500ms", `x-mcptray.google.calendarPoll "500ms" is too short: at least "1s"`},
		{60, `x-mcptray.google.calendarPoll in `},
	} {
		exe, _ := os.Executable()
		dir := t.TempDir()
		in := &instance{&testdaemon.Instance{T: t, Config: filepath.Join(dir, "mcp.json"), Data: filepath.Join(dir, "data")}}
		in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
		cfg, _ := json.Marshal(map[string]any{
			"mcpServers": map[string]any{"gcal": map[string]any{"command": exe, "args": []string{"serve", "gcal"},
				"env": map[string]string{"GORACE": "atexit_sleep_ms=0"}}},
			"x-mcptray": map[string]any{"google": map[string]any{"calendarPoll": c.poll}},
		})
		os.WriteFile(in.Config, cfg, 0o600)
		in.Start()
		in.WaitFor("gcal's error", func(st statusJSON) bool {
			for _, s := range st.Servers {
				if s.Name == "gcal" && strings.Contains(s.Error, c.want) {
					return true
				}
			}
			return false
		})
		testdaemon.Stop(t, in.Instance)
	}
}

// The tray app (`mcptray run`, the real tray binary) shows an event made
// on another device as a desktop notification: it reaches the session's
// dunst.
func TestGcalNotificationReachesDunst(t *testing.T) {
	if os.Getenv("DISPLAY") == "" || exec.Command("dunstctl", "count").Run() != nil {
		if os.Getenv("MCPTRAY_TEST_SESSION") == "1" {
			t.Fatal("no X display or no dunst in the desktop session")
		}
		t.Skip("needs an X display and dunst (run in scripts/desktop-session.sh)")
	}
	s := newGcalSetup(t)
	in, stderr := s.trayApp()
	in.WaitFor("gcal ready", states("gcal", "ready"))
	s.waitSynced()

	start := time.Now().Add(48 * time.Hour).Truncate(time.Hour)
	if _, err := s.fake.AddEvent("ada@example.com", "primary", invitation("Quarterly review", start)); err != nil {
		t.Fatal(err)
	}
	s.waitEvent(in, "event/new_calendar_event", `"Quarterly review"`)
	var history []byte
	waitFor(t, "the notification in dunst's history", func() bool {
		exec.Command("dunstctl", "close-all").Run() // what is shown moves to the history
		history, _ = exec.Command("dunstctl", "history").Output()
		return strings.Contains(string(history), "New event: Quarterly review")
	})
	s.searchAll(map[string]string{"the tray app's log": stderr.String(), "dunst's history": string(history)})
}

// trayApp starts the real tray binary (`mcptray run`, with mcptray-google
// beside it) on the setup's config and data dir, in this test's desktop
// session, and returns once its socket answers; it is stopped (SIGTERM)
// at the end of the test.
func (s *gcalSetup) trayApp() (*instance, *syncBuffer) {
	s.t.Helper()
	bin := buildTray(s.t)
	buildGoogleBeside(s.t, bin) // the real tray binary execs it for serve gcal|gmail
	in := &instance{&testdaemon.Instance{T: s.t, Config: s.config, Data: s.data}}
	in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
	run := exec.Command(bin, append([]string{"run"}, in.FlagsFirst...)...)
	run.Env = append(os.Environ(), s.env...)
	stderr := new(syncBuffer)
	run.Stderr = stderr
	run.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := run.Start(); err != nil {
		s.t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { run.Wait(); close(exited) }()
	s.t.Cleanup(func() {
		run.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			run.Process.Kill()
			s.t.Error("the tray app did not exit within 30 s of SIGTERM")
		}
	})
	waitFor(s.t, "the tray app's socket", func() bool {
		select {
		case <-exited:
			s.t.Fatalf("the tray app exited: %s", stderr)
		default:
		}
		_, err := control.Dial(s.data)
		return err == nil
	})
	return in, stderr
}

// The default mcp.json's gcal entry, off until `mcptray toggle gcal on`;
// a call made before any account exists asks in the inbox, and signing in
// there (the browser again) adds the account and answers the call. Later,
// Google refusing the sign-in (invalid_grant) while the server runs asks
// again at the next call.
func TestGcalDefaultEntryAndFirstSignInFromTheInbox(t *testing.T) {
	g := newGoogleEnv(t)
	testdaemon.Keyring(t, "ssh/aliases") // the default config's ssh server reads it
	g.fake.SetAccessTTL(10 * time.Second)
	clientFile := filepath.Join(t.TempDir(), "client.json")
	os.WriteFile(clientFile, g.fake.ClientFile(), 0o600)
	g.mustRun("auth", "google", "client", clientFile)
	s := &gcalSetup{googleEnv: g, server: "gcal", config: filepath.Join(t.TempDir(), "mcp.json"), outs: new(strings.Builder)}
	// The default config, on a free port.
	def := strings.Replace(string(config.Default()), `"127.0.0.1:7823"`, `"127.0.0.1:0"`, 1)
	os.WriteFile(s.config, []byte(def), 0o600)
	in := s.daemon("")
	in.WaitFor("ssh ready, gcal off", states("ssh", "ready", "gcal", "disabled"))
	if code, out, errs := s.run(in, "toggle", "gcal", "on"); code != 0 {
		t.Fatalf("toggle gcal on: %q %q", out, errs)
	}
	in.WaitFor("gcal ready", states("gcal", "ready"))
	a := startAssistant(t, in, map[string]any{})
	id := a.call("gcal__list_calendars", map[string]any{})
	l, raw := in.waitRequest("gcal")
	if r := l.Requests[0]; r.Mode != "url" || !strings.Contains(r.Message, "Sign in to Google") || !strings.Contains(r.Message, "no account has been added yet") {
		t.Fatalf("the inbox request: %s", raw)
	}
	if code, _, errs := s.run(in, "inbox", "answer", l.Requests[0].ID, "--yes"); code != 0 {
		t.Fatalf("inbox answer: %s", errs)
	}
	r := parseToolReply[map[string]any](t, a.wait(id))
	if r.Result.IsError || !strings.Contains(fmt.Sprint(r.Result.Structured), "ada@example.com") {
		t.Fatalf("list_calendars after the first sign-in: %+v", r.Result)
	}
	if l := s.list(); len(l.Accounts) != 1 || l.Accounts[0].Email != "ada@example.com" {
		t.Errorf("accounts: %+v", l)
	}

	// invalid_grant while the server runs: its access tokens (10 s, so
	// stale at once for golang.org/x/oauth2) are refreshed on every call,
	// and the next call after Google refuses asks again.
	s.fake.FailRefresh("ada@example.com", googletest.ExpiredOrRevoked)
	id = a.call("gcal__list_events", map[string]any{})
	l, raw = in.waitRequest("gcal")
	if r := l.Requests[0]; r.Mode != "url" || !strings.Contains(r.Message, "Sign in to Google again for ada@example.com") {
		t.Fatalf("the inbox request: %s", raw)
	}
	if code, _, errs := s.run(in, "inbox", "answer", l.Requests[0].ID, "--yes"); code != 0 {
		t.Fatalf("inbox answer: %s", errs)
	}
	if r := parseToolReply[map[string]any](t, a.wait(id)); r.Result.IsError || r.Result.Structured == nil {
		t.Fatalf("list_events after signing in again: %+v", r.Result)
	}
	a.in.Close()
	testdaemon.Stop(t, in.Instance)
	s.searchAll(map[string]string{"mcptray's log": in.Stderr.String(), "the upstream bytes": a.out.String(), "the CLI's output": s.outs.String()})
}
