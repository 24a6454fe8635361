package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/inbox"
)

// popupText is every label of the popup's content, one per line.
func popupText(d *desktop) string {
	var text []string
	for _, o := range test.LaidOutObjects(d.popup.win.Canvas().Content()) {
		if l, ok := o.(*widget.Label); ok {
			text = append(text, l.Text)
		}
	}
	return strings.Join(text, "\n")
}

// A changed entry's popup says what changed beside the command line: the
// new value of a variable that loads code, "value changed" for another, a
// file whose contents changed.
func TestLaunchPopupShowsChanges(t *testing.T) {
	d, _ := testDesktop(t, &fakeCore{})
	req := launchRequest("l1")
	req.Launch.Previous = req.Launch.CommandLine
	req.Launch.Changes = []string{"NODE_OPTIONS: --require /tmp/evil.js", "API_KEY: value changed", "/home/me/bin/wrapper.py: contents changed since you approved it"}
	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: req})
	all := popupText(d)
	for _, want := range append([]string{"What changed since you approved it:"}, req.Launch.Changes...) {
		if !strings.Contains(all, want) {
			t.Errorf("the popup lacks %q:\n%s", want, all)
		}
	}
}

// After a reset of mcptray's records, one popup lists every entry that
// waits: Approve all accepts, Choose one by one declines.
func TestLaunchResetPopup(t *testing.T) {
	for label, action := range map[string]string{"Approve all": inbox.ActionAccept, "Choose one by one": inbox.ActionDecline} {
		var got []inbox.Answer
		d, _ := testDesktop(t, &fakeCore{answer: func(id string, a inbox.Answer) error {
			got = append(got, a)
			return nil
		}})
		req := inbox.Request{ID: "r1", Kind: inbox.KindLaunchReset, Source: inbox.SourceMcptray, Mode: "form", Confirm: true, Fields: []inbox.Field{},
			Message: "mcptray's records were reset; these 2 servers want to run: notes, ssh. Approve them all, or choose one by one?",
			Reset: &inbox.LaunchReset{File: "/home/me/.config/mcptray/mcp.json", Why: "reset", Entries: []inbox.LaunchApproval{
				{Entry: "notes", CommandLine: "/usr/bin/npx -y @acme/notes-mcp"}, {Entry: "ssh", CommandLine: "/usr/bin/mcptray serve ssh"}}},
			Created: testNow, Deadline: testNow.Add(5 * time.Minute)}
		d.applyInbox(inbox.Event{Kind: inbox.Added, Request: req})
		all := popupText(d)
		for _, want := range []string{"File: /home/me/.config/mcptray/mcp.json", "notes: /usr/bin/npx -y @acme/notes-mcp", "ssh: /usr/bin/mcptray serve ssh"} {
			if !strings.Contains(all, want) {
				t.Errorf("the popup lacks %q:\n%s", want, all)
			}
		}
		test.Tap(button(t, d.popup.win.Canvas().Content(), label))
		if len(got) != 1 || got[0].Action != action {
			t.Errorf("%s: answers %+v", label, got)
		}
	}
}
