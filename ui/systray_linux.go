package ui

import (
	"log"
	"time"

	"fyne.io/fyne/v2"
	fynedesktop "fyne.io/fyne/v2/driver/desktop"
	"fyne.io/systray"
)

// systrayHost shows the tray with fyne.io/systray (StatusNotifierItem and
// dbusmenu on the session bus) driven directly, not through Fyne's
// desktop.App, whose tray has two gaps (PLATFORM.md):
//
//   - it makes a checkbox only of a checked item: a server that is off
//     would show as a plain item, not as an unchecked box;
//   - to learn that the session asks it to quit it creates a hidden
//     window at start, with a GL context: the GL driver is loaded (under
//     Mesa's llvmpipe ≈ 80 MB resident) while no window is ever shown.
//
// Here the GL driver is loaded only when a window first opens. Main
// goroutine only, like the rest of the UI; a click runs the item's action
// with onMain.
type systrayHost struct {
	started bool
	end     func()

	icon    fyne.Resource // the icon wanted
	iconSet time.Time     // when an icon was last given to the library
	pending *time.Timer   // a change waiting for iconSettle; nil if none

	shown []shownItem // the menu's items as the library has them
}

// shownItem is one item of the menu as given to the library: a change that
// keeps every item's kind is made in place (see setMenu).
type shownItem struct {
	kind     byte              // '-' separator, 'c' checkbox, 'p' plain
	item     *systray.MenuItem // nil for a separator
	label    string
	checked  bool
	disabled bool
	action   *func() // read at a click, on the main goroutine; replaced in place
}

// iconSettle is the least time between two icon changes. A tray host reads
// the icon after each change; a change while it reads races inside
// godbus's prop package, which writes the new value into the old one in
// place (an attention icon set and cleared at once, when a request is
// answered quickly, is where that happens). Waiting lets each read finish,
// and spares the person a flicker.
const iconSettle = 500 * time.Millisecond

func newSystemTrayHost(fynedesktop.App) systemTrayHost { return &systrayHost{} }

// start registers the tray item on the session bus (its menu is set next).
func (h *systrayHost) start() {
	h.started = true
	var start func()
	start, h.end = systray.RunWithExternalLoop(nil, nil)
	start()
	systray.SetTitle("mcptray") // some XDG trays crash on an item without a title
	systray.SetTooltip("mcptray")
}

// setMenu shows m. When every item keeps its kind (separator, checkbox,
// plain) — a server's state, a count or a check changed — the items are
// changed in place and keep their dbusmenu ids: a click on the menu a tray
// host showed just before still reaches its item (a rebuilt menu's new ids
// would make the host's click miss). Otherwise the menu is rebuilt.
func (h *systrayHost) setMenu(m trayMenu) {
	if !h.started {
		h.start()
	}
	if h.sameKinds(m) {
		for i, it := range m.Items {
			h.shown[i].update(it, m.checkbox[it])
		}
		return
	}
	systray.ResetMenu() // removing the old items ends their click goroutines
	h.shown = h.shown[:0]
	for _, it := range m.Items {
		if it.IsSeparator {
			systray.AddSeparator()
			h.shown = append(h.shown, shownItem{kind: '-'})
			continue
		}
		sh := shownItem{kind: 'p', label: it.Label, checked: it.Checked, disabled: it.Disabled, action: new(func())}
		if m.checkbox[it] {
			sh.kind = 'c'
			sh.item = systray.AddMenuItemCheckbox(it.Label, "", it.Checked)
		} else {
			sh.item = systray.AddMenuItem(it.Label, "")
		}
		if it.Disabled {
			sh.item.Disable()
		}
		*sh.action = it.Action
		h.shown = append(h.shown, sh)
		go func(clicked <-chan struct{}, action *func()) {
			for range clicked {
				onMain(func() {
					if f := *action; f != nil {
						f()
					}
				})
			}
		}(sh.item.ClickedCh, sh.action)
	}
}

// sameKinds reports whether m's items are, one by one, of the kinds shown.
func (h *systrayHost) sameKinds(m trayMenu) bool {
	if len(m.Items) != len(h.shown) {
		return false
	}
	for i, it := range m.Items {
		kind := byte('p')
		switch {
		case it.IsSeparator:
			kind = '-'
		case m.checkbox[it]:
			kind = 'c'
		}
		if h.shown[i].kind != kind {
			return false
		}
	}
	return true
}

// update changes a shown item, of the same kind, into it; only what
// differs is given to the library (each change is a signal on the bus).
func (sh *shownItem) update(it *fyne.MenuItem, checkbox bool) {
	if sh.kind == '-' {
		return
	}
	*sh.action = it.Action
	if it.Label != sh.label {
		sh.label = it.Label
		sh.item.SetTitle(it.Label)
	}
	if checkbox && it.Checked != sh.checked {
		sh.checked = it.Checked
		if it.Checked {
			sh.item.Check()
		} else {
			sh.item.Uncheck()
		}
	}
	if it.Disabled != sh.disabled {
		sh.disabled = it.Disabled
		if it.Disabled {
			sh.item.Disable()
		} else {
			sh.item.Enable()
		}
	}
}

// setIcon sets the icon; before start it only records it, and the item
// registers with it (a host reads every property then: see iconSettle).
// A change within iconSettle of the last one waits for the rest of it.
func (h *systrayHost) setIcon(r fyne.Resource) {
	h.icon = r
	if h.pending != nil {
		return // the waiting change will show the latest icon
	}
	if wait := iconSettle - time.Since(h.iconSet); h.started && wait > 0 {
		h.pending = time.AfterFunc(wait, func() {
			onMain(func() {
				if h.pending != nil {
					h.pending = nil
					h.showIcon()
				}
			})
		})
		return
	}
	h.showIcon()
}

func (h *systrayHost) showIcon() {
	h.iconSet = time.Now()
	systray.SetIcon(h.icon.Content()) // PNG: SVG does not show in SNI trays
}

// close takes the item off the bus.
func (h *systrayHost) close() {
	if h.pending != nil {
		h.pending.Stop()
		h.pending = nil
	}
	if !h.started {
		return
	}
	h.started = false
	h.shown = nil
	defer func() {
		if r := recover(); r != nil { // the library panics when the bus went away first
			log.Printf("closing the tray: %v", r)
		}
	}()
	h.end()
}
