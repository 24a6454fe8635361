package assistants

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/app/config"
)

// EntryName is the name of mcptray's entry in an assistant's config.
const EntryName = "mcptray"

// BackupSuffix is added to a file's name for the copy written before an
// edit.
const BackupSuffix = ".mcptray-backup"

// Action is what a setup plan does.
type Action int

const (
	Add    Action = iota // put the mcptray entry in (or bring it up to date)
	Remove               // take it out
)

// Entry is the client's mcptray entry for the mcptray at self, as JSON:
// {"command": self, "args": ["connect"]}, with "type": "stdio" first for
// Claude Code and VS Code, and Claude Desktop's --tools stable.
func (c *Client) Entry(self string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	if c.typeStdio {
		b.WriteString(`"type":"stdio",`)
	}
	b.WriteString(`"command":`)
	b.Write(jsonString(self))
	b.WriteString(`,"args":`)
	args, _ := json.Marshal(c.args)
	b.Write(args)
	b.WriteByte('}')
	return b.Bytes()
}

// Plan is one edit of one file, computed but not written.
type Plan struct {
	Client *Client // nil for mcp.json (an import's)
	Path   string  // the file
	Action Action
	// Before is the file's bytes when the plan was made; Existed says
	// whether there was a file.
	Before  []byte
	Existed bool
	// After is what Apply writes; Delete, that Apply removes the file
	// instead (--remove of a file setup created, holding nothing else).
	After  []byte
	Delete bool
	// redact are values Diff never shows (secrets).
	redact []string
}

// Changed reports whether applying the plan changes anything.
func (p *Plan) Changed() bool {
	switch {
	case p.Delete:
		return p.Existed
	case !p.Existed:
		return p.After != nil
	}
	return !bytes.Equal(p.Before, p.After)
}

// Diff is the plan's change as a unified diff ("" when none), with the
// values of secrets shown as "********".
func (p *Plan) Diff() string {
	if !p.Changed() {
		return ""
	}
	a, b := p.Path, p.Path
	after := p.After
	if p.Delete {
		after = nil
	}
	if !p.Existed {
		a = "/dev/null"
	}
	if p.Delete {
		b = "/dev/null"
	}
	d := unifiedDiff(a, b, p.Before, after)
	redact := p.redact
	if p.Client != nil {
		// The literal secrets of the client's file, even in context lines.
		redact = append(slices.Clone(redact), secretValues(p.Client, p.Path, p.Before)...)
	}
	for _, s := range redact {
		for _, form := range []string{s, strings.Trim(string(jsonString(s)), `"`), tomlEscape(s)} {
			switch {
			case form == "":
			case len(form) < minRedact:
				// A short value would match inside other words: only
				// whole strings.
				d = strings.ReplaceAll(d, `"`+form+`"`, `"********"`)
			default:
				d = strings.ReplaceAll(d, form, "********")
			}
		}
	}
	return d
}

// minRedact is the length from which a secret is hidden wherever it is in
// a diff; a shorter one only where it is a whole string.
const minRedact = 6

// Apply writes the plan: a backup of the file beside it (BackupSuffix)
// first, then the new bytes through a temp file and a rename (or the file
// removed, for Delete). It refuses, writing nothing, when the file is no
// longer what the plan was made from.
func (p *Plan) Apply() error { return p.ApplyWith(nil) }

// ApplyWith is Apply with the file's last write done by write (old: the
// bytes the plan was made on, nil for no file) instead of an atomic
// write: mcp.json goes through mcptray's own edit (config.File.Replace of
// app.OwnFile, or of the running Core's file), whose new entries then
// need no approval.
func (p *Plan) ApplyWith(write config.Writer) error {
	now, existed, err := readFile(p.Path)
	if err != nil {
		return err
	}
	if existed != p.Existed || !bytes.Equal(now, p.Before) {
		return fmt.Errorf("%s changed since the plan was made; nothing written (run it again)", p.Path)
	}
	if !p.Changed() {
		return nil
	}
	if err := checkWritable(p.Path, existed); err != nil {
		return err
	}
	if p.Existed && !p.Delete {
		if err := config.WriteAtomic(p.Path+BackupSuffix, p.Before); err != nil {
			return fmt.Errorf("writing the backup: %w", err)
		}
	}
	if p.Delete {
		if err := os.Remove(config.Target(p.Path)); err != nil {
			return fmt.Errorf("removing %s: %w", p.Path, err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(config.Target(p.Path)), 0o700); err != nil {
		return fmt.Errorf("writing %s: %w", p.Path, err)
	}
	if write != nil {
		var old []byte
		if p.Existed {
			old = p.Before
		}
		return write(old, p.After)
	}
	return config.WriteAtomic(p.Path, p.After)
}

// checkWritable refuses a file its owner made read-only: a rename over it
// would succeed (the folder is writable), undoing what the person meant.
func checkWritable(path string, existed bool) error {
	if !existed {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%s is read-only; mcptray leaves it as it is (make it writable, or add the entry by hand)", path)
	}
	return nil
}

// readFile reads a client's file; a missing one is not an error. Anything
// but a regular file (at the end of its links) is refused unread: a
// directory, or a named pipe, whose open and read would block for ever
// (config.OpenRegular opens without blocking and checks what it opened,
// so a swap after a check cannot get past it).
func readFile(path string) (data []byte, existed bool, err error) {
	f, err := config.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if nr := (*config.NotRegularError)(nil); errors.As(err, &nr) {
		what := "not a regular file"
		switch {
		case nr.Mode.IsDir():
			what = "a directory, not a file"
		case nr.Mode&fs.ModeNamedPipe != 0:
			what = "a named pipe, not a file"
		}
		return nil, false, fmt.Errorf("%s is %s; mcptray edits only a regular file", path, what)
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, config.MaxEditSize+1)); err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	if b.Len() > config.MaxEditSize {
		return nil, false, fmt.Errorf("%s is over %d MiB; mcptray does not edit it", path, config.MaxEditSize>>20)
	}
	return b.Bytes(), true, nil
}

// Plan computes the setup edit of the client's file: the mcptray entry for
// e.Self added (or replaced, when it runs another path), or removed. A file
// that does not parse is an error with its path, line and column.
func (c *Client) Plan(e Env, a Action) (*Plan, error) {
	if a == Add && !filepath.IsAbs(e.Self) {
		return nil, fmt.Errorf("mcptray's path %q is not absolute", e.Self)
	}
	path, err := c.Path(e)
	if err != nil {
		return nil, err
	}
	before, existed, err := readFile(path)
	if err != nil {
		return nil, err
	}
	p := &Plan{Client: c, Path: path, Action: a, Before: before, Existed: existed}
	backup, hasBackup, _ := readFile(path + BackupSuffix)
	if c.TOML {
		err = c.planTOML(p, e, backup, hasBackup)
	} else {
		err = c.planJSON(p, e, backup, hasBackup)
	}
	if err != nil {
		return nil, err
	}
	if p.Changed() {
		if err := checkWritable(path, existed); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// emptyJSON is what setup starts from when there is no file (or an empty
// one); a --remove that leaves exactly this in a file with no backup
// beside it (setup created it) deletes the file.
const emptyJSON = "{}\n"

func (c *Client) planJSON(p *Plan, e Env, backup []byte, hasBackup bool) error {
	base := p.Before
	if len(bytes.TrimSpace(base)) == 0 {
		base = []byte(emptyJSON)
	}
	path := []string{c.Key, EntryName}
	switch p.Action {
	case Add:
		after, err := config.SetMember(base, path, c.Entry(e.Self))
		if err != nil {
			return fileError(p.Path, err)
		}
		p.After = after
		return nil
	case Remove:
		if _, found, err := config.Lookup(base, path); err != nil {
			return fileError(p.Path, err)
		} else if !found {
			p.After = p.Before
			return nil
		}
		// The file is exactly what setup made of the backup: put the
		// backup back (the same bytes as taking the entry out, and right
		// also where a heuristic below would not be).
		if hasBackup {
			if _, had, err := config.Lookup(backup, path); err == nil && !had {
				if redo, err := config.SetMember(backup, path, c.entryAt(base, path)); err == nil && bytes.Equal(redo, p.Before) {
					p.After = backup
					return nil
				}
			}
		}
		after, err := config.RemoveMember(base, path)
		if err != nil {
			return fileError(p.Path, err)
		}
		// An object left empty, with no comment inside, was most likely
		// made by setup: it goes too.
		if v, _, err := config.Lookup(after, []string{c.Key}); err == nil && isEmptyObject(v) {
			if a2, err := config.RemoveMember(after, []string{c.Key}); err == nil {
				after = a2
			}
		}
		p.After = after
		if string(after) == emptyJSON && !hasBackup {
			p.Delete = true
		}
		return nil
	}
	return fmt.Errorf("unknown action %d", p.Action)
}

// entryAt is the value at path in data, as JSON.
func (c *Client) entryAt(data []byte, path []string) json.RawMessage {
	v, _, _ := config.Lookup(data, path)
	return v
}

// isEmptyObject reports whether v (blanked JSON) is an object with nothing
// inside: no member and, since comments are blanked, blanks only.
func isEmptyObject(v json.RawMessage) bool {
	t := bytes.TrimSpace(v)
	return len(t) == 2 && t[0] == '{' && t[1] == '}'
}

// fileError names the file in a *config.SyntaxError (which says
// mcp.json by default), with its full path.
func fileError(path string, err error) error {
	var se *config.SyntaxError
	if errors.As(err, &se) {
		se.Name = path
		return se
	}
	return fmt.Errorf("%s: %w", path, err)
}

// Status is what Detect finds for one client.
type Status struct {
	Client *Client
	Path   string // its config file ("" when it cannot be found)
	Exists bool   // the file is there
	// Installed: the file holds an entry named mcptray; Current: and it
	// is one setup would write now, in any tools mode (Mode).
	Installed, Current bool
	Mode               string // the current entry's tools mode: live, stable or dynamic ("" when not current)
	Err                error  // the file could not be found, read or parsed
}

// Detect looks at every client's config file.
func Detect(e Env) []Status {
	var out []Status
	for _, c := range clients {
		st := Status{Client: c}
		st.Path, st.Err = c.Path(e)
		if st.Err == nil {
			var data []byte
			data, st.Exists, st.Err = readFile(st.Path)
			if st.Err == nil && st.Exists {
				st.Installed, st.Current, st.Mode, st.Err = c.installed(st.Path, data, e)
			}
		}
		out = append(out, st)
	}
	return out
}

// installed reads whether data, the client's file at path, holds
// mcptray's entry, and whether it is the one for e.Self. A file that does
// not parse is an error with its path, line and column.
func (c *Client) installed(path string, data []byte, e Env) (installed, current bool, mode string, err error) {
	for _, v := range c.variants() { // an entry setup wrote in any tools mode is current
		if installed, current, err = v.installedExactly(path, data, e); err != nil || !installed || current {
			if current {
				mode = v.Mode()
			}
			return installed, current, mode, err
		}
	}
	return installed, false, "", nil
}

// installedExactly is installed for the client's own entry only.
func (c *Client) installedExactly(path string, data []byte, e Env) (installed, current bool, err error) {
	if c.TOML {
		return tomlInstalled(path, data, c.Entry(e.Self))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return false, false, nil
	}
	v, found, err := config.Lookup(data, []string{c.Key, EntryName})
	if err != nil {
		return false, false, fileError(path, err)
	}
	if !found {
		return false, false, nil
	}
	return true, jsonEqual(v, c.Entry(e.Self)), nil
}

// jsonString is s as a JSON string, with <, > and & as they are.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// secretValues are the literal secrets of a client's file (as an import
// would find them), which a diff of it never shows, not even as context.
func secretValues(c *Client, path string, data []byte) []string {
	servers, _, _, err := readServers(c, path, data)
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range servers {
		for _, sec := range secretsOf(&Imported{Server: s, As: s.Name}) {
			out = append(out, sec.value)
		}
	}
	return out
}
