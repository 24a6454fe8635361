//go:build linux

package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testdaemon"
	sshsrv "github.com/mcptray/mcptray/mcp/servers/ssh"
)

// TestSSHTabAliases: the SSH tab's backing (SSHAliases, through main's
// desktop_ssh.go) reads and writes the same keyring entry as `mcptray ssh
// alias`, with the SSH server's own checks, and a test of an unreachable
// host reports why.
func TestSSHTabAliases(t *testing.T) {
	testdaemon.Keyring(t, sshAliasesEntry)
	var s SSHAliases
	if _, err := s.Add(sshsrv.Alias{Name: "lab", Host: "127.0.0.1", Port: 1, User: "me", Auth: "agent", Sudo: "none"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(sshsrv.Alias{Name: "lab", Host: "127.0.0.1", Port: 1, User: "me", Auth: "agent", Sudo: "none"}, false); err == nil {
		t.Error("a second alias of the same name was added")
	}
	if _, err := s.Add(sshsrv.Alias{Name: "bad name!", Host: "h", Port: 22, User: "u", Auth: "key", Sudo: "prompt"}, false); err == nil {
		t.Error("an invalid name was added")
	}
	if code, out, _ := cli(t, "ssh", "alias", "list"); code != 0 || !strings.Contains(out, "lab") || !strings.Contains(out, "me@127.0.0.1:1") {
		t.Errorf("the CLI does not see the tab's alias:\n%s", out)
	}
	list, err := s.List()
	if err != nil || len(list) != 1 || list[0].Name != "lab" || list[0].Auth != "agent" {
		t.Errorf("List: %+v %v", list, err)
	}
	report, err := s.Test(context.Background(), "lab", nil)
	if err == nil || !strings.Contains(report, "alias lab: could not connect to me@127.0.0.1:1") {
		t.Errorf("test of an unreachable host: %q %v", report, err)
	}
	if err := s.Remove("lab"); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Errorf("after Remove: %+v", list)
	}
}
