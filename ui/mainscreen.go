package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"github.com/mcptray/mcptray/app"
)

// mainScreen is the main window's content: the config-error banner over the
// server list. Main goroutine only.
type mainScreen struct {
	banner  *configBanner
	servers *serversScreen
	root    fyne.CanvasObject
}

func newMainScreen(c Core, onError func(error)) *mainScreen {
	m := &mainScreen{
		banner:  newConfigBanner(),
		servers: newServersScreen(c, onError),
	}
	m.root = container.NewBorder(m.banner.root, nil, nil, nil, m.servers.root)
	return m
}

// apply shows st.
func (m *mainScreen) apply(st app.Status) {
	m.banner.set(st.ConfigPath, st.ConfigError)
	m.servers.setServers(st.Servers)
}
