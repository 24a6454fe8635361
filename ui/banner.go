package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// configBanner shows why the config file on disk was not applied (it does not
// parse; the last good config keeps running), with a button that opens the
// file. It is hidden while there is no such error. Main goroutine only.
type configBanner struct {
	title  *widget.Label
	detail *widget.Label
	open   *widget.Button
	path   string // the config file shown
	root   *fyne.Container
}

// newConfigBanner builds the banner; openConfig opens the file at path in
// the person's editor.
func newConfigBanner(openConfig func(path string)) *configBanner {
	b := &configBanner{
		title:  widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		detail: widget.NewLabel(""),
	}
	b.title.Importance = widget.DangerImportance
	b.title.Wrapping = fyne.TextWrapWord
	b.detail.Wrapping = fyne.TextWrapWord
	b.open = widget.NewButtonWithIcon("Open config", theme.DocumentIcon(), func() { openConfig(b.path) })
	b.root = container.NewBorder(nil, nil,
		widget.NewIcon(theme.NewErrorThemedResource(theme.ErrorIcon())),
		container.NewCenter(b.open),
		container.NewVBox(b.title, b.detail))
	b.root.Hide()
	return b
}

// set shows msg for the config file at path, or hides the banner when msg is
// empty.
func (b *configBanner) set(path, msg string) {
	b.path = path
	if msg == "" {
		b.root.Hide()
		return
	}
	title := "The config file has an error; the last good config keeps running."
	if path != "" {
		title = path + " has an error; the last good config keeps running."
	}
	b.title.SetText(title)
	b.detail.SetText(msg)
	b.root.Show()
}
