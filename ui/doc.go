// Package ui is mcptray's desktop face, built with Fyne: the tray, the main
// window and the secret-inbox popup. It holds no business logic: it talks
// to the core only through the small Core interface it declares (satisfied
// by *app.Core), and every decision — what a toggle writes, whether an
// answer is valid, which events notify — is the core's.
//
// One screen or widget per file: tray.go (menu and icon), popup.go (the
// inbox popup), mainscreen.go (the window's tabs) over servers.go (with
// logpane.go, and serverform.go: its Add server… and Edit form), inbox.go, events.go, ssh.go, google.go (the Google
// accounts, and the gate that opens it when gcal or gmail is turned on
// with no account), assistants.go (the assistants' configs: Add, Remove,
// and importdialog.go's Import; connect.go, the snippets and the HTTP
// endpoint below them) and settings.go; form.go
// builds a request's form from its fields, requestview.go shows one
// request in the popup and the Inbox tab. desktop.go ties them together;
// run.go wires Fyne and the OS (tray host, autostart, clipboard, opener);
// children.go starts the window's and the popup's processes.
// notify.go decides what a desktop notification says and how long it
// stays; notify_linux.go sends it over org.freedesktop.Notifications from
// a goroutine of its own (started in Run, ended before Run returns, after
// withdrawing what is still shown), behind noticeQueue (notifyqueue.go).
//
// On Windows and macOS the tray is Fyne's (systray_other.go, with the PNG
// icons: Fyne cannot turn its SVG default into a Windows .ico) and always
// has a host (trayhost_other.go); on Linux it is fyne.io/systray over
// D-Bus (systray_linux.go, trayhost_linux.go). On Windows notifications
// are toasts that expire, are replaced by key and are withdrawn
// (notify_windows.go: one goroutine, like Linux's, runs a PowerShell
// script per batch, the texts in base64), and autostart is a value of
// the Run key (autostart_windows.go). On macOS notifications are Fyne's
// (notify_other.go: they neither expire nor are withdrawn) and autostart
// is a LaunchAgent (autostart.go). Fyne's loop dozes on Linux only
// (doze.go).
//
// Threading: widgets are touched only on the Fyne main goroutine. Each
// core subscription has one goroutine that applies what it receives through
// onMain (follow and followLoad in updates.go; onMain, in mainthread.go, is
// fyne.Do that queues nothing once the app has begun to quit — Fyne 2.7
// races a send against its queue's close — drops its function once Fyne's
// loop has ended, and wakes the loop from its doze: doze.go); callbacks
// from widgets and the tray already run on the main goroutine and call
// the core directly — but for the Assistants tab, which reads and writes
// the assistants' files and the keyring in a goroutine of its own per
// action (screenEnv.background) and applies the result through onMain,
// as the Google tab does with a sign-in.
// Fyne's thread checks stay on, and the tests fail on "Error in Fyne call
// thread".
//
// Processes: Run is the tray app, which builds no window (run.go). Its
// main window and its popup are processes of their own — RunWindow
// (`mcptray window`) and RunPopup (`mcptray popup`), over app/remote —
// which children.go starts, raises (their windows are held with the
// core's window registry: one per kind, also across a crash of the tray
// app) and ends when mcptray quits; the peer check knows them as the
// person's (RunOptions.Own). Closing the window ends its process, and the
// GL driver, the fonts and the widgets go with it (docs/performance.md,
// issue 31). Without Children, Run builds both in its own process (the
// tests of the screens, and BenchmarkWindowOpen's comparison).
//
// Run is the whole lifetime: it must be called on the main goroutine (the
// OS main thread), starts the followers, and stops them before it returns,
// once the app has quit (Quit in the tray, SIGTERM, or closing the window
// when there is no tray). RunWindow and RunPopup likewise.
package ui
