package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/control"
)

// testExe is the executable the Assistants tab's snippets and autostart name in
// widget tests.
const testExe = "/usr/local/bin/mcptray"

// testEnv is a screenEnv for widget tests: the test app's clipboard, the
// fixed clock testNow, an XDG autostart in a temp dir, and errors and
// opened config files recorded in the returned *recorded.
func testEnv(t *testing.T, a fyne.App, c Core) (screenEnv, *recorded) {
	rec := &recorded{}
	return screenEnv{
		core:       c,
		clipboard:  a.Clipboard(),
		exe:        testExe,
		now:        func() time.Time { return testNow },
		notify:     notifier{app: a},
		autostart:  xdgAutostart(t.TempDir(), testExe),
		openConfig: func(path string) { rec.opened = append(rec.opened, path) },
		onError:    func(err error) { rec.errors = append(rec.errors, err.Error()) },
		background: func(f func()) { f() }, // the test driver runs fyne.Do inline
	}, rec
}

// recorded is what a test env saw (main goroutine only).
type recorded struct {
	errors []string // errors shown to the person
	opened []string // config files opened
}

// showMain puts a main screen for c, showing st, in a test window.
func showMain(t *testing.T, c Core, st control.Status) (*mainScreen, fyne.Window, *recorded) {
	t.Helper()
	failOnThreadErrors(t)
	a := test.NewTempApp(t)
	env, rec := testEnv(t, a, c)
	var w fyne.Window
	env.window = func() fyne.Window { return w } // the window the dialogs open over
	m := newMainScreen(env, "")
	t.Cleanup(m.close)
	m.apply(st)
	w = test.NewTempWindow(t, m.root)
	w.Resize(fyne.NewSize(900, 560))
	return m, w, rec
}
