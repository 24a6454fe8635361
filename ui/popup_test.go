package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/assets"
)

func passwordRequest(id, server string, age time.Duration) inbox.Request {
	return inbox.Request{
		ID: id, Server: server, Tool: "exec", Source: inbox.SourceServer, Mode: "form",
		Message: "sudo on prod-1 needs your password",
		Fields:  []inbox.Field{{Name: "password", Type: "string", Title: "Sudo password", Secret: true, Required: true}},
		Created: testNow.Add(-age), Deadline: testNow.Add(5*time.Minute - age),
	}
}

// testDesktop is a desktop on the test app with a fake tray host.
func testDesktop(t *testing.T, c *fakeCore) (*desktop, *fakeTrayHost) {
	t.Helper()
	failOnThreadErrors(t)
	a := test.NewTempApp(t)
	env, _ := testEnv(t, a, c)
	host := &fakeTrayHost{}
	d := newDesktop(a, c, desktopOptions{env: env, host: host, quit: func() {}})
	t.Cleanup(d.close)
	d.apply(twoServers())
	return d, host
}

func TestPopupQueuesRequestsOldestFirst(t *testing.T) {
	ans := &answers{}
	d, host := testDesktop(t, &fakeCore{answer: ans.answer})
	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: passwordRequest("new", "notes", time.Second)})
	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: passwordRequest("old", "ssh", time.Minute)})
	p := d.popup
	if p.view == nil || p.view.req.ID != "old" || p.win.Title() != "ssh" {
		t.Fatalf("popup shows %v titled %q, want the oldest request, of ssh", p.view.req.ID, p.win.Title())
	}
	if got := p.more.Text; got != "1 more request waits after this one." {
		t.Errorf("queue note %q", got)
	}
	if f := p.win.Canvas().Focused(); f != p.view.first() {
		t.Errorf("focus on %T, want the password entry", f)
	}
	menu := menuText(host.last())
	for _, want := range []string{"Inbox (2)…", "notes — waiting for input"} {
		if !strings.Contains(menu, want) {
			t.Errorf("tray menu lacks %q:\n%s", want, menu)
		}
	}
	if host.icons[len(host.icons)-1] != assets.IconAttention {
		t.Error("tray icon not in its attention state")
	}

	// Answered here: the next one shows.
	pw := p.view.form.inputs[0].object().(*formEntry)
	test.Type(pw, "hunter2")
	pw.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if len(ans.got) != 1 || ans.ids[0] != "old" || ans.got[0].Content["password"] != "hunter2" {
		t.Fatalf("answers %v for %v", ans.got, ans.ids)
	}
	if pw.Text != "" {
		t.Error("the password stays in the entry after submit")
	}
	if p.view == nil || p.view.req.ID != "new" || p.win.Title() != "notes" || p.more.Visible() {
		t.Fatalf("after answering: popup shows %v", p.view)
	}
	if len(d.screen().inbox.views) != 1 {
		t.Errorf("Inbox tab shows %d requests, want 1", len(d.screen().inbox.views))
	}

	// Answered elsewhere (the CLI): the popup closes.
	d.applyInbox(inbox.Event{Kind: inbox.Closed, Request: passwordRequest("new", "notes", time.Second), Outcome: "accept", By: "cli"})
	if p.view != nil || len(p.queue) != 0 {
		t.Errorf("popup still shows %v", p.view.req.ID)
	}
	if len(d.screen().inbox.views) != 0 {
		t.Error("the Inbox tab still shows the request")
	}
	if got := outcomeText(d.screen().inbox.outcomes[0]); got != "answered (cli)" {
		t.Errorf("latest outcome %q", got)
	}
	if !strings.Contains(menuText(host.last()), "Inbox (0)…") || host.icons[len(host.icons)-1] != assets.Icon {
		t.Errorf("tray after the inbox emptied:\n%s", menuText(host.last()))
	}
}

func TestPopupEscapeCancels(t *testing.T) {
	ans := &answers{}
	d, _ := testDesktop(t, &fakeCore{answer: ans.answer})
	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: passwordRequest("r", "ssh", 0)})
	focused := d.popup.win.Canvas().Focused().(*formEntry)
	focused.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(ans.got) != 1 || ans.got[0].Action != inbox.ActionCancel {
		t.Errorf("Escape answered %v", ans.got)
	}
}

func TestNewRequestIsANotification(t *testing.T) {
	d, _ := testDesktop(t, &fakeCore{})
	test.AssertNotificationSent(t, fyne.NewNotification("ssh needs your sudo password", "sudo on prod-1 needs your password"), func() {
		d.applyInbox(inbox.Event{Kind: inbox.Added, Request: passwordRequest("r", "ssh", 0)})
	})
	// The same request again (a re-subscription): no second popup or notice.
	test.AssertNotificationSent(t, nil, func() {
		d.applyInbox(inbox.Event{Kind: inbox.Added, Request: passwordRequest("r", "ssh", 0)})
	})
	if len(d.popup.queue) != 1 {
		t.Errorf("queue holds %d, want 1", len(d.popup.queue))
	}
}

func TestConfigErrorIsANotificationOnce(t *testing.T) {
	d, _ := testDesktop(t, &fakeCore{})
	bad := twoServers()
	bad.ConfigError = "mcp.json:3:14: invalid character '}'"
	test.AssertNotificationSent(t, fyne.NewNotification("mcptray: mcp.json has an error",
		"mcp.json:3:14: invalid character '}'\nThe last good config keeps running."), func() { d.apply(bad) })
	test.AssertNotificationSent(t, nil, func() { d.apply(bad) })
}

func TestTrayOpensTheWindowOnATab(t *testing.T) {
	d, host := testDesktop(t, &fakeCore{})
	item(t, host.last(), "Inbox").Action()
	if d.screen().tabs.Selected().Text != tabInbox || !d.visible {
		t.Errorf("Inbox item: tab %q, window shown %v", d.screen().tabs.Selected().Text, d.visible)
	}
	d.hide()
	item(t, host.last(), "Open mcptray").Action()
	if d.screen().tabs.Selected().Text != tabServers || !d.visible {
		t.Errorf("Open item: tab %q, window shown %v", d.screen().tabs.Selected().Text, d.visible)
	}
}
