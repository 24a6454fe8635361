package ui

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/assistants"
	"github.com/mcptray/mcptray/app/control"
)

// AssistantsCore is what the Assistants tab needs from the core (part of
// Core): the assistants' configs as `mcptray setup` and `mcptray import`
// edit them. Each call may read files or the keyring: the tab makes them
// off the main goroutine, but for ImportDiff, which reads nothing.
type AssistantsCore interface {
	// Assistants lists the assistants mcptray knows and what their
	// configs hold.
	Assistants() ([]assistants.Summary, error)
	// PlanAssistant computes the edit that adds mcptray to client's config
	// (or removes it); its Write writes it.
	PlanAssistant(client string, remove bool) (*assistants.Change, error)
	// PlanImport reads client's servers for an import into mcp.json;
	// ImportDiff is what ApplyImport would write with a choice (secrets
	// shown as ********); ApplyImport stores the secrets to move, then
	// writes.
	PlanImport(client string) (*assistants.ImportPlan, error)
	ImportDiff(p *assistants.ImportPlan, ch assistants.ImportChoice) (string, error)
	ApplyImport(p *assistants.ImportPlan, ch assistants.ImportChoice) error
}

// assistantsScreen is the Assistants tab: a row per assistant mcptray
// knows (its config file, whether mcptray is in it, and Add, Remove and
// Import, each showing what it will write and asking first), then the
// snippets for the others and the HTTP endpoint (connect.go). The
// assistants' files are read and written, and secrets stored, off the
// main goroutine (background); the results come back through onMain.
// Main goroutine only.
type assistantsScreen struct {
	core       Core
	win        func() fyne.Window // the window the dialogs open over
	onError    func(error)
	background func(func()) // runs work that may block; tests run it inline

	rows    *fyne.Container
	connect *connectScreen
	box     *fyne.Container // the tab's content, in root's scroll
	root    fyne.CanvasObject

	list []assistants.Summary // what the rows show
	// notes say, in an assistant's row, what its last Add, Remove or
	// Import did and what the person does next ("Restart Claude Desktop
	// to load mcptray."), by name: seen where the person clicked.
	notes map[string]rowNote
	shown bool // the rows show list (not an error)
	busy  bool // a plan or a write is under way: the buttons are off
	gen   int  // the latest refresh; an older one's result is dropped
}

func newAssistantsScreen(env screenEnv) *assistantsScreen {
	s := &assistantsScreen{core: env.core, win: env.window, onError: env.onError, background: env.background,
		rows: container.NewVBox(), notes: map[string]rowNote{},
		connect: newConnectScreen(env.core, env.clipboard, env.exe)}
	if s.background == nil {
		s.background = func(f func()) { go f() }
	}
	intro := widget.NewLabel("mcptray is one MCP server for all of yours. Add it to your assistants " +
		"(mcptray starts by itself when one connects), or import their servers into mcp.json. " +
		"Each change is shown before it is written, and a copy of the file is kept beside it.")
	intro.Wrapping = fyne.TextWrapWord
	s.box = container.NewVBox(intro, s.rows, widget.NewSeparator(), s.connect.root)
	s.root = container.NewVScroll(s.box)
	s.refresh()
	return s
}

// refresh reads the assistants' configs again (`mcptray setup` or the
// assistant itself may have changed them).
func (s *assistantsScreen) refresh() {
	s.gen++
	gen := s.gen
	s.background(func() {
		list, err := s.core.Assistants()
		onMain(func() {
			if gen != s.gen {
				return
			}
			if err == nil && s.shown && slices.Equal(list, s.list) {
				return // as shown: the buttons stay, and a click under way lands
			}
			s.show(list, err)
		})
	})
}

// show puts list in the rows.
func (s *assistantsScreen) show(list []assistants.Summary, err error) {
	s.list, s.shown = list, err == nil
	s.rows.RemoveAll()
	if err != nil {
		l := widget.NewLabel("Cannot read the assistants' configs: " + err.Error())
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.DangerImportance
		s.rows.Add(l)
		return
	}
	for i, a := range list {
		if i > 0 {
			s.rows.Add(widget.NewSeparator())
		}
		s.rows.Add(s.row(a))
	}
}

// setBusy turns the rows' buttons off while a plan or a write is under
// way (and on again after).
func (s *assistantsScreen) setBusy(busy bool) {
	s.busy = busy
	s.show(s.list, nil)
}

// assistantState is what a row's badge says, and in which colours.
func assistantState(a assistants.Summary) (text string, bg, fg fyne.ThemeColorName) {
	switch {
	case a.Error != "" && a.Exists:
		return "config broken", theme.ColorNameError, theme.ColorNameForegroundOnError
	case a.Error != "":
		return "config not found", theme.ColorNameWarning, theme.ColorNameForegroundOnWarning
	case a.Current:
		return "mcptray present", theme.ColorNameSuccess, theme.ColorNameForegroundOnSuccess
	case a.Installed:
		return "other mcptray", theme.ColorNameWarning, theme.ColorNameForegroundOnWarning
	case a.Exists:
		return "mcptray absent", theme.ColorNameDisabledButton, theme.ColorNameForeground
	}
	return "no config yet", theme.ColorNameDisabledButton, theme.ColorNameForeground
}

// row is one assistant: its name, state and config file, why the file
// is refused or what to do after a change, and the buttons its state
// allows.
func (s *assistantsScreen) row(a assistants.Summary) fyne.CanvasObject {
	name := a.Name
	title := widget.NewLabelWithStyle(a.Display, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	state, bg, fg := assistantState(a)
	path := widget.NewLabel(a.Path)
	path.SizeName = theme.SizeNameCaptionText
	path.Wrapping = fyne.TextWrapBreak
	detail := container.NewVBox(container.NewHBox(title, badge(state, bg, fg)), path)
	if a.Error == "" && a.Mode != "" {
		tools := widget.NewLabel(toolsLine(a, readyTools(s.core.Status())))
		tools.SizeName = theme.SizeNameCaptionText
		tools.Wrapping = fyne.TextWrapWord
		detail.Add(tools)
	}
	var note string
	switch {
	case a.Error != "":
		note = a.Error
	case a.Installed && !a.Current:
		note = "Its mcptray entry runs another mcptray (moved or reinstalled): Add points it at this one."
	}
	if note != "" {
		l := widget.NewLabel(note)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.DangerImportance
		if a.Error == "" {
			l.Importance = widget.WarningImportance
		}
		detail.Add(l)
	}
	if n := s.notes[name]; n.text != "" {
		l := widget.NewLabel(n.text)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = n.importance
		detail.Add(l)
	}
	add := widget.NewButtonWithIcon("Add", theme.ContentAddIcon(), func() { s.plan(name, false) })
	remove := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() { s.plan(name, true) })
	imp := widget.NewButtonWithIcon("Import", theme.DownloadIcon(), func() { s.planImport(name) })
	ok := a.Error == "" && !s.busy
	enable(add, ok && !a.Current)
	enable(remove, ok && a.Installed)
	enable(imp, ok && a.Exists)
	// The buttons at the top, not stretched to a long error's height.
	return container.NewBorder(nil, nil, nil, container.NewVBox(container.NewHBox(add, remove, imp)), detail)
}

// toolsLine is what a row says of the tools the assistant is given: its
// entry's mode and how many tools that is now, and, past what it handles
// well, the command that gives it dynamic mode.
func toolsLine(a assistants.Summary, ready int) string {
	n := assistants.ToolsSeen(a.Mode, ready)
	line := fmt.Sprintf("Tools: %s mode, %d tools now", a.Mode, n)
	if a.Budget > 0 && a.Mode != assistants.ModeDynamic && n > a.Budget {
		line += fmt.Sprintf(", more than %s handles well (%d): `mcptray setup %s --tools dynamic` gives it a tool search instead", a.Display, a.Budget, a.Name)
	}
	return line
}

// readyTools counts the tools of the ready servers.
func readyTools(st control.Status) int {
	n := 0
	for _, s := range st.Servers {
		if s.State == control.StateReady {
			n += s.Tools
		}
	}
	return n
}

func enable(b *widget.Button, on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}

// badge is text on a rounded patch of colour bg, as the Servers tab shows
// a state.
func badge(text string, bg, fg fyne.ThemeColorName) fyne.CanvasObject {
	rect := canvas.NewRectangle(theme.Color(bg))
	rect.CornerRadius = 6
	t := canvas.NewText(text, theme.Color(fg))
	t.TextSize = theme.CaptionTextSize()
	t.TextStyle.Bold = true
	return container.NewCenter(container.NewStack(rect, container.New(badgePadding{}, t)))
}

// badgePadding lays its one object out with badgePad around it
// (badge.go's padding of a state badge).
type badgePadding struct{}

func (badgePadding) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m := objs[0].MinSize()
	return fyne.NewSize(m.Width+2*badgePad, m.Height+badgePad)
}

func (badgePadding) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(badgePad, badgePad/2))
	objs[0].Resize(fyne.NewSize(size.Width-2*badgePad, size.Height-badgePad))
}

// plan computes Add's (or Remove's) edit of client's config and shows it.
func (s *assistantsScreen) plan(client string, remove bool) {
	s.setBusy(true)
	s.background(func() {
		ch, err := s.core.PlanAssistant(client, remove)
		onMain(func() {
			if err == nil && ch.Write == nil {
				s.notes[client] = rowNote{"Nothing to change in " + ch.Path + ".", widget.MediumImportance}
			}
			s.setBusy(false)
			switch {
			case err != nil:
				s.onError(err)
				s.refresh()
			case ch.Write == nil:
				s.refresh()
			default:
				s.confirmChange(ch)
			}
		})
	})
}

// confirmChange shows a change's diff and asks before writing it.
func (s *assistantsScreen) confirmChange(ch *assistants.Change) {
	title, what := "Add mcptray to "+ch.Display+"?", "This change goes into "+ch.Path
	if ch.Remove {
		title = "Remove mcptray from " + ch.Display + "?"
	}
	switch {
	case ch.Delete:
		what = "mcptray deletes " + ch.Path + ", which it had created and which holds nothing else now:"
	case ch.Backup != "":
		what += " (a copy of the file as it is now goes to " + ch.Backup + " first):"
	default:
		what += ", a new file:"
	}
	intro := widget.NewLabel(what)
	intro.Wrapping = fyne.TextWrapWord
	scroll := container.NewScroll(diffText(ch.Diff))
	scroll.SetMinSize(fyne.NewSize(640, 280))
	d := dialog.NewCustomWithoutButtons(title, container.NewBorder(intro, nil, nil, nil, scroll), s.win())
	write := widget.NewButtonWithIcon("Write", theme.DocumentSaveIcon(), func() {
		d.Hide()
		s.write(ch)
	})
	write.Importance = widget.HighImportance
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), d.Hide)
	d.SetButtons([]fyne.CanvasObject{cancel, write})
	d.Resize(fyne.NewSize(760, 500))
	d.Show()
}

// diffText is a diff in a monospace label, its lines as they are (the
// scroll around it scrolls sideways too).
func diffText(diff string) *widget.Label {
	l := widget.NewLabelWithStyle(strings.TrimSuffix(diff, "\n"), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	l.Selectable = true
	return l
}

// write writes a change the person confirmed, then shows what to do for
// the assistant to notice it.
func (s *assistantsScreen) write(ch *assistants.Change) {
	s.setBusy(true)
	s.background(func() {
		err := ch.Write()
		onMain(func() {
			if err != nil {
				delete(s.notes, ch.Client)
				s.setBusy(false)
				s.onError(fmt.Errorf("writing %s: %w", ch.Path, err))
				s.refresh()
				return
			}
			done := "Added mcptray."
			if ch.Remove {
				done = "Removed mcptray."
			}
			if ch.Backup != "" {
				done = strings.TrimSuffix(done, ".") + " (the file as it was: " + ch.Backup + ")."
			}
			s.notes[ch.Client] = rowNote{done + " " + reloadHint(ch.Display, ch.Hint), widget.SuccessImportance}
			s.setBusy(false)
			s.refresh()
		})
	})
}

// reloadHint is the line a row shows after a write: what the person does
// for the assistant to read its config again.
func reloadHint(display, hint string) string {
	if hint == "" {
		return display + " reads the change by itself."
	}
	return strings.ToUpper(hint[:1]) + hint[1:] + "."
}

// planImport reads client's servers and shows the import dialog.
func (s *assistantsScreen) planImport(client string) {
	s.setBusy(true)
	s.background(func() {
		p, err := s.core.PlanImport(client)
		onMain(func() {
			s.setBusy(false)
			if err != nil {
				s.onError(err)
				s.refresh()
				return
			}
			newImportDialog(s, p).show()
		})
	})
}

// applyImport writes an import the person confirmed with choice ch.
func (s *assistantsScreen) applyImport(p *assistants.ImportPlan, ch assistants.ImportChoice) {
	s.setBusy(true)
	s.background(func() {
		err := s.core.ApplyImport(p, ch)
		onMain(func() {
			if err != nil {
				delete(s.notes, p.Client)
				s.setBusy(false)
				s.onError(fmt.Errorf("importing from %s: %w", p.Display, err))
				s.refresh()
				return
			}
			copied, moved := 0, 0
			for _, srv := range p.Servers {
				if srv.Skip == "" {
					copied++
				}
			}
			for _, m := range ch.Move {
				if m {
					moved++
				}
			}
			done := fmt.Sprintf("Imported %d server(s) into %s", copied, p.Config)
			if moved > 0 {
				done += fmt.Sprintf("; moved %d secret(s) into the keyring", moved)
			}
			if ch.Replace {
				done += ". mcptray took their place in " + p.Display + "'s config. " + reloadHint(p.Display, p.Hint)
			} else {
				done += ". " + p.Display + " still runs them too."
			}
			s.notes[p.Client] = rowNote{done, widget.SuccessImportance}
			s.setBusy(false)
			s.refresh()
		})
	})
}

// rowNote is what an assistant's row says after an action.
type rowNote struct {
	text       string
	importance widget.Importance
}
