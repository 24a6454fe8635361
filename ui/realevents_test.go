//go:build linux

package ui

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/internal/testkit"
)

// TestRealEvents has a server send events: the first is a desktop
// notification that reaches dunst and expires after 10 s, the tray counts
// them, the Events tab lists them (photographed), and once they are marked
// read elsewhere (the CLI's path) the tray count goes. SIGTERM then ends
// the app cleanly.
func TestRealEvents(t *testing.T) {
	needSession(t)
	startTrayHost(t)
	conn := sessionBus(t)
	seen := notifications(t)
	nw := watchNotifications(t)
	a := startApp(t, map[string]any{"feed": fakeServer("events")})
	waitRegistered(t, a, conn)
	waitMenu(t, a, conn, "feed ready", func(items []menuItem) bool { return hasItem(items, "feed — ready") })

	before := dunstCount(t)
	if r := callTool(t, a, "feed__emit", map[string]any{"count": 3, "method": "event/new_email"}).wait(t); strings.Contains(r, "error") {
		t.Fatalf("emit: %s", r)
	}
	waitNotification(t, a, seen, "feed: event 0")
	if n := nw.waitSent(t, a.alive, "feed: event 0"); n.expire != 10000 {
		t.Errorf("an event's notification expires after %d ms; want 10000", n.expire)
	}
	testkit.WaitForWithin(t, 10*time.Second, "dunst to count the notification", func() bool { return dunstCount(t) > before })
	waitMenu(t, a, conn, "3 new events in the tray menu", func(items []menuItem) bool { return hasItem(items, "Events (3 new)…") })

	clickTrayItem(t, a, conn, "Events (3 new)…")
	win := findWindow(t, a, "mcptray")
	screenshot(t, a, win, "window-events-new.png")

	cl, err := control.Dial(a.data)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cl.AckEvents(ctx, events.AckRequest{All: true}); err != nil {
		t.Fatal(err)
	}
	waitMenu(t, a, conn, "no new events in the tray menu", func(items []menuItem) bool { return hasItem(items, "Events…") })

	// SIGTERM (a logout, `kill`) ends the tray app as cleanly as Quit.
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	a.waitExit(30 * time.Second)
}
