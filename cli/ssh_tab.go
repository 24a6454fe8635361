package cli

import (
	"context"
	"errors"
	"log/slog"

	sshsrv "github.com/mcptray/mcptray/mcp/servers/ssh"
)

// SSHAliases backs the tray app's SSH tab with the SSH server's own alias
// code, on the keyring, as `mcptray ssh alias` does (ssh.go). main's
// desktop_ssh.go hands it to the tab (ui.SSHAliases), whose alias type is
// the same struct as sshsrv.Alias.
type SSHAliases struct{}

func (SSHAliases) with(f func(*sshsrv.Server) error) error {
	srv := SSHServer(slog.New(slog.DiscardHandler))
	defer srv.Close()
	return f(srv)
}

// List returns the aliases.
func (s SSHAliases) List() ([]sshsrv.Alias, error) {
	var out []sshsrv.Alias
	err := s.with(func(srv *sshsrv.Server) error {
		list, err := srv.ListAliases()
		out = append(out, list...)
		return err
	})
	return out, err
}

// Add saves a, with the SSH server's checks; note, when not empty, is
// worth telling the person.
func (s SSHAliases) Add(a sshsrv.Alias, replace bool) (note string, err error) {
	err = s.with(func(srv *sshsrv.Server) error {
		_, note, err = srv.AddAlias(a, replace)
		return err
	})
	return note, err
}

// Remove removes the alias name.
func (s SSHAliases) Remove(name string) error {
	return s.with(func(srv *sshsrv.Server) error { return srv.RemoveAlias(name) })
}

// Test connects with the alias name and returns the report `mcptray ssh
// alias test` prints; the error is why it could not connect.
func (s SSHAliases) Test(ctx context.Context, name string, ask func(context.Context, string) (string, error)) (report string, err error) {
	err = s.with(func(srv *sshsrv.Server) error {
		res, err := srv.TestAlias(ctx, name, ask)
		if err != nil {
			return err
		}
		report = SSHTestReport(res)
		if !res.Connected {
			return errors.New(res.Error)
		}
		return nil
	})
	return report, err
}
