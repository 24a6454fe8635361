package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/assistants"
)

// importDialog asks before an import of an assistant's servers into
// mcp.json: the servers found (and the new names of those whose name
// mcp.json has already), a check per value that looks like a secret
// ("move to the keyring", ticked), a check to take the servers out of the
// assistant's config and put mcptray there (not ticked), and the diffs
// that follow from the checks (secrets as ********), then Import or
// Cancel. The diffs are recomputed on each change of a check, on the main
// goroutine: ImportDiff reads no file. Main goroutine only.
type importDialog struct {
	s       *assistantsScreen
	plan    *assistants.ImportPlan
	moves   []*widget.Check // one per plan.Secrets, in order
	replace *widget.Check
	diff    *widget.Label
	ok      *widget.Button // Import
	d       *dialog.CustomDialog
}

func newImportDialog(s *assistantsScreen, p *assistants.ImportPlan) *importDialog {
	id := &importDialog{s: s, plan: p}
	box := container.NewVBox()
	label := func(text string, imp widget.Importance) {
		l := widget.NewLabel(text)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = imp
		box.Add(l)
	}
	switch {
	case len(p.Servers) == 0:
		label(fmt.Sprintf("%s has no servers to import (%s).", p.Display, p.From), widget.MediumImportance)
	default:
		label(fmt.Sprintf("The servers of %s (%s), into %s:", p.Display, p.From, p.Config), widget.MediumImportance)
	}
	for _, srv := range p.Servers {
		line := "• " + srv.Name
		if srv.Project != "" {
			line += " (project " + srv.Project + ")"
		}
		imp := widget.MediumImportance
		switch {
		case srv.Skip != "":
			line += ": not copied, " + srv.Skip
			imp = widget.LowImportance
		case srv.As != srv.Name:
			line += " → " + srv.As + " (mcp.json has a " + srv.Name + " already)"
			imp = widget.WarningImportance
		}
		label(line, imp)
	}
	for _, n := range p.Notes {
		label("Note: "+n, widget.WarningImportance)
	}
	if len(p.Secrets) > 0 {
		label("These values look like secrets. A ticked one moves into the OS keyring, and mcp.json refers to it; "+
			"an unticked one is copied into mcp.json as it is. No value is shown here.", widget.MediumImportance)
		for _, sec := range p.Secrets {
			// A check cannot wrap its text: the secret's names go in a
			// label beside it, which can.
			c := widget.NewCheck("move to the keyring:", func(bool) { id.update() })
			c.Checked = true
			id.moves = append(id.moves, c)
			what := widget.NewLabel(fmt.Sprintf("%s's %s %s, as %s", sec.Server, sec.Field, sec.Key, sec.Reference))
			what.Wrapping = fyne.TextWrapBreak
			box.Add(container.NewBorder(nil, nil, c, nil, what))
		}
	}
	id.replace = widget.NewCheck(fmt.Sprintf("take them out of %s and put mcptray there, so that none runs twice", p.Display),
		func(bool) { id.update() })
	if len(p.Servers) > 0 {
		box.Add(id.replace)
	}
	id.diff = diffText("")
	id.diff.Wrapping = fyne.TextWrapBreak
	box.Add(widget.NewLabelWithStyle("What Import writes:", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	box.Add(id.diff)
	scroll := container.NewVScroll(box)
	scroll.SetMinSize(fyne.NewSize(640, 320))

	id.d = dialog.NewCustomWithoutButtons("Import the servers of "+p.Display+"?", scroll, s.win())
	id.ok = widget.NewButtonWithIcon("Import", theme.DownloadIcon(), func() {
		id.d.Hide()
		s.applyImport(p, id.choice())
	})
	id.ok.Importance = widget.HighImportance
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), id.d.Hide)
	id.d.SetButtons([]fyne.CanvasObject{cancel, id.ok})
	id.d.Resize(fyne.NewSize(780, 520))
	id.update()
	return id
}

// choice is what the checks say.
func (id *importDialog) choice() assistants.ImportChoice {
	ch := assistants.ImportChoice{Replace: id.replace.Checked, Move: make([]bool, len(id.moves))}
	for i, c := range id.moves {
		ch.Move[i] = c.Checked
	}
	return ch
}

// update shows the diffs of the current choice.
func (id *importDialog) update() {
	d, err := id.s.core.ImportDiff(id.plan, id.choice())
	switch {
	case err != nil:
		id.diff.SetText("The import cannot be written: " + err.Error())
		id.diff.Importance = widget.DangerImportance
	case d == "":
		id.diff.SetText("Nothing: mcp.json has these servers already, and " + id.plan.Display + "'s config stays as it is.")
		id.diff.Importance = widget.LowImportance
	default:
		id.diff.SetText(strings.TrimSuffix(d, "\n"))
		id.diff.Importance = widget.MediumImportance
	}
	id.diff.Refresh()
	enable(id.ok, err == nil && d != "")
}

func (id *importDialog) show() { id.d.Show() }
