//go:build linux

package ui

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRealPopupInputRequired is TestRealPopup for a server on protocol
// 2026-07-28, which asks its password in an input_required result: the
// gateway puts the question in the inbox, the popup comes up, the
// password typed into it goes back in the call's retry (with the
// server's requestState, which the server checks), and the assistant
// gets only the final result, the password redacted. The password is
// nowhere under the data dir (the database, the logs) nor in what the
// app and its window processes printed.
func TestRealPopupInputRequired(t *testing.T) {
	needSession(t)
	startTrayHost(t)
	conn := sessionBus(t)
	a := startApp(t, map[string]any{"vault": fakeServer("new-wire")})
	waitRegistered(t, a, conn)
	waitMenu(t, a, conn, "vault ready", func(items []menuItem) bool { return hasItem(items, "vault — ready") })

	call := callTool(t, a, "vault__login", map[string]any{"user": "root"})
	waitMenu(t, a, conn, "vault waiting for input", func(items []menuItem) bool {
		return hasItem(items, "vault — waiting for input") && hasItem(items, "Inbox (1)…")
	})
	popup := findWindow(t, a, "vault")
	screenshot(t, a, popup, "popup-input-required.png")

	const password = "input required horse"
	xdo(t, "windowraise", popup)
	xdo(t, "windowfocus", "--sync", popup)
	xdo(t, "type", "--delay", "20", password)
	xdo(t, "key", "Return")
	reply := call.wait(t)
	if reply != "action accept, logged in root with [redacted]" {
		t.Errorf("the assistant got %q", reply)
	}
	windowGone(t, a, "vault")
	waitMenu(t, a, conn, "the inbox empty again", func(items []menuItem) bool {
		return hasItem(items, "vault — ready") && hasItem(items, "Inbox (0)…")
	})
	if strings.Contains(a.out.String(), password) {
		t.Error("the password is in the output of the app or of its window's processes")
	}

	clickTrayItem(t, a, conn, "Quit")
	a.waitExit(30 * time.Second)
	filepath.WalkDir(a.data, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSocket != 0 {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), password) {
			t.Errorf("the password is in %s", path)
		}
		return nil
	})
}
