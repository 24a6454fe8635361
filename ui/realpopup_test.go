//go:build linux

package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
)

// mcpCall is one tools/call made through the app's gateway.
type mcpCall struct {
	reply chan string // the result's text, once
}

// callTool opens an MCP session with the app over its control socket (as
// `mcptray connect` does) and calls tool with args; the reply's text
// arrives on the returned call.
func callTool(t testing.TB, a *realApp, tool string, args map[string]any) mcpCall {
	t.Helper()
	cl, err := control.Dial(a.data)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := cl.OpenMCP(ctx, "", "")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); cancel() })
	send := func(v map[string]any) {
		v["jsonrpc"] = "2.0"
		b, _ := json.Marshal(v)
		if _, err := conn.Write(append(b, '\n')); err != nil {
			t.Errorf("writing to the gateway: %v", err)
		}
	}
	call := mcpCall{reply: make(chan string, 1)}
	go func() {
		sc := bufio.NewScanner(conn)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Result struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"result"`
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil || string(m.ID) != "2" {
				continue
			}
			var text []string
			for _, c := range m.Result.Content {
				text = append(text, c.Text)
			}
			if m.Error != nil {
				text = append(text, "error: "+string(m.Error))
			}
			call.reply <- strings.Join(text, "\n")
			return
		}
	}()
	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "ui-test", "version": "1"}}})
	send(map[string]any{"method": "notifications/initialized"})
	send(map[string]any{"id": 2, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	return call
}

func (c mcpCall) wait(t testing.TB) string {
	t.Helper()
	select {
	case r := <-c.reply:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("no reply to the tool call within 60s")
	}
	return ""
}

// TestRealPopup has a server ask for a password during a tool call: the
// tray shows it waiting, a notification reaches dunst, a popup titled with
// the server's name comes up; the password typed into it with xdotool and
// Enter reaches the server, and the popup closes, as does the
// notification (CloseNotification; it was sent to stay until then). A
// second request, answered by the CLI's path instead, closes its popup and
// its notification too.
func TestRealPopup(t *testing.T) {
	needSession(t)
	startTrayHost(t)
	conn := sessionBus(t)
	seen := notifications(t)
	nw := watchNotifications(t)
	record := filepath.Join(t.TempDir(), "answers.jsonl")
	asker := fakeServer("asker")
	asker["env"].(map[string]string)["MCPTRAY_FAKE_RECORD"] = record
	a := startApp(t, map[string]any{"ssh": asker, "notes": fakeServer("echo")})
	waitRegistered(t, a, conn)
	waitMenu(t, a, conn, "ssh ready", func(items []menuItem) bool { return hasItem(items, "ssh — ready") })

	call := callTool(t, a, "ssh__login", map[string]any{"user": "root"})
	waitNotification(t, a, seen, "ssh needs your password")
	note := nw.waitSent(t, a.alive, "ssh needs your password")
	if note.expire != 0 {
		t.Errorf("the request's notification expires after %d ms; want it shown until the request closes (0)", note.expire)
	}
	waitMenu(t, a, conn, "ssh waiting for input", func(items []menuItem) bool {
		return hasItem(items, "ssh — waiting for input") && hasItem(items, "Inbox (1)…")
	})
	popup := findWindow(t, a, "ssh")
	screenshot(t, a, popup, "popup.png")
	// No window manager places windows: move the popup off the main
	// window's spot (the top left), so each can be photographed.
	xdo(t, "windowmove", "--sync", popup, "920", "40")

	// The Inbox tab shows the same request.
	clickTrayItem(t, a, conn, "Inbox (1)…")
	win := findWindow(t, a, "mcptray")
	screenshot(t, a, win, "window-inbox-waiting.png")

	const password = "correct horse battery"
	xdo(t, "windowraise", popup)
	xdo(t, "windowfocus", "--sync", popup)
	xdo(t, "type", "--delay", "20", password)
	// The popup is a process of its own: the password is in neither its
	// command line nor its environment (it goes over the control socket).
	popupPID := windowPID(t, popup)
	for _, f := range []string{"cmdline", "environ"} {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/%s", popupPID, f)); strings.Contains(string(b), password) {
			t.Errorf("the popup process's %s holds the password", f)
		}
	}
	xdo(t, "key", "Return")
	reply := call.wait(t)
	if strings.Contains(a.out.String(), password) {
		t.Error("the password is in the output of the app or of its window's processes")
	}
	windowGone(t, a, "ssh")
	nw.waitClosed(t, a.alive, note, closedByCall) // answered: off the screen
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("the server recorded no answer: %v", err)
	}
	var got struct {
		Result struct {
			Action  string `json:"action"`
			Content struct {
				Password string `json:"password"`
			} `json:"content"`
		} `json:"result"`
	}
	json.Unmarshal(b, &got)
	if got.Result.Action != "accept" || got.Result.Content.Password != password {
		t.Errorf("the server got action %q and a password of %d characters; want accept and the %d typed",
			got.Result.Action, len(got.Result.Content.Password), len(password))
	}
	if strings.Contains(reply, password) {
		t.Error("the tool's result carried the password to the assistant")
	}
	waitMenu(t, a, conn, "the inbox empty again", func(items []menuItem) bool {
		return hasItem(items, "ssh — ready") && hasItem(items, "Inbox (0)…")
	})

	// Answered elsewhere: the popup closes by itself.
	call = callTool(t, a, "ssh__login", map[string]any{"user": "admin"})
	findWindow(t, a, "ssh")
	note = nw.waitSent(t, a.alive, "ssh needs your password")
	cl, err := control.Dial(a.data)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reqs, err := cl.Inbox(ctx)
	if err != nil || len(reqs) != 1 {
		t.Fatalf("inbox over the control socket: %v, %v", reqs, err)
	}
	if err := cl.Answer(ctx, reqs[0].ID, inbox.Answer{Action: inbox.ActionDecline, By: "cli"}); err != nil {
		t.Fatal(err)
	}
	windowGone(t, a, "ssh")
	nw.waitClosed(t, a.alive, note, closedByCall)
	if r := call.wait(t); !strings.Contains(r, "login decline") {
		t.Errorf("tool reply after the CLI declined: %q", r)
	}

	clickTrayItem(t, a, conn, "Quit")
	a.waitExit(30 * time.Second)
}
