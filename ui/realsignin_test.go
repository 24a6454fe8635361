//go:build linux

package ui

import (
	"context"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/oauthclient/oauthtest"
)

// TestRealSignInRequest: a remote server that answers 401 puts the real
// app's tray item at "Sign in…" and its request in the popup, which is
// photographed for the README (docs/screenshots/signin.png); a no leaves
// the server waiting. No browser opens.
func TestRealSignInRequest(t *testing.T) {
	needSession(t)
	startTrayHost(t)
	conn := sessionBus(t)
	as := oauthtest.New()
	t.Cleanup(as.Close)
	a := startApp(t, map[string]any{"linear": map[string]any{"url": as.MCPURL()}}, "BROWSER=/bin/false")
	waitRegistered(t, a, conn)
	waitMenu(t, a, conn, "linear waits for a sign-in", func(items []menuItem) bool { return hasItem(items, "linear — Sign in…") })
	popup := findWindow(t, a, "linear")
	screenshot(t, a, popup, "signin.png")

	cl, err := control.Dial(a.data)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var reqs []inbox.Request
	testkit.WaitFor(t, "the sign-in request", func() bool {
		reqs, _ = cl.Inbox(ctx)
		return len(reqs) == 1 && reqs[0].Kind == inbox.KindSignIn
	})
	if err := cl.Answer(ctx, reqs[0].ID, inbox.Answer{Action: inbox.ActionDecline, By: "ui-test"}); err != nil {
		t.Fatal(err)
	}
	windowGone(t, a, "linear")
	st, err := cl.Status(ctx)
	if err != nil || len(st.Servers) == 0 || st.Servers[len(st.Servers)-1].State != control.StateNeedsSignIn {
		t.Errorf("after a no: %+v %v", st.Servers, err)
	}
	if n := as.Count("/authorize", ""); n != 0 {
		t.Errorf("%d visits to /authorize without a yes", n)
	}
}
