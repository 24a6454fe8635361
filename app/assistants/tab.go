package assistants

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/mcptray/mcptray/app/config"
)

// The Assistants tab's API: the assistants' configs as `mcptray setup` and
// `mcptray import` see them, as plain values, never a secret's value
// (app's Core wraps these for the UI). Each reads the assistants' files,
// and Apply may store secrets in the keyring: the UI calls them off its
// main goroutine.

// InstalledEnv is the environment setup, import and the Assistants tab
// work in, the mcptray they write into an assistant's config being an
// installed one when this is a build in a checkout (InstalledExecutable:
// `make build`'s bin/mcptray moves and goes, an installed one stays),
// else this very one by the name it was started as (SelfPath).
func InstalledEnv() (Env, error) {
	env, err := DefaultEnv()
	if err != nil {
		return env, err
	}
	if installed, ok := InstalledExecutable(); ok && !sameFile(installed, env.Self) {
		env.Self = installed
	}
	return env, nil
}

// sameFile reports whether paths a and b name the same file.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// Summary is one assistant mcptray knows and what its config holds.
type Summary struct {
	Name    string // what `mcptray setup NAME` takes: "claude-desktop"
	Display string // "Claude Desktop"
	Path    string // its config file ("" when it cannot be found)
	Exists  bool   // the file is there
	// Installed: the file has an entry named mcptray; Current: and it is
	// the one setup would write now (else it runs another mcptray).
	Installed, Current bool
	// Error says why the file cannot be found, read or parsed; "" when it
	// can. With Exists, the file is broken: mcptray does not edit it.
	Error string
	// Mode is the tool-list mode its entry runs connect in (live, stable
	// or dynamic): the current entry's, else the one Add writes.
	Mode string
	// Budget is how many tools it handles well (Client.ToolBudget; 0: it
	// searches or groups tools itself).
	Budget int
}

// List lists the assistants mcptray knows, in `mcptray setup`'s order,
// with what their configs hold.
func List() ([]Summary, error) {
	env, err := InstalledEnv()
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, st := range Detect(env) {
		a := Summary{Name: st.Client.Name, Display: st.Client.Display, Path: st.Path,
			Exists: st.Exists, Installed: st.Installed, Current: st.Current,
			Mode: modeOfStatus(st), Budget: st.Client.ToolBudget()}
		if st.Err != nil {
			a.Error = st.Err.Error()
		}
		out = append(out, a)
	}
	return out, nil
}

// Change is the edit PlanChange computes in an assistant's config, not
// written yet.
type Change struct {
	Client  string // "claude-desktop"
	Display string // "Claude Desktop"
	Path    string // the file
	Remove  bool   // Remove, else Add
	// Diff is the change as a unified diff, secrets shown as "********";
	// "" when nothing changes (then Write is nil).
	Diff string
	// Delete: Write deletes the file (setup had created it, and it holds
	// nothing else now).
	Delete bool
	// Backup is the copy of the file Write leaves beside it ("" for none).
	Backup string
	// Hint is what the person does then for the assistant to notice
	// ("restart Claude Desktop to load mcptray"); "" when it does by itself.
	Hint string
	// Write writes the change (a backup first), refusing when the file
	// changed since the plan was made.
	Write func() error
}

// PlanChange computes the edit that puts mcptray's entry into client's
// config (or, with remove, takes it out), as `mcptray setup CLIENT
// [--remove]` would make it.
func PlanChange(client string, remove bool) (*Change, error) {
	cl, ok := Find(client)
	if !ok {
		return nil, fmt.Errorf("no assistant %q", client)
	}
	env, err := InstalledEnv()
	if err != nil {
		return nil, err
	}
	action := Add
	if remove {
		action = Remove
	}
	for _, st := range Detect(env) { // Add keeps the mode the entry has
		if st.Client.Name == cl.Name && st.Current {
			if cl, err = cl.WithMode(st.Mode); err != nil {
				return nil, err
			}
		}
	}
	p, err := cl.Plan(env, action)
	if err != nil {
		return nil, err
	}
	ch := &Change{Client: cl.Name, Display: cl.Display, Path: p.Path, Remove: remove,
		Hint: hint(cl, action)}
	if !p.Changed() {
		return ch, nil
	}
	ch.Diff, ch.Delete = p.Diff(), p.Delete
	if p.Existed && !p.Delete {
		ch.Backup = p.Path + BackupSuffix
	}
	ch.Write = p.Apply
	return ch, nil
}

// ImportPlan is an assistant's servers on their way into mcp.json, as
// `mcptray import CLIENT` reads them: what would be copied, the values
// that look like secrets (named, never shown) and what else to know.
// Diff and Apply take the person's choices.
type ImportPlan struct {
	Client  string // "claude-desktop"
	Display string // "Claude Desktop"
	From    string // the assistant's file
	Config  string // mcp.json
	Servers []ImportServer
	Secrets []ImportSecret
	Notes   []string // entries that could not be read, inputs kept, …
	// Hint is what the person does for the assistant to load mcptray after
	// an import with Replace; "" when it does by itself.
	Hint string

	mu sync.Mutex // guards im (its secrets' choices)
	im *Import    // nil in a plan made by hand (the UI's tests)
}

// ImportServer is one server of an import.
type ImportServer struct {
	Name string // its name in the assistant's config
	// As is its name in mcp.json: Name, or Name-2, Name-3… when mcp.json
	// has another server called Name.
	As string
	// Project is, for Claude Code's per-project entries, its folder.
	Project string
	// Skip says why it is not copied ("already in mcp.json"); "" when it is.
	Skip string
}

// ImportSecret is a literal value of an imported server that looks like
// a secret. Its value stays in the plan and is never shown.
type ImportSecret struct {
	Server string // the server's name in mcp.json
	Field  string // "env" or "headers"
	Key    string // "GITHUB_TOKEN"
	// Reference is what mcp.json holds when it is moved into the keyring:
	// "${keyring:github-GITHUB_TOKEN}" (with "Bearer " before it for an
	// Authorization header).
	Reference string
}

// ImportChoice is what the person chose for an import.
type ImportChoice struct {
	// Move says, per secret of the plan (in its order), whether to move it
	// into the keyring (else it is copied into mcp.json as it is).
	Move []bool
	// Replace takes the servers out of the assistant's config and puts
	// mcptray's entry there, so that none runs twice.
	Replace bool
}

// PlanImport reads client's servers and plans their copy into the
// mcp.json at configPath. taken says whether the keyring holds
// ${keyring:NAME} already (a secret moved there must not overwrite it);
// it is called only when the import has secrets.
func PlanImport(client, configPath string, taken func(name string) bool) (*ImportPlan, error) {
	cl, ok := Find(client)
	if !ok {
		return nil, fmt.Errorf("no assistant %q", client)
	}
	env, err := InstalledEnv()
	if err != nil {
		return nil, err
	}
	im, err := NewImport(cl, env, configPath)
	if err != nil {
		return nil, err
	}
	if len(im.Secrets) > 0 {
		im.AvoidSecretNames(taken)
	}
	p := &ImportPlan{Client: cl.Name, Display: cl.Display, From: im.From, Config: im.Config,
		Notes: im.Notes, Hint: hint(cl, Add), im: im}
	for _, s := range im.Servers {
		p.Servers = append(p.Servers, ImportServer{Name: s.Name, As: s.As, Project: s.Project, Skip: s.Skip})
	}
	for _, s := range im.Secrets {
		p.Secrets = append(p.Secrets, ImportSecret{Server: s.Server, Field: s.Field, Key: s.Key, Reference: s.Reference()})
	}
	return p, nil
}

// choose sets the plan's secrets' choices; p.mu is held.
func (p *ImportPlan) choose(ch ImportChoice) error {
	if p.im == nil {
		return errors.New("this import plan was not made by PlanImport")
	}
	if len(ch.Move) != len(p.im.Secrets) {
		return fmt.Errorf("%d choices for the %d secrets of the import", len(ch.Move), len(p.im.Secrets))
	}
	for i, s := range p.im.Secrets {
		s.Move = ch.Move[i] || s.Required
	}
	return nil
}

// Diff is what Apply would write with choice ch: the diff of mcp.json
// and, with Replace, of the assistant's file; secrets shown as
// "********". It reads no file.
func (p *ImportPlan) Diff(ch ImportChoice) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.choose(ch); err != nil {
		return "", err
	}
	cfg, client, err := p.im.Plans(ch.Replace)
	if err != nil {
		return "", err
	}
	d := cfg.Diff()
	if client != nil {
		d += client.Diff()
	}
	return d, nil
}

// Apply writes the import with choice ch: the secrets to move are stored
// first with store (as `mcptray secret set` does); nothing is written when
// one cannot be stored. Then mcp.json through writeConfig (the caller's
// own edit: no approval asked for what it adds) and, with Replace, the
// assistant's file, each after a backup; either is refused when it changed
// since the plan was made.
func (p *ImportPlan) Apply(ch ImportChoice, store func(name, value string) error, writeConfig config.Writer) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.choose(ch); err != nil {
		return err
	}
	// Checked before a secret is stored: a plan that cannot be written
	// stores none.
	if _, _, err := p.im.Plans(ch.Replace); err != nil {
		return err
	}
	// The keyring can take its time (a locked one asks): stored before
	// mcp.json's lock is taken, so a toggle meanwhile does not wait.
	for _, s := range p.im.Secrets {
		if !s.Move {
			continue
		}
		if err := store(s.Name, s.Value()); err != nil {
			return fmt.Errorf("storing ${keyring:%s}: %w", s.Name, err)
		}
	}
	return p.im.ApplyWith(ch.Replace, func(string, string) error { return nil }, writeConfig) // stored above
}

// hint is ReloadHint, followed after an add by the client's AddNote
// (Gemini CLI's folder trust).
func hint(cl *Client, a Action) string {
	hint, note := cl.ReloadHint(a), cl.AddNote()
	switch {
	case a != Add || note == "":
		return hint
	case hint == "":
		return note
	}
	return hint + ". " + note
}
