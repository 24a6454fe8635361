package ui

import (
	"context"
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// toastLine is one operation of a toast script: "Post TAG TITLE BODY ICON
// SECONDS" with the texts decoded, or "Withdraw TAG".
var toastLine = regexp.MustCompile(`(?m)^try \{ (?:Withdraw '([0-9a-f]{16})'|Post '([0-9a-f]{16})?' \(Text '([A-Za-z0-9+/=]*)'\) \(Text '([A-Za-z0-9+/=]*)'\) \(Text '([A-Za-z0-9+/=]*)'\) (\d+)) \} catch`)

// toastOps reads the operations of scripts back, in order.
func toastOps(t *testing.T, scripts ...string) []string {
	t.Helper()
	var ops []string
	for _, s := range scripts {
		for _, m := range toastLine.FindAllStringSubmatch(s, -1) {
			if m[1] != "" {
				ops = append(ops, "Withdraw "+m[1])
				continue
			}
			text := func(b string) string {
				d, err := base64.StdEncoding.DecodeString(b)
				if err != nil {
					t.Fatal(err)
				}
				return string(d)
			}
			ops = append(ops, strings.Join([]string{"Post", m[2], text(m[3]), text(m[4]), text(m[5]), m[6]}, " "))
		}
	}
	return ops
}

// TestToastScriptsWindows: each operation is one line, the texts only in
// base64 (a server's `$(…)`, quotes and backticks are never PowerShell
// code), keys as 16-hex-digit tags, expiry in seconds; a batch too long for
// one command line is split, in order.
func TestToastScriptsWindows(t *testing.T) {
	evil := "ssh \"`$(Remove-Item C:\\)' ‘x’ needs your sudo password"
	scripts := toastScripts("io.github.mcptray", `C:\Users\Zoë\AppData\Local\fyne\icon.png`, []notifyOp{
		{n: notice{key: "inbox/r1", title: evil, body: "on prod", expire: untilWithdrawn}},
		{n: notice{title: "feed", body: "new mail", expire: infoExpire}},
		{withdraw: true, n: notice{key: "inbox/r1"}},
	})
	if len(scripts) != 1 {
		t.Fatalf("%d scripts, want 1", len(scripts))
	}
	s := scripts[0]
	if !strings.HasPrefix(s, "$ErrorActionPreference = 'Stop'\n") || !strings.Contains(s, "$app = Text '"+b64("io.github.mcptray")+"'\n") {
		t.Errorf("script's prelude:\n%s", s)
	}
	for _, plain := range []string{"Remove-Item", "sudo", "prod", "Zoë"} {
		if strings.Contains(s, plain) {
			t.Errorf("script holds %q in plain text:\n%s", plain, s)
		}
	}
	tag := toastTag("inbox/r1")
	want := []string{
		"Post " + tag + " " + evil + " on prod file:///C:/Users/Zoë/AppData/Local/fyne/icon.png 0",
		"Post  feed new mail file:///C:/Users/Zoë/AppData/Local/fyne/icon.png 10",
		"Withdraw " + tag,
	}
	if got := toastOps(t, s); !slices.Equal(got, want) {
		t.Errorf("operations:\n%q\nwant:\n%q", got, want)
	}
	if len(tag) != 16 || tag == toastTag("inbox/r2") {
		t.Errorf("tags %q, %q: want 16 hex digits, one per key", tag, toastTag("inbox/r2"))
	}

	// Long texts are clipped; many make several scripts, each within
	// PowerShell's command line.
	var ops []notifyOp
	for range maxQueuedNotices {
		ops = append(ops, notifyOp{n: notice{title: strings.Repeat("t", 300), body: strings.Repeat("ü", 2000)}})
	}
	scripts = toastScripts("io.github.mcptray", "", ops)
	if len(scripts) < 2 {
		t.Errorf("%d scripts for %d long notices, want several", len(scripts), len(ops))
	}
	got := toastOps(t, scripts...)
	if len(got) != len(ops) {
		t.Errorf("%d operations in the scripts, want %d", len(got), len(ops))
	}
	wantPost := "Post  " + strings.Repeat("t", maxToastTitle-1) + "… " + strings.Repeat("ü", maxToastBody-1) + "…  0"
	for i, s := range scripts {
		if n := len(encodedCommand(s)); n > maxToastCommand || n != encodedLen(s) {
			t.Errorf("script %d: %d UTF-16 units encoded (encodedLen %d), want at most %d", i, n, encodedLen(s), maxToastCommand)
		}
	}
	if len(got) > 0 && got[0] != wantPost {
		t.Errorf("a long notice posted as %.80q…", got[0])
	}
}

// recordedScripts runs toast scripts by recording them.
type recordedScripts struct {
	mu      sync.Mutex
	scripts []string // guarded by mu
}

func (r *recordedScripts) run(_ context.Context, s string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scripts = append(r.scripts, s)
	return nil
}

func (r *recordedScripts) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.scripts)
}

// TestToastNotificationsWindows: posts and withdrawals reach the scripts
// in order, the icon is read once, and close withdraws what is still
// shown with a key (not what was withdrawn, nor an informational notice)
// and waits for that.
func TestToastNotificationsWindows(t *testing.T) {
	var r recordedScripts
	icons := 0
	n := newToastNotifications("io.github.mcptray", func() string { icons++; return `C:\icon.png` }, r.run)
	n.post(notice{key: "inbox/a", title: "a", body: "A"})
	n.post(notice{title: "info", body: "I", expire: infoExpire})
	n.withdraw("inbox/a")
	n.post(notice{key: keyConfigError, title: "config", body: "C"})
	n.withdraw("")
	n.close()
	n.post(notice{key: "late", title: "after close"})
	n.close()

	want := []string{
		"Post " + toastTag("inbox/a") + " a A file:///C:/icon.png 0",
		"Post  info I file:///C:/icon.png 10",
		"Withdraw " + toastTag("inbox/a"),
		"Post " + toastTag(keyConfigError) + " config C file:///C:/icon.png 0",
		"Withdraw " + toastTag(keyConfigError),
	}
	if got := toastOps(t, r.all()...); !slices.Equal(got, want) {
		t.Errorf("operations:\n%q\nwant:\n%q", got, want)
	}
	if icons != 1 {
		t.Errorf("icon read %d times, want once", icons)
	}
}

// TestPowerShellToastWindows runs a toast script with the system's
// PowerShell: on Windows a toast shows for a moment and is withdrawn; Wine
// 8's powershell.exe is a stub that exits 0 without running it, so under
// Wine this only checks that PowerShell is found in System32 and started
// without a console.
func TestPowerShellToastWindows(t *testing.T) {
	scripts := toastScripts(AppID, "", []notifyOp{
		{n: notice{key: "test", title: "mcptray test", body: "a toast from TestPowerShellToastWindows", expire: 5 * time.Second}},
		{withdraw: true, n: notice{key: "test"}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), toastTimeout)
	defer cancel()
	if err := runPowerShell(ctx, scripts[0]); err != nil {
		t.Fatal(err)
	}
}
