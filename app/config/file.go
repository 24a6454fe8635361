package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
)

// The one way mcptray writes mcp.json: a File. Its edit reads the file
// (ReadFile: a regular file, at most MaxFileSize), gives the bytes to a
// pure edit (SetDisabled, SetEntryList, SetMember, RemoveMember, …: every
// byte the edit does not need to change is kept, comments included), and
// when they changed, writes the result with the File's Writer (by default
// WriteAtomic), one edit of the File at a time. The named edits below
// (SetEnabled, SetToolEnabled, AllowTool, SetSetting, Replace) and the
// entries' Add and Remove (entries.go) are all made with it.

// ErrChanged is wrapped by an edit when mcp.json is no longer what it was
// read as (Replace's old; or someone wrote it while the edit ran): read it
// again and redo the edit. Nothing was written.
var ErrChanged = errors.New("mcp.json changed meanwhile")

// A Writer puts an edit of mcp.json on disk: new replaces old, the bytes the
// edit was made on (nil: there was no file). WriteAtomic is the plain one;
// the app's make the write mcptray's own, so what it adds or changes runs
// without a question (see the package doc).
type Writer func(old, new []byte) error

// File is one mcp.json as mcptray edits it. Its methods are safe for
// concurrent use: its edits run one at a time (so two edits of the same
// File never lose one another), and it starts no goroutine. Use one File
// per mcp.json in a process.
type File struct {
	path  string
	write Writer

	mu sync.Mutex // held for the whole of each edit: read, change, write
}

// NewFile returns the File of the mcp.json at path, written with write
// (nil: WriteAtomic).
func NewFile(path string, write Writer) *File {
	if write == nil {
		write = func(_, new []byte) error { return WriteAtomic(path, new) }
	}
	return &File{path: path, write: write}
}

// Path is the file's path.
func (f *File) Path() string { return f.path }

// Edit rewrites the file with change, which gets its bytes and returns the
// new ones; nothing is written when they are the same, or when change
// fails. A missing file is an error (ReadFile's).
func (f *File) Edit(change func(data []byte) ([]byte, error)) error {
	return f.edit(false, change)
}

// edit is Edit; with missingOK a missing file is given to change as nil,
// and what change returns is written as a new file (the Writer's old is
// nil). Before the write it checks the file is still what change was
// given (else ErrChanged): change may have taken its time (a keyring that
// asks to be unlocked, a secret typed on a terminal).
func (f *File) edit(missingOK bool, change func(data []byte) ([]byte, error)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, err := f.read(missingOK)
	if err != nil {
		return err
	}
	out, err := change(data)
	if err != nil {
		return err
	}
	if data != nil && bytes.Equal(out, data) {
		return nil
	}
	if now, err := f.read(missingOK); err != nil {
		return err
	} else if (now == nil) != (data == nil) || !bytes.Equal(now, data) {
		return ErrChanged
	}
	return f.write(data, out)
}

// read reads the file; with missingOK, a missing one is nil.
func (f *File) read(missingOK bool) ([]byte, error) {
	data, err := ReadFile(f.path)
	if missingOK && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil && data == nil {
		data = []byte{} // an empty file is there
	}
	return data, err
}

// Replace replaces the file, whose bytes were old (nil: there was none),
// with new; it fails with ErrChanged when the file is no longer old.
func (f *File) Replace(old, new []byte) error {
	return f.edit(old == nil, func(data []byte) ([]byte, error) {
		if (data == nil) != (old == nil) || !bytes.Equal(data, old) {
			return nil, ErrChanged
		}
		return new, nil
	})
}

// SetEnabled turns the server called name on or off: its "disabled" key
// (SetDisabled).
func (f *File) SetEnabled(name string, enabled bool) error {
	return f.Edit(func(data []byte) ([]byte, error) { return SetDisabled(data, name, !enabled) })
}

// SetSetting sets the app-wide setting "x-mcptray".key (SetSetting).
func (f *File) SetSetting(key, value string) error {
	return f.Edit(func(data []byte) ([]byte, error) { return SetSetting(data, key, value) })
}

// SetToolEnabled turns one tool of server on or off in the entry's
// "x-mcptray".disabledTools: off appends the glob that matches the tool
// alone (ExactGlob; unless a glob turns it off already); on removes that
// glob, and fails when another glob still turns the tool off. A tool
// named like a glob ("*") is never read as one: off turns off that tool
// only, and on never removes the person's own "*".
func (f *File) SetToolEnabled(server, tool string, on bool) error {
	return f.Edit(func(data []byte) ([]byte, error) { return setToolEnabled(data, server, tool, on) })
}

// setToolEnabled is SetToolEnabled's edit of data.
func setToolEnabled(data []byte, server, tool string, on bool) ([]byte, error) {
	if tool == "" {
		return nil, fmt.Errorf("no tool name given")
	}
	list, err := EntryList(data, server, "disabledTools")
	if err != nil {
		return nil, err
	}
	if !on {
		if _, off := (ToolRules{DisabledTools: list}).ToolOff(tool); off {
			return data, nil
		}
		return SetEntryList(data, server, "disabledTools", append(list, ExactGlob(tool)))
	}
	exact := ExactGlob(tool)
	kept := slices.DeleteFunc(slices.Clone(list), func(g string) bool { return g == exact })
	if glob, off := (ToolRules{DisabledTools: kept}).ToolOff(tool); off {
		return nil, fmt.Errorf("%s stays off: the pattern %q in the disabledTools of %s turns it off; edit mcp.json to change it", tool, glob, server)
	}
	if len(kept) == len(list) {
		return data, nil
	}
	return SetEntryList(data, server, "disabledTools", kept)
}

// AllowTool adds tool to the entry's "x-mcptray".allowTools, as the glob
// that matches it alone (ExactGlob): a tool named "w*" is written `w\*`,
// which allows no other tool. A tool allowed already changes nothing.
func (f *File) AllowTool(server, tool string) error {
	return f.Edit(func(data []byte) ([]byte, error) {
		list, err := EntryList(data, server, "allowTools")
		if err != nil {
			return nil, err
		}
		if (ToolRules{AllowTools: list}).ToolAllowed(tool) {
			return data, nil
		}
		return SetEntryList(data, server, "allowTools", append(list, ExactGlob(tool)))
	})
}
