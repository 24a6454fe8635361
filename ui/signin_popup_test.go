package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/inbox"
)

// signInRequest is a remote server's sign-in request: the yes/no, or
// (url) the address to copy when no browser opened.
func signInRequest(id, mode string) inbox.Request {
	r := inbox.Request{ID: id, Kind: inbox.KindSignIn, Server: "linear", Source: inbox.SourceMcptray, Mode: mode,
		Message: "Sign in to linear at mcp.linear.app", SignIn: &inbox.SignIn{IssuerHost: "mcp.linear.app"},
		Created: testNow, Deadline: testNow.Add(5 * time.Minute)}
	if mode == "url" {
		r.URL, r.Host = "https://mcp.linear.app/authorize?state=s1", "mcp.linear.app"
		r.Message = "mcptray could not open a browser. To sign in to linear, open this address in a browser on this computer:"
	} else {
		r.Confirm, r.AcceptLabel = true, "Sign in"
	}
	return r
}

func signInPopupText(c fyne.CanvasObject) string {
	var text []string
	for _, o := range test.LaidOutObjects(c) {
		switch w := o.(type) {
		case *widget.Label:
			text = append(text, w.Text)
		case *widget.RichText:
			text = append(text, w.String())
		}
	}
	return strings.Join(text, "\n")
}

// The sign-in popup names the host and answers Sign in (accept) or Not
// now (decline); the address popup shows the address, copies it, and
// Stop signing in declines.
func TestSignInPopup(t *testing.T) {
	for _, tt := range []struct{ button, action string }{{"Sign in", inbox.ActionAccept}, {"Not now", inbox.ActionDecline}} {
		var got []inbox.Answer
		d, _ := testDesktop(t, &fakeCore{answer: func(id string, a inbox.Answer) error { got = append(got, a); return nil }})
		d.applyInbox(inbox.Event{Kind: inbox.Added, Request: signInRequest("s1", "form")})
		c := d.popup.win.Canvas().Content()
		if all := signInPopupText(c); !strings.Contains(all, "mcp.linear.app") || !strings.Contains(all, "assistants never see") || strings.Contains(all, "authorize") {
			t.Errorf("the popup:\n%s", all)
		}
		test.Tap(button(t, c, tt.button))
		if len(got) != 1 || got[0].Action != tt.action {
			t.Errorf("%s: answers %+v", tt.button, got)
		}
	}

	var got []inbox.Answer
	d, _ := testDesktop(t, &fakeCore{answer: func(id string, a inbox.Answer) error { got = append(got, a); return nil }})
	d.applyInbox(inbox.Event{Kind: inbox.Added, Request: signInRequest("s2", "url")})
	c := d.popup.win.Canvas().Content()
	if all := signInPopupText(c); !strings.Contains(all, "https://mcp.linear.app/authorize?state=s1") {
		t.Errorf("the address popup:\n%s", all)
	}
	test.Tap(button(t, c, "Copy the address"))
	if clip := fyne.CurrentApp().Clipboard().Content(); clip != "https://mcp.linear.app/authorize?state=s1" || len(got) != 0 {
		t.Errorf("clipboard %q, answers %+v", clip, got)
	}
	test.Tap(button(t, c, "Stop signing in"))
	if len(got) != 1 || got[0].Action != inbox.ActionDecline {
		t.Errorf("Stop signing in: answers %+v", got)
	}
}
