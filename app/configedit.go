package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/app/trust"
	"github.com/mcptray/mcptray/store"
)

// mcptray's own edits of mcp.json: what it writes itself runs without a
// question (app/trust). Every edit is a config.File's (package config says
// which does what); these are the Files whose Writer makes the write
// mcptray's own. Inside the core, c.configFile, written with ownWrite. For
// the commands that write the file themselves (`mcptray add`, `remove`,
// `import`; `toggle` and `tools NAME on|off` with no instance): OwnFile,
// which writes through the running instance (control.Client.ReplaceConfig, then
// the core's File) or, with none running, records the approvals in the
// data dir's store first.

// ReplaceConfig replaces mcp.json, whose bytes were old, with new, as
// mcptray's own edit; it fails with config.ErrChanged when the file is no
// longer old.
func (c *Core) ReplaceConfig(old, new []byte) error {
	return c.configFile.Replace(old, new)
}

// ownWrite writes mcp.json as this core's own edit, its new or changed
// entries approved first (trust.Launches.ApproveOwnEdit): the Writer of
// c.configFile.
func (c *Core) ownWrite(old, new []byte) error {
	c.launches.ApproveOwnEdit(old, new)
	return config.WriteAtomic(c.opts.ConfigPath, new)
}

// AddServer adds (or, with replace, edits) an entry of this core's
// mcp.json (config.File.Add); secrets go through SetSecret. The watcher
// applies the edit.
func (c *Core) AddServer(e config.Entry, replace bool) (config.AddResult, error) {
	return c.configFile.Add(e, config.AddOptions{Replace: replace, StoreSecret: c.SetSecret, Env: c.configEnv()})
}

// RemoveServer takes an entry out of this core's mcp.json and returns the
// ${keyring:NAME} names it referenced. The watcher stops the server.
func (c *Core) RemoveServer(name string) ([]string, error) {
	return c.configFile.Remove(name)
}

// ServerEntry reads the entry called name of this core's mcp.json as
// written, for the Servers tab's Edit.
func (c *Core) ServerEntry(name string) (config.Entry, error) {
	return c.configFile.Entry(name)
}

// OwnFile is the one way a command writes mcp.json (at path, of the
// instance on data dir data) as mcptray's own edit, so that what it adds or
// changes needs no approval: each edit is read and made here, and written
// through the running instance cl (control.Client.ReplaceConfig: the instance's
// File checks the file is still what was read, and approves), or with none
// (cl nil) by ownWriteFile. A write fails with config.ErrChanged when the
// file changed meanwhile.
func OwnFile(ctx context.Context, cl *control.Client, path, data string) *config.File {
	return config.NewFile(path, func(old, new []byte) error {
		switch {
		case cl != nil:
			return cl.ReplaceConfig(ctx, old, new)
		case old == nil:
			return config.WriteAtomic(path, new) // no file: nothing was approved from it
		}
		return ownWriteFile(path, data, FileEnv(path), old, new)
	})
}

// ownWriteFile writes new over old, the config at path, as mcptray's own
// edit, with no instance running on data: the launches the edit adds or
// changes are recorded as approved in data's store first (it fails when
// there are some and an instance runs; an edit that changes none, a
// toggle, locks nothing). env resolves ${self} and ~ for those launches (Dir may be
// empty).
func ownWriteFile(path, data string, env config.Env, old, new []byte) error {
	if err := approveInStore(path, data, env, old, new); err != nil {
		return err
	}
	return config.WriteAtomic(path, new)
}

// approveInStore records as approved in data's store the launches that
// new adds or changes from old: those of an edit of the config at path.
func approveInStore(path, data string, env config.Env, old, new []byte) error {
	if bytes.Equal(new, old) {
		return nil
	}
	if _, err := os.Stat(dbPath(data)); errors.Is(err, os.ErrNotExist) {
		return nil // never started: its first start approves what is there
	}
	if env.Dir == "" {
		if abs, err := filepath.Abs(path); err == nil {
			env.Dir = filepath.Dir(abs)
		}
	}
	env.Root = os.Geteuid() == 0
	// Which launches change does not depend on the key the values are
	// hashed with: an edit that changes none (a toggle, a removal) has
	// nothing to approve, and nothing to lock.
	if changed, err := changedLaunches(old, new, env); err == nil && len(changed) == 0 {
		return nil
	}
	lock, err := lockInstance(data)
	if err != nil {
		return err
	}
	defer lock.release()
	st, err := store.Open(dbPath(data))
	if err != nil {
		return fmt.Errorf("opening database: %w", err)
	}
	defer st.Close()
	if env.LaunchKey, err = trust.LoadLaunchKey(data); err != nil {
		return err
	}
	changed, err := changedLaunches(old, new, env)
	if err != nil {
		return err
	}
	for name, l := range changed {
		if fp := l.Fingerprint(); fp != "" {
			a := store.LaunchApproval{Server: name, Fingerprint: fp, Command: l.CommandLine(), How: store.ApprovedByMcptray, Approved: time.Now().UTC(),
				Values: l.Values, Files: l.Files}
			if err := st.ApproveLaunch(context.Background(), a); err != nil {
				return err
			}
		}
	}
	return nil
}

// changedLaunches is what new runs that old did not, by name: the launches
// an edit adds or changes.
func changedLaunches(old, new []byte, env config.Env) (map[string]config.Launch, error) {
	before, _ := config.Launches(old, env)
	after, err := config.Launches(new, env)
	if err != nil {
		return nil, err
	}
	for name, l := range after {
		if fp := l.Fingerprint(); fp == "" || before[name].Fingerprint() == fp {
			delete(after, name)
		}
	}
	return after, nil
}

// FileEnv is the config.Env of a process without an instance (the CLI):
// its environment, the OS keyring, and no inbox (an ${input:ID} not given
// yet is asked by the instance, later). `mcptray add` checks an entry with
// it (config.AddOptions.Env).
func FileEnv(path string) config.Env {
	env := config.SystemEnv()
	env.Keyring = keyring.Secret
	if abs, err := filepath.Abs(path); err == nil {
		env.Dir = filepath.Dir(abs)
	}
	env.Input = func(config.Input) (string, error) { return "", config.ErrInputNotGiven }
	return env
}
