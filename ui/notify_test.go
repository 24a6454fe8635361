package ui

import (
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/inbox"
)

// recordingNotices is a notificationService that lists what it is asked:
// "post KEY TITLE (EXPIRE)" and "withdraw KEY".
type recordingNotices struct{ ops []string }

func (r *recordingNotices) post(n notice) {
	r.ops = append(r.ops, "post "+n.key+" "+n.title+" ("+n.expire.String()+")")
}
func (r *recordingNotices) withdraw(key string) { r.ops = append(r.ops, "withdraw "+key) }
func (r *recordingNotices) close()              { r.ops = append(r.ops, "close") }

// TestDesktopWithdrawsNotifications: a request's notification stays until
// the request closes, however it closes (answered here, closed elsewhere:
// the CLI, its deadline, the server withdrawing it), and is withdrawn
// then; the config error's stays until mcp.json parses again; an event's
// expires after 10 s. Turned off in Settings, nothing is posted, but what
// is shown is still withdrawn.
func TestDesktopWithdrawsNotifications(t *testing.T) {
	failOnThreadErrors(t)
	a := test.NewTempApp(t)
	env, _ := testEnv(t, a, &fakeCore{})
	rec := &recordingNotices{}
	env.notify.bus = rec
	d := newDesktop(a, &fakeCore{}, desktopOptions{env: env, quit: func() {}})
	t.Cleanup(d.close)
	d.apply(twoServers())

	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: passwordRequest("r1", "ssh", time.Second)})
	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: passwordRequest("r2", "notes", time.Second)})
	d.answered("r1") // answered in the popup or the Inbox tab
	d.applyInbox(inbox.Event{Kind: inbox.Closed, Request: passwordRequest("r2", "notes", time.Second), Outcome: "timeout"})

	broken := twoServers()
	broken.ConfigError = "mcp.json:3:14: invalid character '}'"
	d.apply(broken)
	d.apply(broken) // the same error again: no second notification
	d.apply(twoServers())
	d.notify.notify("feed: new mail", "from ada")

	d.notify.setEnabled(false)
	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: passwordRequest("r3", "ssh", time.Second)})
	d.applyInbox(inbox.Event{Kind: inbox.Closed, Request: passwordRequest("r3", "ssh", time.Second), Outcome: "declined"})

	want := []string{
		"post inbox/r1 ssh needs your sudo password (0s)",
		"post inbox/r2 notes needs your sudo password (0s)",
		"withdraw inbox/r1",
		"withdraw inbox/r2",
		"post config-error mcptray: mcp.json has an error (0s)",
		"withdraw config-error",
		"post  feed: new mail (10s)",
		"withdraw inbox/r3",
	}
	if !slices.Equal(rec.ops, want) {
		t.Errorf("notifications:\n got %q\nwant %q", rec.ops, want)
	}
}
