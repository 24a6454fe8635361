//go:build linux

package cli

import (
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/internal/testdaemon"
)

// sshKeyring gives the test the keyring entry ssh/aliases to itself
// (testdaemon.Keyring).
func sshKeyring(t *testing.T) {
	t.Helper()
	testdaemon.Keyring(t, sshAliasesEntry)
}

func TestSSHAliasCLI(t *testing.T) {
	sshKeyring(t)
	code, out, errs := cli(t, "ssh", "alias", "list")
	if code != 0 || !strings.Contains(out, "no SSH aliases") {
		t.Fatalf("empty list: %d %q %q", code, out, errs)
	}
	code, out, errs = cli(t, "ssh", "alias", "add", "prod", "--host", "prod.example.com", "--user", "deploy", "--key", "~/.ssh/id_prod", "--sudo", "prompt")
	if code != 0 || !strings.Contains(out, "alias prod: deploy@prod.example.com:22, auth key, sudo prompt") {
		t.Fatalf("add: %d %q %q", code, out, errs)
	}
	code, _, errs = cli(t, "ssh", "alias", "add", "db", "--host", "10.0.0.5", "--port", "2222", "--user", "admin", "--auth", "password", "--sudo", "nopasswd", "--accept-new-host-key", "--jump", "prod")
	if code != 0 {
		t.Fatalf("add db: %s", errs)
	}
	code, out, _ = cli(t, "ssh", "alias", "list")
	if code != 0 {
		t.Errorf("list: exit %d", code)
	}
	for _, want := range []string{"NAME", "db", "admin@10.0.0.5:2222", "password", "nopasswd", "accepted", "prod", "key ~/.ssh/id_prod"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	// The keyring entry: a JSON list of aliases, no password field.
	raw, err := keyring.Get(sshAliasesEntry)
	if err != nil {
		t.Fatal(err)
	}
	var stored []map[string]any
	if err := json.Unmarshal([]byte(raw), &stored); err != nil || len(stored) != 2 {
		t.Fatalf("keyring entry: %v %s", err, raw)
	}
	if strings.Contains(strings.ToLower(raw), "pass\"") || strings.Contains(strings.ToLower(raw), "password\":") {
		t.Errorf("the entry has a password field: %s", raw)
	}
	code, out, _ = cli(t, "ssh", "alias", "list", "--json")
	var l struct {
		Aliases []struct {
			Name string `json:"name"`
			Port int    `json:"port"`
			Jump string `json:"jump"`
		} `json:"aliases"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || len(l.Aliases) != 2 || l.Aliases[0].Name != "db" || l.Aliases[0].Jump != "prod" {
		t.Errorf("list --json: %s", out)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ssh", "alias", "add", "prod", "--host", "h", "--user", "u"}, 1, "alias prod exists already"},
		{[]string{"ssh", "alias", "add", "x", "--host", "h"}, 2, "needs --host and --user"},
		{[]string{"ssh", "alias", "add", "x", "--host", "h", "--user", "u", "--sudo", "maybe"}, 1, `sudo must be nopasswd, prompt or none, got "maybe"`},
		{[]string{"ssh", "alias", "add", "x", "--host", "h", "--user", "u", "--auth", "agent", "--key", "k"}, 2, "--key goes with --auth key"},
		{[]string{"ssh", "alias", "remove", "prod"}, 1, "alias prod is the jump host of db"},
		{[]string{"ssh", "alias", "remove", "nope"}, 1, `no such SSH alias "nope"`},
		{[]string{"ssh", "alias", "frob"}, 2, `got "frob"`},
		{[]string{"ssh"}, 2, "ssh takes: alias list|add|remove|test"},
		{[]string{"ssh", "alias", "test"}, 2, "takes 1 argument"},
	} {
		code, _, errs := cli(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	// test of a password alias without a terminal says what to do.
	if code, _, errs := cli(t, "ssh", "alias", "add", "pw", "--host", "127.0.0.1", "--port", "1", "--user", "u", "--auth", "password"); code != 0 {
		t.Fatal(errs)
	}
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "ssh", "alias", "test", "pw")
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	cmd.Stdin = strings.NewReader("")
	b, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(b), "no terminal to ask on") {
		t.Errorf("test without a terminal: %d %s", cmd.ProcessState.ExitCode(), b)
	}

	for _, name := range []string{"db", "prod", "pw"} {
		if code, out, errs := cli(t, "ssh", "alias", "remove", name); code != 0 || !strings.Contains(out, "alias "+name+" removed") {
			t.Errorf("remove %s: %q %q", name, out, errs)
		}
	}
}

// serve ssh reads x-mcptray.ssh and x-mcptray.localRoots from the file
// MCPTRAY_CONFIG names, again when it changes; a file that stops parsing
// keeps the last good settings.
func TestSSHSettingsFromConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	t.Setenv("MCPTRAY_CONFIG", path)
	cs := &configSettings{home: "/home/ada", log: slog.New(slog.DiscardHandler)}
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		// A new mtime even on coarse clocks.
		next := time.Now().Add(time.Duration(len(text)) * time.Second)
		os.Chtimes(path, next, next)
	}
	st, err := cs.get()
	if err != nil || st.SecretTTL != 5*time.Minute || len(st.LocalRoots) != 1 || st.LocalRoots[0] != "/home/ada" {
		t.Errorf("no file: %+v %v", st, err)
	}
	write(`{"mcpServers": {}, "x-mcptray": {"ssh": {"localRoots": ["~/work", "/srv/data"], "secretTTL": "90s"}}}`)
	st, err = cs.get()
	if err != nil || st.SecretTTL != 90*time.Second || strings.Join(st.LocalRoots, ",") != "/home/ada/work,/srv/data" {
		t.Errorf("settings: %+v %v", st, err)
	}
	// The top-level x-mcptray.localRoots, which gmail reads too, wins.
	write(`{"mcpServers": {}, "x-mcptray": {"localRoots": ["~/shared"], "ssh": {"localRoots": ["~/work"], "secretTTL": "90s"}}}`)
	if st, err = cs.get(); err != nil || st.SecretTTL != 90*time.Second || strings.Join(st.LocalRoots, ",") != "/home/ada/shared" {
		t.Errorf("top-level localRoots: %+v %v", st, err)
	}
	write(`{"mcpServers": {}, "x-mcptray": {"ssh": {"localRoots": ["~/work"], "secretTTL": "90s"}}, oops`)
	if st, err = cs.get(); err != nil || st.SecretTTL != 90*time.Second {
		t.Errorf("a broken file kept: %+v %v", st, err)
	}
	write(`{"mcpServers": {}, "x-mcptray": {"ssh": {"localRoots": "work"}}}`)
	if _, err = cs.get(); err == nil || !strings.Contains(err.Error(), "x-mcptray.ssh.localRoots must be a list of folders") {
		t.Errorf("a bad value: %v", err)
	}
	write(`{"mcpServers": {}, "x-mcptray": {"localRoots": "shared"}}`)
	if _, err = cs.get(); err == nil || !strings.Contains(err.Error(), "x-mcptray.localRoots must be a list of folders") {
		t.Errorf("a bad top-level value: %v", err)
	}
	write(`{"mcpServers": {}, "x-mcptray": {"ssh": {"secretTTL": "forever"}}}`)
	if _, err = cs.get(); err == nil || !strings.Contains(err.Error(), `x-mcptray.ssh.secretTTL must be a duration like "5m" or "90s", got "forever"`) {
		t.Errorf("a bad TTL: %v", err)
	}
}

// Without a keyring the alias commands (and the server's tools, which
// read the same entry) fail with the keyring's reason, not a crash.
func TestSSHWithoutKeyring(t *testing.T) {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "ssh", "alias", "list")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "MCPTRAY_TEST_AS_MCPTRAY=1", "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(t.TempDir(), "no-bus"))
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), "mcptray: reading the SSH aliases: no session D-Bus, which the keyring needs") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
