//go:build unix

package ssh

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Every tool is there, with truthful hints and an output schema.
func TestToolsAnnotationsAndSchemas(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res, err := e.client.ListTools(context.Background(), nil)
	must(t, err)
	readOnly := map[string]bool{"list_aliases": true, "test_alias": true, "read_file": true, "list_files": true, "grep_files": true, "sysinfo": true}
	destructive := map[string]bool{"remove_alias": true, "exec": true, "edit_file": true, "replace_lines": true, "upload": true, "download": true, "systemd": true}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil || a.Title == "" {
			t.Errorf("%s: incomplete annotations %+v", tool.Name, a)
			continue
		}
		if a.ReadOnlyHint != readOnly[tool.Name] {
			t.Errorf("%s: readOnlyHint %v", tool.Name, a.ReadOnlyHint)
		}
		if *a.DestructiveHint != destructive[tool.Name] {
			t.Errorf("%s: destructiveHint %v", tool.Name, *a.DestructiveHint)
		}
		schema, _ := json.Marshal(tool.OutputSchema)
		if tool.OutputSchema == nil || !strings.Contains(string(schema), `"properties"`) {
			t.Errorf("%s: output schema %s", tool.Name, schema)
		}
		in, _ := json.Marshal(tool.InputSchema)
		if strings.Contains(strings.ToLower(string(in)), `"password"`) {
			t.Errorf("%s asks the model for a password: %s", tool.Name, in)
		}
	}
	slices.Sort(names)
	want := []string{"add_alias", "download", "edit_file", "exec", "grep_files", "list_aliases", "list_files", "read_file", "remove_alias", "replace_lines", "sysinfo", "systemd", "test_alias", "upload"}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
}

func TestAliasTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var a aliasOut
	e.ok("add_alias", map[string]any{"name": "prod", "host": "prod.example.com", "user": "deploy", "key_path": "~/.ssh/missing"}, &a)
	if a.Alias.Port != 22 || a.Alias.Auth != AuthKey || a.Alias.Sudo != SudoPrompt || !strings.Contains(a.Note, "does not exist") {
		t.Errorf("add_alias = %+v", a)
	}
	e.ok("add_alias", map[string]any{"name": "db", "host": "10.0.0.5", "port": 2222, "user": "admin", "auth": "password", "sudo": "nopasswd", "accept_new_host_key": true}, &a)
	var list listAliasesOut
	e.ok("list_aliases", nil, &list)
	if len(list.Aliases) != 2 || list.Aliases[0].Name != "db" || list.Aliases[0].Port != 2222 || !list.Aliases[0].AcceptNewHostKey {
		t.Errorf("list_aliases = %+v", list)
	}
	for args, want := range map[string]string{
		`{"name":"prod","host":"h","user":"u"}`:                             "alias prod exists already",
		`{"name":"bad name","host":"h","user":"u"}`:                         `alias name "bad name" must be`,
		`{"name":"x","host":"","user":"u"}`:                                 `host "" must be a host name`,
		`{"name":"x","host":"h","user":"u","port":70000}`:                   "port 70000 must be 1-65535",
		`{"name":"x","host":"h","user":"u","auth":"magic"}`:                 `auth must be key, password or agent, got "magic"`,
		`{"name":"x","host":"h","user":"u","sudo":"always"}`:                `sudo must be nopasswd, prompt or none, got "always"`,
		`{"name":"x","host":"h","user":"u","auth":"agent","key_path":"/k"}`: "a key path is only for auth key",
		`{"name":"x","host":"-oProxyCommand=x","user":"u"}`:                 "must be a host name",
	} {
		var m map[string]any
		json.Unmarshal([]byte(args), &m)
		if msg := e.fail("add_alias", m); !strings.Contains(msg, want) {
			t.Errorf("add_alias %s: %s\nwant %q", args, msg, want)
		}
	}
	var rm removeAliasOut
	e.ok("remove_alias", map[string]any{"name": "prod"}, &rm)
	if msg := e.fail("remove_alias", map[string]any{"name": "prod"}); !strings.Contains(msg, `no such SSH alias "prod"`) {
		t.Errorf("remove twice: %s", msg)
	}
	e.ok("list_aliases", nil, &list)
	if len(list.Aliases) != 1 {
		t.Errorf("after remove: %+v", list)
	}
}

// brokenStore is a keyring that cannot be reached.
type brokenStore struct{}

func (brokenStore) Load() ([]Alias, error) {
	return nil, errors.New("no Secret Service on the session D-Bus: start gnome-keyring")
}
func (brokenStore) Save([]Alias) error { return errors.New("no Secret Service on the session D-Bus") }

func TestNoKeyringIsAClearError(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withOptions(func(o *Options) { o.Aliases = brokenStore{} }))
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"list_aliases", nil},
		{"exec", map[string]any{"alias": "x", "command": "true"}},
		{"add_alias", map[string]any{"name": "x", "host": "h", "user": "u"}},
	} {
		if msg := e.fail(c.tool, c.args); !strings.Contains(msg, "reading the SSH aliases: no Secret Service on the session D-Bus") {
			t.Errorf("%s: %s", c.tool, msg)
		}
	}
}

func TestTestAliasReportsSudo(t *testing.T) {
	t.Parallel()
	ts := startServer(t, withSudoPassword("pw"))
	e := newEnv(t)
	e.keyAlias("box", ts)
	e.keyAlias("off", ts, func(a *Alias) { a.Sudo = SudoNone })
	var res TestResult
	e.ok("test_alias", map[string]any{"name": "box"}, &res)
	if !res.Connected || !strings.HasPrefix(res.Auth, "key ") || res.HostKey.Status != "known" || res.Sudo.Status != "password-needed" || res.ServerVersion == "" {
		t.Errorf("test_alias = %+v", res)
	}
	if len(e.asks.asked()) != 0 {
		t.Errorf("test_alias asked for %v", e.asks.asked())
	}
	for _, c := range ts.sudoCalls() {
		if !strings.Contains(c, "v=1") {
			t.Errorf("test_alias ran sudo other than -v: %s", c)
		}
	}
	e.ok("test_alias", map[string]any{"name": "off"}, &res)
	if res.Sudo.Status != "off" {
		t.Errorf("sudo none: %+v", res.Sudo)
	}
}

func TestSysinfo(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	var out sysinfoOut
	e.ok("sysinfo", map[string]any{"alias": "box"}, &out)
	host, _ := os.Hostname()
	if out.Hostname != host || out.Kernel == "" || out.OS == "" || out.UptimeS <= 0 || len(out.Load) != 3 || out.Memory.TotalBytes <= 0 || len(out.Disks) == 0 || out.CPUs < 1 {
		t.Errorf("sysinfo = %+v", out)
	}
}

func TestSystemd(t *testing.T) {
	t.Parallel()
	ts := startServer(t, withSudoPassword("sudo-pw"))
	e := newEnv(t)
	e.keyAlias("box", ts)
	var out systemdOut
	e.ok("systemd", map[string]any{"alias": "box", "unit": "nginx", "action": "status"}, &out)
	if out.Status.Unit != "nginx.service" || out.Status.ActiveState != "inactive" || out.Status.MainPID != 4242 || len(e.asks.asked()) != 0 {
		t.Errorf("status = %+v", out)
	}
	e.asks.push(answer{value: "sudo-pw"})
	e.ok("systemd", map[string]any{"alias": "box", "unit": "nginx", "action": "restart"}, &out)
	if out.Status.ActiveState != "active" || len(e.asks.asked()) != 1 {
		t.Errorf("restart = %+v (asked %d)", out, len(e.asks.asked()))
	}
	e.ok("systemd", map[string]any{"alias": "box", "unit": "nginx", "action": "logs", "lines": 5}, &out)
	if !strings.Contains(out.Logs, "fake[4242]: ready") {
		t.Errorf("logs = %+v", out)
	}
	journal, _ := os.ReadFile(filepath.Join(filepath.Dir(ts.home), "journalctl.log"))
	if !strings.Contains(string(journal), "-n 5 -u nginx") {
		t.Errorf("journalctl args: %s", journal)
	}
	if msg := e.fail("systemd", map[string]any{"alias": "box", "unit": "nginx; rm -rf /", "action": "status"}); !strings.Contains(msg, "is not a unit name") {
		t.Errorf("bad unit: %s", msg)
	}
	if msg := e.fail("systemd", map[string]any{"alias": "box", "unit": "nginx", "action": "reload-or-explode"}); !strings.Contains(msg, "action must be status, start, stop, restart or logs") {
		t.Errorf("bad action: %s", msg)
	}
}
