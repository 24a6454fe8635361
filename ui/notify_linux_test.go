package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// newTestBus is a busNotifications on the test session's bus, closed at
// the end of the test.
func newTestBus(t *testing.T) *busNotifications {
	t.Helper()
	needSession(t)
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	b := newBusNotifications(conn, AppID, func() string { return "" })
	t.Cleanup(b.close)
	return b
}

// TestBusNotifications sends notices to the session's dunst over
// org.freedesktop.Notifications: an informational one carries its expire
// timeout; one with a key stays (timeout 0), is replaced in place by the
// next with its key, and is closed by withdraw (dunst reports it closed by
// CloseNotification); after dunst closed one by itself, the next with its
// key is shown and withdrawn the same way; close withdraws what is still
// shown.
func TestBusNotifications(t *testing.T) {
	b := newTestBus(t)
	w := watchNotifications(t)

	b.post(notice{title: "feed: new mail", body: "from ada", expire: infoExpire})
	info := w.waitSent(t, nil, "feed: new mail")
	if info.expire != 10000 || info.app != AppID || info.body != "from ada" {
		t.Errorf("informational notice sent as %+v; want expire 10000 ms, app %q", info, AppID)
	}

	b.post(notice{key: "inbox/r1", title: "ssh needs your password", expire: untilWithdrawn})
	req := w.waitSent(t, nil, "ssh needs your password")
	if req.expire != 0 || req.replaces != 0 {
		t.Errorf("request notice sent as %+v; want expire 0 (until withdrawn), replacing none", req)
	}
	b.post(notice{key: "config-error", title: "mcptray: mcp.json has an error", body: "line 3"})
	first := w.waitSent(t, nil, "mcp.json has an error")
	b.post(notice{key: "config-error", title: "mcptray: mcp.json still has an error", body: "line 4"})
	second := w.waitSent(t, nil, "mcp.json still has an error")
	if second.replaces != first.id || second.id != first.id {
		t.Errorf("a second notice with the key replaced %d and got id %d; want both %d", second.replaces, second.id, first.id)
	}

	b.withdraw("inbox/r1")
	w.waitClosed(t, nil, req, closedByCall)

	// Closed by dunst itself (it expired): a new notice with its key is
	// shown anew, and withdrawn as the first was.
	b.post(notice{key: "inbox/r2", title: "notes asks you to confirm", expire: time.Second})
	brief := w.waitSent(t, nil, "notes asks you to confirm")
	w.waitClosed(t, nil, brief, closedExpired)
	b.post(notice{key: "inbox/r2", title: "notes asks you again", expire: untilWithdrawn})
	again := w.waitSent(t, nil, "notes asks you again")
	b.withdraw("inbox/r2")
	w.waitClosed(t, nil, again, closedByCall)

	// close withdraws what is still shown: the config error.
	b.close()
	w.waitClosed(t, nil, first, closedByCall)
	b.post(notice{title: "after close"}) // dropped, no panic
	if slices.ContainsFunc(w.since(0), func(s string) bool { return strings.Contains(s, "after close") }) {
		t.Error("a notice posted after close was sent")
	}
}
