package ui

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/assistants"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/app/inbox"
)

// update rewrites the markup goldens in testdata/ instead of comparing.
var update = flag.Bool("update", false, "rewrite the markup goldens in testdata/")

// assertMarkup compares c's markup with testdata/name (Fyne's markup
// renderer), or writes it there with -update.
func assertMarkup(t *testing.T, name string, c fyne.Canvas) {
	t.Helper()
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", name), []byte(test.RenderToMarkup(c)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	test.AssertRendersToMarkup(t, name, c)
}

// fixedAutostart is an autostart at a fixed path, for goldens.
type fixedAutostart struct{ on bool }

func (f *fixedAutostart) Enabled() (bool, error)   { return f.on, nil }
func (f *fixedAutostart) SetEnabled(on bool) error { f.on = on; return nil }
func (f *fixedAutostart) Where() string {
	return "/home/me/.config/autostart/io.github.mcptray.desktop"
}

// goldenMain is a main screen in a 900x560 window showing st, with fixed
// paths and clock.
func goldenMain(t *testing.T, st control.Status, noTray string) (*mainScreen, fyne.Window) {
	t.Helper()
	return goldenMainCore(t, &fakeCore{tools: sampleTools}, st, noTray)
}

// goldenMainCore is goldenMain on core c.
func goldenMainCore(t *testing.T, c *fakeCore, st control.Status, noTray string) (*mainScreen, fyne.Window) {
	t.Helper()
	failOnThreadErrors(t)
	a := test.NewTempApp(t)
	env, _ := testEnv(t, a, c)
	env.autostart = &fixedAutostart{on: true}
	var w fyne.Window
	env.window = func() fyne.Window { return w }
	m := newMainScreen(env, noTray)
	t.Cleanup(m.close)
	m.apply(st)
	w = test.NewTempWindow(t, m.root)
	w.Resize(fyne.NewSize(900, 560))
	return m, w
}

func TestGoldenServers(t *testing.T) {
	st := fourServers()
	st.ConfigError = "mcp.json:3:14: invalid character '}' looking for beginning of value"
	m, w := goldenMain(t, st, "")
	m.servers.log.append("2026-07-03T09:55:00.000Z [lifecycle] starting: /usr/bin/notes-server\n" +
		"2026-07-03T09:55:00.412Z [lifecycle] ready: 7 tools\n" +
		"2026-07-03T11:02:13.020Z [stderr] synced 3 notebooks\n")
	assertMarkup(t, "servers.xml", w.Canvas())
}

func TestGoldenNoTray(t *testing.T) {
	_, w := goldenMain(t, twoServers(), "No tray icon: no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set). Closing this window quits mcptray.")
	assertMarkup(t, "no-tray.xml", w.Canvas())
}

// TestGoldenAssistants: a row per state (absent, present, broken, no
// config, another mcptray), Claude Desktop's just written (its reload
// hint), then the snippets and the endpoint.
func TestGoldenAssistants(t *testing.T) {
	f := fiveAssistants()
	m, w := goldenMainCore(t, &fakeCore{fakeAssistants: f}, twoServers(), "")
	m.show(tabAssistants)
	test.Tap(button(t, assistantRow(t, m.assistants, "Claude Desktop"), "Add"))
	test.Tap(dialogButton(t, w, "Write"))
	assertMarkup(t, "assistants.xml", w.Canvas())
}

// TestGoldenAssistantsDiff: Add's dialog, the diff in monospace.
func TestGoldenAssistantsDiff(t *testing.T) {
	m, w := goldenMainCore(t, &fakeCore{fakeAssistants: fiveAssistants()}, twoServers(), "")
	m.show(tabAssistants)
	test.Tap(button(t, assistantRow(t, m.assistants, "Windsurf"), "Add"))
	assertMarkup(t, "assistants-diff.xml", w.Canvas())
}

// TestGoldenAssistantsImport: the import dialog, a server renamed, one
// skipped, a check per secret, the replace check and the diff.
func TestGoldenAssistantsImport(t *testing.T) {
	f := fiveAssistants()
	f.imports = map[string]*assistants.ImportPlan{"claude-desktop": githubImport()}
	m, w := goldenMainCore(t, &fakeCore{fakeAssistants: f}, twoServers(), "")
	m.show(tabAssistants)
	test.Tap(button(t, assistantRow(t, m.assistants, "Claude Desktop"), "Import"))
	assertMarkup(t, "assistants-import.xml", w.Canvas())
}

func TestGoldenSettings(t *testing.T) {
	m, w := goldenMain(t, twoServers(), "")
	m.show(tabSettings)
	assertMarkup(t, "settings.xml", w.Canvas())
}

func TestGoldenTrayMenu(t *testing.T) {
	tr, host, _, _ := newTestTray(t, &fakeCore{})
	tr.setStatus(fourServers())
	tr.setInbox(map[string]int{"ssh": 1})
	tr.setUnread(4)
	got := menuText(host.last())
	path := filepath.Join("testdata", "tray-menu.txt")
	if *update {
		os.WriteFile(path, []byte(got), 0o644)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("tray menu:\n%s\nwant (%s):\n%s", got, path, want)
	}
}

func TestGoldenInbox(t *testing.T) {
	d, _ := testDesktop(t, &fakeCore{})
	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: passwordRequest("p1", "ssh", 20*time.Second)})
	closed := typesRequest()
	d.applyInbox(inbox.Event{Kind: inbox.Closed, Request: closed, Outcome: "accept", By: "ui"})
	closed.Server, closed.Message = "gmail", "Sign in to Google"
	d.applyInbox(inbox.Event{Kind: inbox.Closed, Request: closed, Outcome: "timeout", By: "deadline"})
	d.open(tabInbox)
	assertMarkup(t, "inbox.xml", d.win.Canvas())
}

func TestGoldenPopupForm(t *testing.T) {
	d, _ := testDesktop(t, &fakeCore{})
	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: typesRequest()})
	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: passwordRequest("p1", "notes", 0)})
	d.popup.win.Resize(fyne.NewSize(480, 1300))
	assertMarkup(t, "popup-form.xml", d.popup.win.Canvas())
}

func TestGoldenPopupPassword(t *testing.T) {
	d, _ := testDesktop(t, &fakeCore{})
	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: passwordRequest("p1", "ssh", 3*time.Second)})
	assertMarkup(t, "popup-password.xml", d.popup.win.Canvas())
}

func TestGoldenPopupURL(t *testing.T) {
	d, _ := testDesktop(t, &fakeCore{})
	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: inbox.Request{
		ID: "u1", Server: "gmail", Tool: "connect_account", Mode: "url",
		Message: "Sign in to Google to let gmail read your mail.",
		URL:     "https://accounts.google.com/o/oauth2/v2/auth?client_id=x&state=y", Host: "accounts.google.com",
		Created: testNow, Deadline: testNow.Add(5 * time.Minute)}})
	assertMarkup(t, "popup-url.xml", d.popup.win.Canvas())
}

func TestGoldenEvents(t *testing.T) {
	var acks []events.AckRequest
	c := eventsCore(threeEvents(), &acks)
	d, _ := testDesktop(t, c)
	d.applyEvents(loadEvents(c))
	d.screen().events.rows.Select(1)
	d.open(tabEvents)
	assertMarkup(t, "events.xml", d.win.Canvas())
}

// TestGoldenServersWholeError: a server whose long error is cut in its
// row, selected: the whole error above its log, and a long log line,
// clicked, whole under it.
func TestGoldenServersWholeError(t *testing.T) {
	st := fourServers()
	st.Servers[3].State = control.StateError
	st.Servers[3].Error = "exited with code 1 before initialize: Error: Cannot find module '/home/me/.npm/_npx/3f2a/node_modules/@acme/calendar-mcp/dist/index.js' imported from /home/me/calendar/run.js\n" +
		"    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)"
	m, w := goldenMain(t, st, "")
	m.servers.list.Select(3)
	m.servers.log.append("2026-07-03T09:55:00.000Z [lifecycle] starting: node /home/me/calendar/run.js\n" +
		"2026-07-03T09:55:00.301Z [stderr] node:internal/modules/cjs/loader:1228 throw err; Error: Cannot find module '/home/me/.npm/_npx/3f2a/node_modules/@acme/calendar-mcp/dist/index.js' imported from /home/me/calendar/run.js\n")
	m.servers.log.list.Select(1)
	assertMarkup(t, "servers-error.xml", w.Canvas())
}

// TestGoldenUnreachable: a window whose process lost the tray app says so
// above everything, and keeps what it showed last.
func TestGoldenUnreachable(t *testing.T) {
	st := twoServers()
	st.Unreachable = "mcptray is not running; waiting for it to start again"
	m, w := goldenMain(t, st, "")
	if !m.offline.Visible() || m.offline.Text != st.Unreachable {
		t.Errorf("the banner shows %q (visible %v), want %q", m.offline.Text, m.offline.Visible(), st.Unreachable)
	}
	assertMarkup(t, "unreachable.xml", w.Canvas())
	st.Unreachable = ""
	m.apply(st)
	if m.offline.Visible() {
		t.Error("the banner stays once the tray app answers again")
	}
}
