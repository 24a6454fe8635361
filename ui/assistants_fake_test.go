package ui

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mcptray/mcptray/app/assistants"
)

// fakeAssistants is an in-memory AssistantsCore; a nil *fakeAssistants
// knows no assistant. Main goroutine only (the tests run the tab's
// background work inline).
type fakeAssistants struct {
	list    []assistants.Summary
	listErr error
	planErr error // PlanAssistant's and PlanImport's error
	// writeErr, when set, is every Write's error.
	writeErr error
	imports  map[string]*assistants.ImportPlan // PlanImport's plans, by client
	applyErr error

	plans   []string // PlanAssistant calls: "claude-desktop add"
	writes  []string // the changes written: "claude-desktop add"
	diffs   []assistants.ImportChoice
	applied []assistants.ImportChoice
}

// fakeDiff is the fake's diff of adding (or removing) mcptray in path.
func fakeDiff(path string, remove bool) string {
	sign := "+"
	if remove {
		sign = "-"
	}
	return fmt.Sprintf("--- %s\n+++ %s\n@@ -1,3 +1,4 @@\n {\n   \"mcpServers\": {\n%s    \"mcptray\": {\"command\": \"/usr/local/bin/mcptray\", \"args\": [\"connect\"]}\n   }\n", path, path, sign)
}

func (f *fakeAssistants) Assistants() ([]assistants.Summary, error) {
	if f == nil {
		return nil, nil
	}
	return slices.Clone(f.list), f.listErr
}

func (f *fakeAssistants) find(client string) (int, error) {
	if f == nil {
		return 0, errors.New("no assistants")
	}
	for i, a := range f.list {
		if a.Name == client {
			return i, nil
		}
	}
	return 0, fmt.Errorf("no assistant %q", client)
}

func (f *fakeAssistants) PlanAssistant(client string, remove bool) (*assistants.Change, error) {
	i, err := f.find(client)
	if err != nil {
		return nil, err
	}
	action := map[bool]string{false: "add", true: "remove"}[remove]
	f.plans = append(f.plans, client+" "+action)
	if f.planErr != nil {
		return nil, f.planErr
	}
	a := f.list[i]
	ch := &assistants.Change{Client: a.Name, Display: a.Display, Path: a.Path, Remove: remove}
	if (remove && !a.Installed) || (!remove && a.Current) {
		return ch, nil // nothing to do
	}
	ch.Diff = fakeDiff(a.Path, remove)
	ch.Hint = "restart " + a.Display + " to load mcptray"
	if remove {
		ch.Hint = "restart " + a.Display + " for it to stop running mcptray"
	}
	if a.Exists {
		ch.Backup = a.Path + ".mcptray-backup"
	}
	ch.Write = func() error {
		if f.writeErr != nil {
			return f.writeErr
		}
		f.writes = append(f.writes, client+" "+action)
		f.list[i].Exists, f.list[i].Installed, f.list[i].Current = true, !remove, !remove
		return nil
	}
	return ch, nil
}

func (f *fakeAssistants) PlanImport(client string) (*assistants.ImportPlan, error) {
	if _, err := f.find(client); err != nil {
		return nil, err
	}
	if f.planErr != nil {
		return nil, f.planErr
	}
	p, ok := f.imports[client]
	if !ok {
		return nil, fmt.Errorf("no import planned for %s", client)
	}
	return p, nil
}

// ImportDiff says which choice it was given.
func (f *fakeAssistants) ImportDiff(p *assistants.ImportPlan, ch assistants.ImportChoice) (string, error) {
	f.diffs = append(f.diffs, ch)
	if len(ch.Move) != len(p.Secrets) {
		return "", fmt.Errorf("%d choices for %d secrets", len(ch.Move), len(p.Secrets))
	}
	d := fmt.Sprintf("--- %s\n+++ %s\n", p.Config, p.Config)
	for i, s := range p.Secrets {
		v := `"********"`
		if ch.Move[i] {
			v = `"` + s.Reference + `"`
		}
		d += fmt.Sprintf("+ %q: %s\n", s.Key, v)
	}
	if ch.Replace {
		d += fmt.Sprintf("--- %s\n+++ %s\n+ \"mcptray\"\n", p.From, p.From)
	}
	return d, nil
}

func (f *fakeAssistants) ApplyImport(p *assistants.ImportPlan, ch assistants.ImportChoice) error {
	if f.applyErr != nil {
		return f.applyErr
	}
	f.applied = append(f.applied, ch)
	if ch.Replace {
		if i, err := f.find(p.Client); err == nil {
			f.list[i].Installed, f.list[i].Current = true, true
		}
	}
	return nil
}
