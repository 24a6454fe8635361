//go:build !headless

package main

import (
	"github.com/mcptray/mcptray/cli"
	sshsrv "github.com/mcptray/mcptray/mcp/servers/ssh"
	"github.com/mcptray/mcptray/ui"
)

// sshAliases backs the tray app's SSH tab with cli.SSHAliases (the SSH
// server's own alias code, on the keyring, as `mcptray ssh alias` does),
// converting the SSH server's alias type to the tab's, the same struct.
// Remove and Test are cli.SSHAliases'.
type sshAliases struct{ cli.SSHAliases }

func (s sshAliases) List() ([]ui.SSHAlias, error) {
	var out []ui.SSHAlias
	list, err := s.SSHAliases.List()
	for _, a := range list {
		out = append(out, ui.SSHAlias(a))
	}
	return out, err
}

func (s sshAliases) Add(a ui.SSHAlias, replace bool) (note string, err error) {
	return s.SSHAliases.Add(sshsrv.Alias(a), replace)
}
