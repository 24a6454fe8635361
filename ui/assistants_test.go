package ui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/assistants"
)

// fiveAssistants are assistants in every state: Claude Desktop without
// mcptray, Claude Code with it, Cursor's config broken, no VS Code config
// yet, and Windsurf running another mcptray.
func fiveAssistants() *fakeAssistants {
	return &fakeAssistants{list: []assistants.Summary{
		{Name: "claude-desktop", Display: "Claude Desktop", Path: "/home/me/.config/Claude/claude_desktop_config.json", Exists: true},
		{Name: "claude-code", Display: "Claude Code", Path: "/home/me/.claude.json", Exists: true, Installed: true, Current: true},
		{Name: "cursor", Display: "Cursor", Path: "/home/me/.cursor/mcp.json", Exists: true,
			Error: "/home/me/.cursor/mcp.json:3:5: invalid character '}' looking for beginning of object key string"},
		{Name: "vscode", Display: "VS Code", Path: "/home/me/.config/Code/User/mcp.json"},
		{Name: "windsurf", Display: "Windsurf", Path: "/home/me/.codeium/windsurf/mcp_config.json", Exists: true, Installed: true},
	}}
}

// showAssistants is a main screen on the Assistants tab, its assistants
// those of f.
func showAssistants(t *testing.T, f *fakeAssistants) (*assistantsScreen, fyne.Window, *recorded) {
	t.Helper()
	m, w, rec := showMain(t, &fakeCore{fakeAssistants: f}, twoServers())
	m.show(tabAssistants)
	return m.assistants, w, rec
}

// assistantRow is the row of the assistant shown as display.
func assistantRow(t *testing.T, s *assistantsScreen, display string) fyne.CanvasObject {
	t.Helper()
	for _, o := range s.rows.Objects {
		for _, x := range test.LaidOutObjects(o) {
			if l, ok := x.(*widget.Label); ok && l.Text == display && l.TextStyle.Bold {
				return o
			}
		}
	}
	t.Fatalf("no row for %s", display)
	return nil
}

// rowText is a row's texts: labels and the badge, in order.
func rowText(o fyne.CanvasObject) string {
	var parts []string
	for _, x := range test.LaidOutObjects(o) {
		switch x := x.(type) {
		case *widget.Label:
			parts = append(parts, x.Text)
		case *canvas.Text:
			if x.TextStyle.Bold && x.TextSize == theme.CaptionTextSize() {
				parts = append(parts, "["+x.Text+"]")
			}
		}
	}
	return strings.Join(parts, " | ")
}

// rowButtons says which of Add, Remove and Import are on in a row: "AR-".
func rowButtons(t *testing.T, o fyne.CanvasObject) string {
	t.Helper()
	out := ""
	for _, name := range []string{"Add", "Remove", "Import"} {
		if button(t, o, name).Disabled() {
			out += "-"
		} else {
			out += name[:1]
		}
	}
	return out
}

// dialogButton is the button labelled text in the dialog on top of w.
func dialogButton(t *testing.T, w fyne.Window, text string) *widget.Button {
	t.Helper()
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatalf("no dialog open (looking for %q)", text)
	}
	return button(t, top, text)
}

// dialogText is every label's and check's text in the dialog on top of w.
func dialogText(w fyne.Window) string {
	top := w.Canvas().Overlays().Top()
	if top == nil {
		return ""
	}
	var parts []string
	for _, x := range test.LaidOutObjects(top) {
		switch x := x.(type) {
		case *widget.Label:
			parts = append(parts, x.Text)
		case *widget.Check:
			parts = append(parts, "["+map[bool]string{true: "x", false: " "}[x.Checked]+"] "+x.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestAssistantsRowsPerState(t *testing.T) {
	s, _, _ := showAssistants(t, fiveAssistants())
	for _, c := range []struct {
		display, text, buttons string
	}{
		{"Claude Desktop", "Claude Desktop | [mcptray absent] | /home/me/.config/Claude/claude_desktop_config.json", "A-I"},
		{"Claude Code", "Claude Code | [mcptray present] | /home/me/.claude.json", "-RI"},
		{"Cursor", "Cursor | [config broken] | /home/me/.cursor/mcp.json | /home/me/.cursor/mcp.json:3:5: invalid character '}' looking for beginning of object key string", "---"},
		{"VS Code", "VS Code | [no config yet] | /home/me/.config/Code/User/mcp.json", "A--"},
		{"Windsurf", "Windsurf | [other mcptray] | /home/me/.codeium/windsurf/mcp_config.json | Its mcptray entry runs another mcptray (moved or reinstalled): Add points it at this one.", "ARI"},
	} {
		row := assistantRow(t, s, c.display)
		if got := rowText(row); got != c.text {
			t.Errorf("%s's row:\n%s\nwant\n%s", c.display, got, c.text)
		}
		if got := rowButtons(t, row); got != c.buttons {
			t.Errorf("%s's buttons %q, want %q", c.display, got, c.buttons)
		}
	}
}

func TestAssistantsAddShowsTheDiffThenWrites(t *testing.T) {
	f := fiveAssistants()
	s, w, rec := showAssistants(t, f)
	test.Tap(button(t, assistantRow(t, s, "Claude Desktop"), "Add"))
	text := dialogText(w)
	for _, want := range []string{
		"This change goes into /home/me/.config/Claude/claude_desktop_config.json (a copy of the file as it is now goes to /home/me/.config/Claude/claude_desktop_config.json.mcptray-backup first):",
		`+    "mcptray": {"command": "/usr/local/bin/mcptray", "args": ["connect"]}`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, text)
		}
	}
	if len(f.writes) != 0 {
		t.Fatalf("written before Write: %v", f.writes)
	}
	test.Tap(dialogButton(t, w, "Write"))
	if !slices.Equal(f.writes, []string{"claude-desktop add"}) {
		t.Errorf("writes %v, want Claude Desktop's add", f.writes)
	}
	if w.Canvas().Overlays().Top() != nil {
		t.Error("the dialog stays open after Write")
	}
	row := assistantRow(t, s, "Claude Desktop")
	if got, want := rowText(row), "Claude Desktop | [mcptray present] | /home/me/.config/Claude/claude_desktop_config.json | "+
		"Added mcptray (the file as it was: /home/me/.config/Claude/claude_desktop_config.json.mcptray-backup). Restart Claude Desktop to load mcptray."; got != want {
		t.Errorf("the row after Write:\n%s\nwant\n%s", got, want)
	}
	if got := rowButtons(t, row); got != "-RI" {
		t.Errorf("buttons after Write %q, want -RI", got)
	}
	if len(rec.errors) > 0 {
		t.Errorf("errors: %v", rec.errors)
	}
}

func TestAssistantsCancelWritesNothing(t *testing.T) {
	f := fiveAssistants()
	s, w, _ := showAssistants(t, f)
	test.Tap(button(t, assistantRow(t, s, "Windsurf"), "Remove"))
	if text := dialogText(w); !strings.Contains(text, `-    "mcptray"`) {
		t.Errorf("Remove's dialog:\n%s", text)
	}
	test.Tap(dialogButton(t, w, "Cancel"))
	if len(f.writes) != 0 || w.Canvas().Overlays().Top() != nil {
		t.Errorf("after Cancel: writes %v, dialog %v", f.writes, w.Canvas().Overlays().Top())
	}
	if !slices.Equal(f.plans, []string{"windsurf remove"}) {
		t.Errorf("plans %v", f.plans)
	}
	if got := rowButtons(t, assistantRow(t, s, "Windsurf")); got != "ARI" {
		t.Errorf("buttons after Cancel %q, want them all on again", got)
	}
}

func TestAssistantsErrorsAreShown(t *testing.T) {
	f := fiveAssistants()
	f.writeErr = errors.New("/home/me/.claude.json changed since the plan was made; nothing written (run it again)")
	s, w, rec := showAssistants(t, f)
	test.Tap(button(t, assistantRow(t, s, "Claude Code"), "Remove"))
	test.Tap(dialogButton(t, w, "Write"))
	want := "writing /home/me/.claude.json: /home/me/.claude.json changed since the plan was made; nothing written (run it again)"
	if !slices.Equal(rec.errors, []string{want}) {
		t.Errorf("errors %q, want %q", rec.errors, want)
	}
	f.planErr = errors.New("finding Claude Desktop's config: no home folder known")
	test.Tap(button(t, assistantRow(t, s, "Claude Desktop"), "Add"))
	if len(rec.errors) != 2 || rec.errors[1] != f.planErr.Error() || w.Canvas().Overlays().Top() != nil {
		t.Errorf("after a failed plan: errors %q, dialog %v", rec.errors, w.Canvas().Overlays().Top())
	}
	f.listErr = errors.New("finding the home folder: $HOME is not defined")
	s.refresh()
	if got := rowText(s.rows); got != "Cannot read the assistants' configs: finding the home folder: $HOME is not defined" {
		t.Errorf("rows with no list: %q", got)
	}
}

// githubImport is an import from Claude Desktop: github (renamed github-2:
// mcp.json has one), notes (already in mcp.json), and two secrets.
func githubImport() *assistants.ImportPlan {
	return &assistants.ImportPlan{Client: "claude-desktop", Display: "Claude Desktop",
		From: "/home/me/.config/Claude/claude_desktop_config.json", Config: "/home/me/.config/mcptray/mcp.json",
		Servers: []assistants.ImportServer{
			{Name: "github", As: "github-2"},
			{Name: "notes", As: "notes", Skip: "already in mcp.json"},
			{Name: "search", As: "search"},
		},
		Secrets: []assistants.ImportSecret{
			{Server: "github-2", Field: "env", Key: "GITHUB_TOKEN", Reference: "${keyring:github-2-GITHUB_TOKEN}"},
			{Server: "search", Field: "headers", Key: "Authorization", Reference: "Bearer ${keyring:search-Authorization}"},
		},
		Notes: []string{"broken: skipped: neither a command nor a URL"},
		Hint:  "restart Claude Desktop to load mcptray"}
}

func TestAssistantsImportDialogChoicesReachApplyImport(t *testing.T) {
	f := fiveAssistants()
	f.imports = map[string]*assistants.ImportPlan{"claude-desktop": githubImport()}
	s, w, rec := showAssistants(t, f)
	test.Tap(button(t, assistantRow(t, s, "Claude Desktop"), "Import"))
	text := dialogText(w)
	for _, want := range []string{
		"The servers of Claude Desktop (/home/me/.config/Claude/claude_desktop_config.json), into /home/me/.config/mcptray/mcp.json:",
		"• github → github-2 (mcp.json has a github already)",
		"• notes: not copied, already in mcp.json",
		"• search",
		"Note: broken: skipped: neither a command nor a URL",
		"github-2's env GITHUB_TOKEN, as ${keyring:github-2-GITHUB_TOKEN}\n[x] move to the keyring:", // a Border: its centre first
		"search's headers Authorization, as Bearer ${keyring:search-Authorization}\n[x] move to the keyring:",
		"[ ] take them out of Claude Desktop and put mcptray there, so that none runs twice",
		`+ "GITHUB_TOKEN": "${keyring:github-2-GITHUB_TOKEN}"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the import dialog lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "/home/me/.config/Claude/claude_desktop_config.json\n+++") {
		t.Errorf("the diff shows Claude Desktop's file changed without the replace check:\n%s", text)
	}

	// Keep the token in mcp.json as it is (the first secret's check);
	// replace.
	var checks []*widget.Check
	for _, x := range test.LaidOutObjects(w.Canvas().Overlays().Top()) {
		if c, ok := x.(*widget.Check); ok {
			checks = append(checks, c)
		}
	}
	if len(checks) != 3 {
		t.Fatalf("%d checks, want one per secret and the replace one", len(checks))
	}
	test.Tap(checks[0])
	test.Tap(checks[2])
	text = dialogText(w)
	for _, want := range []string{`+ "GITHUB_TOKEN": "********"`, "+++ /home/me/.config/Claude/claude_desktop_config.json"} {
		if !strings.Contains(text, want) {
			t.Errorf("after the checks the diff lacks %q:\n%s", want, text)
		}
	}
	if len(f.applied) != 0 {
		t.Fatal("applied before Import")
	}
	test.Tap(dialogButton(t, w, "Import"))
	want := assistants.ImportChoice{Move: []bool{false, true}, Replace: true}
	if len(f.applied) != 1 || !slices.Equal(f.applied[0].Move, want.Move) || f.applied[0].Replace != want.Replace {
		t.Fatalf("ApplyImport got %+v, want %+v", f.applied, want)
	}
	if got := rowText(assistantRow(t, s, "Claude Desktop")); !strings.HasSuffix(got, "[mcptray present] | /home/me/.config/Claude/claude_desktop_config.json | "+
		"Imported 2 server(s) into /home/me/.config/mcptray/mcp.json; moved 1 secret(s) into the keyring. "+
		"mcptray took their place in Claude Desktop's config. Restart Claude Desktop to load mcptray.") {
		t.Errorf("the row after the import: %s", got)
	}
	if len(rec.errors) > 0 {
		t.Errorf("errors: %v", rec.errors)
	}
}

func TestAssistantsImportCancelAndDefaults(t *testing.T) {
	f := fiveAssistants()
	p := githubImport()
	p.Client, p.Display = "claude-code", "Claude Code"
	f.imports = map[string]*assistants.ImportPlan{"claude-code": p}
	s, w, _ := showAssistants(t, f)
	test.Tap(button(t, assistantRow(t, s, "Claude Code"), "Import"))
	test.Tap(dialogButton(t, w, "Cancel"))
	if len(f.applied) != 0 {
		t.Errorf("Cancel applied %+v", f.applied)
	}
	// Import at once: every secret moved, the client's file left alone.
	test.Tap(button(t, assistantRow(t, s, "Claude Code"), "Import"))
	test.Tap(dialogButton(t, w, "Import"))
	if len(f.applied) != 1 || !slices.Equal(f.applied[0].Move, []bool{true, true}) || f.applied[0].Replace {
		t.Errorf("the defaults: %+v, want every secret moved, no replace", f.applied)
	}
	if got := rowText(assistantRow(t, s, "Claude Code")); !strings.HasSuffix(got, "| Imported 2 server(s) into /home/me/.config/mcptray/mcp.json; moved 2 secret(s) into the keyring. Claude Code still runs them too.") {
		t.Errorf("the row after the import: %s", got)
	}
}

func TestAssistantsImportNothingToImport(t *testing.T) {
	f := fiveAssistants()
	f.imports = map[string]*assistants.ImportPlan{"claude-desktop": {Client: "claude-desktop", Display: "Claude Desktop",
		From: "/home/me/.config/Claude/claude_desktop_config.json", Config: "/home/me/.config/mcptray/mcp.json"}}
	s, w, _ := showAssistants(t, f)
	test.Tap(button(t, assistantRow(t, s, "Claude Desktop"), "Import"))
	if text := dialogText(w); !strings.Contains(text, "Claude Desktop has no servers to import") {
		t.Errorf("dialog:\n%s", text)
	}
}

// The tab reads the configs again when selected.
func TestAssistantsRefreshOnSelect(t *testing.T) {
	f := fiveAssistants()
	m, _, _ := showMain(t, &fakeCore{fakeAssistants: f}, twoServers())
	f.list[0].Installed, f.list[0].Current = true, true // `mcptray setup claude-desktop` meanwhile
	m.show(tabServers)
	m.show(tabAssistants)
	if got := rowText(assistantRow(t, m.assistants, "Claude Desktop")); !strings.Contains(got, "[mcptray present]") {
		t.Errorf("after selecting the tab again: %s", got)
	}
}

// Each row says its entry's tool-list mode and how many tools that gives
// the assistant now (7: the ready servers'; 4 in dynamic mode), and,
// past what it handles well, the command that gives it a tool search.
func TestAssistantsRowsShowModeAndTools(t *testing.T) {
	s, _, rec := showAssistants(t, &fakeAssistants{list: []assistants.Summary{
		{Name: "cursor", Display: "Cursor", Path: "/home/me/.cursor/mcp.json", Exists: true, Installed: true, Current: true, Mode: "live", Budget: 5},
		{Name: "gemini", Display: "Gemini CLI", Path: "/home/me/.gemini/settings.json", Exists: true, Installed: true, Current: true, Mode: "dynamic", Budget: 5},
		{Name: "claude-code", Display: "Claude Code", Path: "/home/me/.claude.json", Exists: true, Mode: "live"},
	}})
	for display, want := range map[string]string{
		"Cursor":      "Tools: live mode, 7 tools now, more than Cursor handles well (5): `mcptray setup cursor --tools dynamic` gives it a tool search instead",
		"Gemini CLI":  "Tools: dynamic mode, 4 tools now",
		"Claude Code": "Tools: live mode, 7 tools now",
	} {
		if got := rowText(assistantRow(t, s, display)); !strings.HasSuffix(got, " | "+want) {
			t.Errorf("%s's row: %s\nwant it to end with %s", display, got, want)
		}
	}
	if len(rec.errors) > 0 {
		t.Errorf("errors: %v", rec.errors)
	}
}
