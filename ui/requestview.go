package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/inbox"
)

// requestView shows one inbox request and answers it: who asks and during
// which tool call, the message, a countdown to the deadline, then the form
// (Accept / Decline / Cancel), a yes/no question (or the server's own
// label for yes, e.g. Send / Cancel), or for a URL the host in large type
// with "Open in browser" / Decline. The popup and the Inbox tab
// both use it. Main goroutine only.
type requestView struct {
	req       inbox.Request
	answer    func(id string, a inbox.Answer) error // Core.Answer
	done      func(id string)                       // the request is answered or gone
	now       func() time.Time
	form      *requestForm // nil for a URL or a yes/no request
	countdown *widget.Label
	problem   *widget.Label // why the last answer failed
	accept    *widget.Button
	root      fyne.CanvasObject
}

func newRequestView(req inbox.Request, now func() time.Time, answer func(string, inbox.Answer) error, done func(string)) *requestView {
	v := &requestView{req: req, answer: answer, done: done, now: now}
	title := widget.NewLabelWithStyle(req.Server, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.countdown = widget.NewLabel("")
	v.tick()
	box := container.NewVBox(container.NewBorder(nil, nil, nil, v.countdown, title))
	if about := origin(req); about != "" {
		l := widget.NewLabel(about)
		l.Importance = widget.LowImportance
		l.Wrapping = fyne.TextWrapWord
		box.Add(l)
	}
	if req.Message != "" {
		msg := widget.NewLabel(req.Message)
		msg.Wrapping = fyne.TextWrapWord
		box.Add(msg)
	}
	v.problem = widget.NewLabel("")
	v.problem.Importance = widget.DangerImportance
	v.problem.Wrapping = fyne.TextWrapWord
	v.problem.Hide()

	decline := widget.NewButton("Decline", func() { v.send(inbox.ActionDecline) })
	cancel := widget.NewButton("Cancel", func() { v.send(inbox.ActionCancel) })
	var buttons *fyne.Container
	switch {
	case req.Kind == inbox.KindApproval:
		box.Add(approvalDetail(req))
		v.accept = widget.NewButton("Allow once", func() { v.sendScope(inbox.ActionAccept, inbox.ScopeOnce) })
		buttons = container.NewHBox(v.accept,
			widget.NewButton("Allow for this session", func() { v.sendScope(inbox.ActionAccept, inbox.ScopeSession) }),
			widget.NewButton("Always", func() { v.sendScope(inbox.ActionAccept, inbox.ScopeAlways) }),
			widget.NewButton("Deny", func() { v.send(inbox.ActionDecline) }))
	case req.Kind == inbox.KindToolChange:
		box.Add(toolChangeDetail(req))
		v.accept = widget.NewButton("Accept the change", func() { v.send(inbox.ActionAccept) })
		buttons = container.NewHBox(v.accept, widget.NewButton("Keep it held back", func() { v.send(inbox.ActionDecline) }))
	case req.Kind == inbox.KindLaunch:
		box.Add(launchDetail(req))
		v.accept = widget.NewButton("Allow it to run", func() { v.send(inbox.ActionAccept) })
		buttons = container.NewHBox(v.accept, widget.NewButton("Don't run it", func() { v.send(inbox.ActionDecline) }))
	case req.Kind == inbox.KindLaunchReset:
		box.Add(launchResetDetail(req))
		v.accept = widget.NewButton("Approve all", func() { v.send(inbox.ActionAccept) })
		buttons = container.NewHBox(v.accept, widget.NewButton("Choose one by one", func() { v.send(inbox.ActionDecline) }))
	case req.Kind == inbox.KindSignIn && req.Mode == "url":
		// No browser opened: the address to copy, and a way to give up.
		u := widget.NewLabelWithStyle(req.URL, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		u.Wrapping = fyne.TextWrapBreak
		u.Selectable = true
		box.Add(u)
		v.accept = widget.NewButton("Copy the address", func() {
			if a := fyne.CurrentApp(); a != nil {
				a.Clipboard().SetContent(req.URL)
			}
		})
		buttons = container.NewHBox(v.accept, widget.NewButton("Stop signing in", func() { v.send(inbox.ActionDecline) }))
	case req.Kind == inbox.KindSignIn:
		box.Add(signInDetail(req))
		v.accept = widget.NewButton("Sign in", func() { v.send(inbox.ActionAccept) })
		buttons = container.NewHBox(v.accept, widget.NewButton("Not now", func() { v.send(inbox.ActionDecline) }))
	case req.Mode == "url":
		host := widget.NewRichText(&widget.TextSegment{Style: widget.RichTextStyleHeading, Text: req.Host})
		u := widget.NewLabelWithStyle(req.URL, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		u.Wrapping = fyne.TextWrapBreak
		box.Add(widget.NewLabel("Open this site in your browser?"))
		box.Add(host)
		box.Add(u)
		v.accept = widget.NewButton("Open in browser", func() { v.send(inbox.ActionAccept) })
		buttons = container.NewHBox(v.accept, decline)
	default:
		if !req.Confirm {
			v.form = newRequestForm(req.Fields, func() { v.send(inbox.ActionAccept) }, func() { v.send(inbox.ActionCancel) })
			box.Add(v.form.root)
		}
		if req.Confirm && req.AcceptLabel != "" {
			// The server named its yes ("Send"): the choices are that or
			// not doing it.
			v.accept = widget.NewButton(req.AcceptLabel, func() { v.send(inbox.ActionAccept) })
			buttons = container.NewHBox(v.accept, widget.NewButton("Cancel", func() { v.send(inbox.ActionDecline) }))
			break
		}
		v.accept = widget.NewButton("Accept", func() { v.send(inbox.ActionAccept) })
		buttons = container.NewHBox(v.accept, decline, cancel)
	}
	v.accept.Importance = widget.HighImportance
	box.Add(v.problem)
	box.Add(container.NewBorder(nil, nil, nil, buttons))
	v.root = box
	return v
}

// origin says where a request comes from: the tool call, the assistant,
// or mcp.json.
func origin(req inbox.Request) string {
	switch {
	case req.Kind != "" && req.Kind != inbox.KindElicitation && req.Kind != inbox.KindInput:
		return "" // mcptray asks: the message says what about
	case req.Source == inbox.SourceConfig:
		return fmt.Sprintf("mcp.json asks for input %q to start %s.", req.Input, req.Server)
	case req.Tool != "" && req.Client != "":
		return fmt.Sprintf("During the call of its tool %s, from %s.", req.Tool, req.Client)
	case req.Tool != "":
		return fmt.Sprintf("During the call of its tool %s.", req.Tool)
	}
	return ""
}

// approvalDetail shows a tool call that waits: the tool and its hints,
// why mcptray asks, and the arguments (pretty-printed, long values folded
// by the core, secrets redacted), scrollable.
func approvalDetail(req inbox.Request) fyne.CanvasObject {
	ap := req.Approval
	if ap == nil {
		ap = &inbox.CallApproval{}
	}
	tool := "Tool: " + req.Tool
	switch {
	case ap.Destructive:
		tool += " (may destroy data)"
	case ap.ReadOnly:
		tool += " (only reads)"
	}
	who := req.Client
	if who == "" {
		who = "an assistant (it did not give its name)"
	}
	head := widget.NewLabel(fmt.Sprintf("%s\nServer: %s\nAssistant: %s", tool, req.Server, who))
	head.Wrapping = fyne.TextWrapWord
	why := widget.NewLabel("mcptray asks because " + ap.Why + ".")
	why.Importance = widget.LowImportance
	why.Wrapping = fyne.TextWrapWord
	args := widget.NewLabelWithStyle(ap.Arguments, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	args.Wrapping = fyne.TextWrapBreak
	args.Selectable = true
	scroll := container.NewVScroll(args)
	scroll.SetMinSize(fyne.NewSize(360, 140))
	return container.NewVBox(head, why, widget.NewLabel("Arguments:"), scroll)
}

// launchDetail shows what a new or changed entry would run: the file, the
// entry, the command line (variables other than paths as written: no
// secret value), the names of its environment, its working directory,
// what it ran before, and what changed beside the command line (values,
// files).
func launchDetail(req inbox.Request) fyne.CanvasObject {
	l := req.Launch
	if l == nil {
		l = &inbox.LaunchApproval{}
	}
	head := widget.NewLabel(fmt.Sprintf("File: %s\nEntry: %s", l.File, l.Entry))
	head.Wrapping = fyne.TextWrapWord
	box := container.NewVBox(head, widget.NewLabel("It runs:"), monoBlock(l.CommandLine))
	if len(l.EnvNames) > 0 {
		env := widget.NewLabel("With the variables (values not shown): " + strings.Join(l.EnvNames, ", "))
		env.Wrapping = fyne.TextWrapWord
		box.Add(env)
	}
	if l.Cwd != "" {
		box.Add(widget.NewLabel("In: " + l.Cwd))
	}
	if l.Previous != "" {
		box.Add(widget.NewLabel("It ran before:"))
		box.Add(monoBlock(l.Previous))
	}
	if len(l.Changes) > 0 {
		box.Add(widget.NewLabel("What changed since you approved it:"))
		box.Add(monoBlock(strings.Join(l.Changes, "\n")))
	}
	note := widget.NewLabel("A config edit runs code: allow it only if you made this change.")
	note.Importance = widget.LowImportance
	note.Wrapping = fyne.TextWrapWord
	box.Add(note)
	return box
}

// launchResetDetail lists what each entry would run, after mcptray's
// records were reset: approving all runs them, choosing asks for each.
func launchResetDetail(req inbox.Request) fyne.CanvasObject {
	r := req.Reset
	if r == nil {
		r = &inbox.LaunchReset{}
	}
	head := widget.NewLabel("File: " + r.File)
	head.Wrapping = fyne.TextWrapWord
	lines := make([]string, 0, len(r.Entries))
	for _, e := range r.Entries {
		lines = append(lines, e.Entry+": "+e.CommandLine)
	}
	scroll := container.NewVScroll(monoBlock(strings.Join(lines, "\n")))
	scroll.SetMinSize(fyne.NewSize(360, 140))
	note := widget.NewLabel("Approve all only if you know these entries: anything that can write your files could have added one.")
	note.Importance = widget.LowImportance
	note.Wrapping = fyne.TextWrapWord
	return container.NewVBox(head, scroll, note)
}

// toolChangeDetail shows how a pinned tool changed: its description before
// and now, and the other changes (schema, annotations), one per line.
func toolChangeDetail(req inbox.Request) fyne.CanvasObject {
	tc := req.ToolChange
	if tc == nil {
		tc = &inbox.ToolChange{}
	}
	box := container.NewVBox(
		widget.NewLabelWithStyle("Description before:", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), monoBlock(tc.OldDescription),
		widget.NewLabelWithStyle("Description now:", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), monoBlock(tc.NewDescription))
	if len(tc.Changes) > 0 {
		box.Add(widget.NewLabelWithStyle("Other changes:", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		box.Add(monoBlock(strings.Join(tc.Changes, "\n")))
	}
	scroll := container.NewVScroll(box)
	scroll.SetMinSize(fyne.NewSize(360, 220))
	return scroll
}

// monoBlock is text in a monospace font, wrapped anywhere, selectable.
func monoBlock(text string) *widget.Label {
	l := widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	l.Wrapping = fyne.TextWrapBreak
	l.Selectable = true
	return l
}

// tick shows the time left.
func (v *requestView) tick() {
	left := v.req.Deadline.Sub(v.now()).Round(time.Second)
	if v.req.Deadline.IsZero() {
		v.countdown.SetText("")
		return
	}
	if left <= 0 {
		v.countdown.SetText("Time is up")
		return
	}
	v.countdown.SetText(fmt.Sprintf("%d:%02d left", int(left.Minutes()), int(left.Seconds())%60))
}

// first is the input to focus first: the form's first field, else the
// main button.
func (v *requestView) first() fyne.Focusable {
	if v.form != nil {
		if f := v.form.first(); f != nil {
			return f
		}
	}
	return v.accept
}

// send answers with action: accept sends the form's content once every
// field checks out.
func (v *requestView) send(action string) { v.sendScope(action, "") }

// sendScope answers with action, and for an approval's yes how far it
// reaches.
func (v *requestView) sendScope(action, scope string) {
	a := inbox.Answer{Action: action, By: "ui", Scope: scope}
	if action == inbox.ActionAccept && v.form != nil {
		content, ok := v.form.content()
		if !ok {
			return
		}
		a.Content = content
	}
	err := v.answer(v.req.ID, a)
	var inv *inbox.InvalidAnswerError
	switch {
	case err == nil || errors.Is(err, inbox.ErrRequestClosed):
		if v.form != nil {
			v.form.clear()
		}
		v.done(v.req.ID)
	case errors.As(err, &inv) && v.form != nil && v.form.showError(inv.Field, inv.Reason):
	default:
		v.problem.SetText(err.Error())
		v.problem.Show()
	}
}

// signInDetail shows where a remote server's sign-in happens: the
// authorization server's host, prominently, and what a yes does.
func signInDetail(req inbox.Request) fyne.CanvasObject {
	host := ""
	if req.SignIn != nil {
		host = req.SignIn.IssuerHost
	}
	h := widget.NewRichText(&widget.TextSegment{Style: widget.RichTextStyleHeading, Text: host})
	note := widget.NewLabel("Sign in opens this site in your browser. The tokens it gives stay in your keyring; assistants never see them or this page.")
	note.Wrapping = fyne.TextWrapWord
	return container.NewVBox(h, note)
}
