package ui

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"

	"fyne.io/fyne/v2"
	"golang.org/x/sys/windows"
)

// Windows' toast notifications, sent the way Fyne's SendNotification sends
// them — a PowerShell script over the WinRT ToastNotificationManager, under
// the app ID — but each with a tag and group, so that the next post with
// its key replaces it and withdraw takes it off the screen and out of the
// Action Center (ToastNotificationHistory.Remove), and with an expiration
// time, after which Windows removes it. Windows decides how long a toast
// stays on screen (about 5 s, a setting of the person's); one that lasts
// until withdrawn (untilWithdrawn) then waits in the Action Center.
const (
	// toastGroup is the group of every toast with a key.
	toastGroup = "mcptray"
	// toastTimeout bounds one PowerShell run (it starts in about a second).
	toastTimeout = 30 * time.Second
	// maxToastCommand is the most UTF-16 units of the base64 script on
	// PowerShell's command line (Windows allows 32767 in all); a longer
	// batch is split over several runs.
	maxToastCommand = 30000
	// The most runes of a title and of a body: a toast shows a few lines.
	maxToastTitle = 200
	maxToastBody  = 800
)

// systemNotifications is the desktop's notification service: on Windows
// toasts with a tag, as above.
func systemNotifications(a fyne.App) notificationService {
	return newToastNotifications(a.UniqueID(), func() string { return cachedIcon(a) }, runPowerShell)
}

// toastNotifications sends notices as toasts. post and withdraw queue an
// operation (noticeQueue); one goroutine (run, started by
// newToastNotifications, ended by close) turns what is queued into one
// script, runs it and waits for it, and owns the keys shown.
type toastNotifications struct {
	noticeQueue
	appID  string
	icon   func() string                             // the icon's path; called once, by run
	script func(ctx context.Context, s string) error // runs a script: runPowerShell
}

func newToastNotifications(appID string, icon func() string, script func(context.Context, string) error) *toastNotifications {
	t := &toastNotifications{appID: appID, icon: icon, script: script}
	t.start(t.run)
	return t
}

// run runs the queued operations, in order, a batch at a time; on close
// it withdraws every notice still shown with a key.
func (t *toastNotifications) run() {
	shown := map[string]bool{} // keys posted and not withdrawn since
	icon, iconRead := "", false
	for range t.wake {
		ops, closed := t.take()
		for _, op := range ops {
			if op.withdraw {
				delete(shown, op.n.key)
			} else if op.n.key != "" {
				shown[op.n.key] = true
			}
			if !op.withdraw && !iconRead {
				icon, iconRead = t.icon(), true
			}
		}
		if closed {
			for key := range shown {
				ops = append(ops, notifyOp{withdraw: true, n: notice{key: key}})
			}
		}
		for _, s := range toastScripts(t.appID, icon, ops) {
			ctx, cancel := context.WithTimeout(context.Background(), toastTimeout)
			if err := t.script(ctx, s); err != nil {
				// A notification is a courtesy: what it says is also in
				// the window and the tray.
				log.Printf("desktop notification: %v", err)
			}
			cancel()
		}
		if closed {
			return
		}
	}
}

// toastTag is the tag of the toasts posted with key: 16 hex digits of its
// hash, as Windows 10 before version 1703 takes at most 16 characters (64
// since) and a request's key is longer.
func toastTag(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

// toastPrelude is what every script starts with. Text decodes the base64
// of UTF-8 text: the titles and bodies (a server's words) reach PowerShell
// only as base64, never as code to parse, so no quote, `$(…)` or backtick
// in them is ever run. Post and Withdraw are Fyne's script with a tag,
// group and expiry added.
const toastPrelude = `$ErrorActionPreference = 'Stop'
function Text([string]$b64) { [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($b64)) }
[Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ContentType = WindowsRuntime] > $null
$app = Text '%s'
$group = '` + toastGroup + `'
function Post([string]$tag, [string]$title, [string]$body, [string]$icon, [int]$seconds) {
  $template = [Windows.UI.Notifications.ToastNotificationManager]::GetTemplateContent([Windows.UI.Notifications.ToastTemplateType]::ToastImageAndText02)
  $toastXml = [xml] $template.GetXml()
  $toastXml.GetElementsByTagName('text')[0].AppendChild($toastXml.CreateTextNode($title)) > $null
  $toastXml.GetElementsByTagName('text')[1].AppendChild($toastXml.CreateTextNode($body)) > $null
  $toastXml.GetElementsByTagName('image')[0].SetAttribute('src', $icon) > $null
  $xml = New-Object Windows.Data.Xml.Dom.XmlDocument
  $xml.LoadXml($toastXml.OuterXml)
  $toast = [Windows.UI.Notifications.ToastNotification]::new($xml)
  if ($tag) { $toast.Tag = $tag; $toast.Group = $group }
  if ($seconds -gt 0) { $toast.ExpirationTime = [DateTimeOffset]::Now.AddSeconds($seconds) }
  [Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier($app).Show($toast)
}
function Withdraw([string]$tag) {
  [Windows.UI.Notifications.ToastNotificationManager]::History.Remove($tag, $group, $app)
}
`

// toastScripts are the PowerShell scripts that run ops in order, each
// short enough for one command line (maxToastCommand). Each operation is
// one line that reports its own failure, so one failing does not stop
// the rest.
func toastScripts(appID, icon string, ops []notifyOp) []string {
	prelude := fmt.Sprintf(toastPrelude, b64(appID))
	iconURL := ""
	if icon != "" {
		iconURL = "file:///" + filepath.ToSlash(icon)
	}
	var scripts []string
	var b strings.Builder
	for _, op := range ops {
		var line string
		switch {
		case op.withdraw:
			line = fmt.Sprintf("Withdraw '%s'", toastTag(op.n.key))
		default:
			tag := ""
			if op.n.key != "" {
				tag = toastTag(op.n.key)
			}
			line = fmt.Sprintf("Post '%s' (Text '%s') (Text '%s') (Text '%s') %d", tag,
				b64(clip(op.n.title, maxToastTitle)), b64(clip(op.n.body, maxToastBody)), b64(iconURL),
				int(op.n.expire/time.Second))
		}
		line = "try { " + line + " } catch { [Console]::Error.WriteLine(\"$_\") }\n"
		if b.Len() > 0 && encodedLen(prelude+b.String()+line) > maxToastCommand {
			scripts = append(scripts, prelude+b.String())
			b.Reset()
		}
		b.WriteString(line)
	}
	if b.Len() > 0 {
		scripts = append(scripts, prelude+b.String())
	}
	return scripts
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// clip shortens s to at most n runes, ending it with "…" when cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// encodedCommand is script as PowerShell's -EncodedCommand takes it: the
// base64 of its UTF-16LE.
func encodedCommand(script string) string {
	units := utf16.Encode([]rune(script))
	buf := make([]byte, 2*len(units))
	for i, u := range units {
		binary.LittleEndian.PutUint16(buf[2*i:], u)
	}
	return base64.StdEncoding.EncodeToString(buf)
}

func encodedLen(script string) int {
	return base64.StdEncoding.EncodedLen(2 * len(utf16.Encode([]rune(script))))
}

// runPowerShell runs script with Windows PowerShell from System32 (never
// one found on PATH or in the current folder), without a console window,
// and waits for it. The script is given on the command line, in base64:
// no file is written.
func runPowerShell(ctx context.Context, script string) error {
	sys, err := windows.GetSystemDirectory()
	if err != nil {
		return fmt.Errorf("finding System32: %w", err)
	}
	exe := filepath.Join(sys, "WindowsPowerShell", "v1.0", "powershell.exe")
	cmd := exec.CommandContext(ctx, exe, "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass",
		"-EncodedCommand", encodedCommand(script))
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: windows.CREATE_NO_WINDOW}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("running the toast script: %w: %s", err, strings.TrimSpace(string(out)))
	}
	if msg := strings.TrimSpace(string(out)); msg != "" {
		return fmt.Errorf("running the toast script: %s", msg)
	}
	return nil
}
