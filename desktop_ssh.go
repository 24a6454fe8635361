//go:build !headless

package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/mcptray/mcptray/cli"
	sshsrv "github.com/mcptray/mcptray/mcp/servers/ssh"
	"github.com/mcptray/mcptray/ui"
)

// sshAliases backs the tray app's SSH tab with the SSH server's own alias
// code, on the keyring, as `mcptray ssh alias` does (cli/ssh.go).
type sshAliases struct{}

func (sshAliases) with(f func(*sshsrv.Server) error) error {
	srv := cli.SSHServer(slog.New(slog.DiscardHandler))
	defer srv.Close()
	return f(srv)
}

func (s sshAliases) List() ([]ui.SSHAlias, error) {
	var out []ui.SSHAlias
	err := s.with(func(srv *sshsrv.Server) error {
		list, err := srv.ListAliases()
		for _, a := range list {
			out = append(out, ui.SSHAlias(a))
		}
		return err
	})
	return out, err
}

func (s sshAliases) Add(a ui.SSHAlias, replace bool) (note string, err error) {
	err = s.with(func(srv *sshsrv.Server) error {
		_, note, err = srv.AddAlias(sshsrv.Alias(a), replace)
		return err
	})
	return note, err
}

func (s sshAliases) Remove(name string) error {
	return s.with(func(srv *sshsrv.Server) error { return srv.RemoveAlias(name) })
}

func (s sshAliases) Test(ctx context.Context, name string, ask func(context.Context, string) (string, error)) (report string, err error) {
	err = s.with(func(srv *sshsrv.Server) error {
		res, err := srv.TestAlias(ctx, name, ask)
		if err != nil {
			return err
		}
		report = cli.SSHTestReport(res)
		if !res.Connected {
			return errors.New(res.Error)
		}
		return nil
	})
	return report, err
}
