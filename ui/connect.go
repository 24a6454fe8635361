package ui

import (
	"encoding/json"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/control"
)

// connectScreen is the lower part of the Assistants tab: the mcptray entry
// to paste by hand into an assistant mcptray does not know (snippets for
// Claude Desktop, VS Code and Cursor, whose shapes most others share, with
// Copy buttons), the HTTP endpoint's URL and a button that copies its
// bearer token (which is never shown). Main goroutine only.
type connectScreen struct {
	core      Core
	clipboard fyne.Clipboard
	url       *widget.Label
	copyURL   *widget.Button
	warning   *widget.Label // why the URL is not the configured one; hidden when it is
	feedback  *widget.Label // what the last Copy did
	root      fyne.CanvasObject
}

// snippet is one assistant's config for mcptray.
type snippet struct {
	title, where, note, text string
}

// snippets are the configs for the assistants, running exe.
func snippets(exe string) []snippet {
	cmd, _ := json.Marshal(exe)
	return []snippet{
		{
			title: "Claude Desktop",
			where: "claude_desktop_config.json",
			note:  "Claude Desktop ignores tool-list changes, so it gets the stable list: every configured server's tools, even while one is off.",
			text: fmt.Sprintf(`{
  "mcpServers": {
    "mcptray": { "command": %s, "args": ["connect", "--tools", "stable"] }
  }
}`, cmd),
		},
		{
			title: "VS Code",
			where: ".vscode/mcp.json, or mcp.json in your user settings",
			text: fmt.Sprintf(`{
  "servers": {
    "mcptray": { "type": "stdio", "command": %s, "args": ["connect"] }
  }
}`, cmd),
		},
		{
			title: "Cursor",
			where: "~/.cursor/mcp.json",
			text: fmt.Sprintf(`{
  "mcpServers": {
    "mcptray": { "command": %s, "args": ["connect"] }
  }
}`, cmd),
		},
	}
}

func newConnectScreen(c Core, clipboard fyne.Clipboard, exe string) *connectScreen {
	s := &connectScreen{core: c, clipboard: clipboard}
	s.feedback = widget.NewLabel("")
	s.feedback.Wrapping = fyne.TextWrapWord

	intro := widget.NewLabel("By hand, for an assistant not listed above or a project's own config " +
		"(.vscode/mcp.json): the entry to paste, in the shape most assistants share.")
	intro.Wrapping = fyne.TextWrapWord
	box := container.NewVBox(intro)
	for _, sn := range snippets(exe) {
		box.Add(s.snippetCard(sn))
	}

	s.url = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	s.url.Wrapping = fyne.TextWrapBreak
	s.copyURL = widget.NewButtonWithIcon("Copy URL", theme.ContentCopyIcon(), func() {
		s.copy(s.url.Text, "URL")
	})
	s.warning = widget.NewLabel("")
	s.warning.Wrapping = fyne.TextWrapWord
	s.warning.Importance = widget.WarningImportance
	s.warning.Hide()
	copyToken := widget.NewButtonWithIcon("Copy token", theme.ContentCopyIcon(), s.copyToken)
	httpNote := widget.NewLabel("Streamable HTTP on loopback. Every request needs the header " +
		"\"Authorization: Bearer TOKEN\"; the token is kept in the OS keyring (`mcptray token` prints it).")
	httpNote.Wrapping = fyne.TextWrapWord
	box.Add(widget.NewCard("HTTP", "",
		container.NewVBox(
			container.NewBorder(nil, nil, nil, s.copyURL, s.url),
			s.warning,
			httpNote,
			container.NewHBox(copyToken))))
	box.Add(s.feedback)
	s.root = box
	return s
}

func (s *connectScreen) snippetCard(sn snippet) fyne.CanvasObject {
	code := widget.NewLabelWithStyle(sn.text, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	code.Wrapping = fyne.TextWrapBreak
	text := sn.text
	copyBtn := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		s.copy(text, sn.title+" config")
	})
	content := container.NewVBox(container.NewBorder(nil, nil, nil, container.NewVBox(copyBtn), code))
	if sn.note != "" {
		note := widget.NewLabel(sn.note)
		note.Wrapping = fyne.TextWrapWord
		content.Add(note)
	}
	return widget.NewCard(sn.title, sn.where, content)
}

// setStatus shows the HTTP endpoint's URL, or why it is off, and why it
// is not where it was configured to be.
func (s *connectScreen) setStatus(st control.Status) {
	s.warning.SetText(st.EndpointWarning)
	s.warning.Hidden = st.EndpointWarning == "" || st.Endpoint == ""
	s.warning.Refresh()
	switch {
	case st.Endpoint != "":
		s.url.SetText(st.Endpoint)
		s.url.Importance = widget.MediumImportance
		s.copyURL.Enable()
	case st.EndpointError != "":
		s.url.SetText(st.EndpointError)
		s.url.Importance = widget.DangerImportance
		s.copyURL.Disable()
	default:
		s.url.SetText("The HTTP endpoint is starting…")
		s.url.Importance = widget.LowImportance
		s.copyURL.Disable()
	}
	s.url.Refresh()
}

func (s *connectScreen) copy(text, what string) {
	s.clipboard.SetContent(text)
	s.say(widget.SuccessImportance, what+" copied to the clipboard.")
}

// copyToken puts the bearer token on the clipboard without showing it.
func (s *connectScreen) copyToken() {
	tok, err := s.core.Token()
	if err != nil {
		s.say(widget.DangerImportance, "No token: "+err.Error())
		return
	}
	s.clipboard.SetContent(tok)
	s.say(widget.SuccessImportance, "Token copied to the clipboard. Paste it where your assistant asks for it.")
}

func (s *connectScreen) say(imp widget.Importance, msg string) {
	s.feedback.Importance = imp
	s.feedback.SetText(msg)
}
