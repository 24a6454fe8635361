package ui

import (
	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/dialog"

	"github.com/mcptray/mcptray/assets"
)

// AppID is the Fyne application ID (preferences and storage are kept under it).
const AppID = "io.github.mcptray"

// Run builds the Fyne app and shows the main window: the server list with a
// check per server, and the config error as a banner. It must be called on
// the main goroutine (the OS main thread) and blocks until the app quits,
// then returns nil.
//
// When a session D-Bus is reachable the app gets a tray icon and menu, and
// closing the window only hides it; otherwise closing the window quits.
// One goroutine follows c.Subscribe and applies each status inside fyne.Do;
// it is stopped before Run returns.
func Run(c Core) error {
	a := fyneapp.NewWithID(AppID)
	a.SetIcon(assets.Icon)
	w := a.NewWindow("mcptray")

	screen := newMainScreen(c, func(err error) { dialog.ShowError(err, w) })
	// Subscribe before reading the status, so no change falls in between.
	updates, cancel := c.Subscribe()
	defer cancel()
	screen.apply(c.Status())
	w.SetContent(screen.root)
	w.Resize(fyne.NewSize(760, 420))
	stop := follow(updates, screen.apply)
	defer stop()

	// Every way to quit goes through here, so no update is applied while
	// the app winds down.
	quit := func() {
		stop()
		a.Quit()
	}
	if setTray(a, w, quit) {
		w.SetCloseIntercept(w.Hide)
	} else {
		w.SetCloseIntercept(quit)
	}

	w.Show()
	a.Run()
	return nil
}
