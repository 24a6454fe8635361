package ui

import (
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/control"
)

// sampleTools are notes' tools: one of each kind of row.
func sampleTools(name string) (control.ToolList, error) {
	if name != "notes" {
		return control.ToolList{Server: name, State: control.StateDisabled, Cached: true, Tools: []control.ToolInfo{}}, nil
	}
	return control.ToolList{Server: name, State: control.StateReady, Tools: []control.ToolInfo{
		{Name: "read_note", Title: "Read a note", Description: "Reads a note.", ReadOnly: true, Idempotent: true, Enabled: true},
		{Name: "write_note", Description: "Writes a note.", Enabled: true, Approval: true},
		{Name: "delete_note", Description: "Deletes a note.", Destructive: true, OpenWorld: true, Enabled: false, OffBy: "delete_*", Approval: true},
	}}, nil
}

// toolRow finds the row of the tools pane showing tool.
func toolRow(t *testing.T, w fyne.Window, tool string) *fyne.Container {
	t.Helper()
	for _, o := range test.LaidOutObjects(w.Canvas().Content()) {
		c, ok := o.(*fyne.Container)
		if !ok || len(c.Objects) != toolColDesc+1 {
			continue
		}
		if l, ok := c.Objects[toolColName].(*widget.Label); ok && l.Text == tool {
			return c
		}
	}
	t.Fatalf("no row shows tool %q", tool)
	return nil
}

func shownHints(r *fyne.Container) []string {
	var out []string
	for _, o := range r.Objects[toolColHints].(*fyne.Container).Objects {
		if o.Visible() {
			out = append(out, o.(*stateBadge).State)
		}
	}
	return out
}

// Selecting a server shows its tools: a check each (on or off), the name,
// badges for the hints, the description; a tap on a check turns the tool
// off or on through the core, and a failure puts the check back.
func TestToolsPane(t *testing.T) {
	var calls []string
	fail := false
	c := &fakeCore{tools: sampleTools, setTool: func(server, tool string, on bool) error {
		calls = append(calls, server+"/"+tool+"/"+map[bool]string{true: "on", false: "off"}[on])
		if fail {
			return errors.New("mcp.json does not parse")
		}
		return nil
	}}
	_, w, rec := showMain(t, c, twoServers())
	for tool, want := range map[string]string{
		"read_note":   "read-only,idempotent",
		"write_note":  "asks first",
		"delete_note": "destructive,open-world",
	} {
		if got := strings.Join(shownHints(toolRow(t, w, tool)), ","); got != want {
			t.Errorf("%s hints = %q, want %q", tool, got, want)
		}
	}
	if got := toolRow(t, w, "read_note").Objects[toolColDesc].(*widget.Label).Text; got != "Read a note — Reads a note." {
		t.Errorf("description %q", got)
	}
	if toolRow(t, w, "delete_note").Objects[toolColOn].(*widget.Check).Checked {
		t.Error("delete_note is off, but its check is on")
	}

	test.Tap(toolRow(t, w, "write_note").Objects[toolColOn].(*widget.Check))
	fail = true
	test.Tap(toolRow(t, w, "delete_note").Objects[toolColOn].(*widget.Check))
	if strings.Join(calls, " ") != "notes/write_note/off notes/delete_note/on" {
		t.Errorf("calls %v", calls)
	}
	if toolRow(t, w, "delete_note").Objects[toolColOn].(*widget.Check).Checked {
		t.Error("a failed switch left the check on")
	}
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "turning delete_note of notes on") {
		t.Errorf("errors %v", rec.errors)
	}
}
