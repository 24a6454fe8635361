//go:build linux

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/internal/testdaemon"
)

// addConfig is a JSONC mcp.json as a person keeps it: comments, a
// trailing comma, an inline entry.
const addConfig = `{
  // servers for the assistants
  "mcpServers": {
    "ssh": { "command": "${self}", "args": ["serve", "ssh"] }, // built in
    "notes": {
      "command": "uvx",
      "args": ["notes-mcp"], /* read-only */
    },
  },
  "x-mcptray": { "tools": "live" }
}
`

// offline is a config file with addConfig and a data dir where no
// instance runs.
func offline(t *testing.T) (cfg string, flags []string) {
	t.Helper()
	dir := t.TempDir()
	cfg = filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfg, []byte(addConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	// Were --config left out by mistake, the default path is this.
	t.Setenv("MCPTRAY_CONFIG", filepath.Join(dir, "default-mcp.json"))
	return cfg, []string{"--config", cfg, "--data", filepath.Join(dir, "data")}
}

// withFlags puts flags into args before the "--" that ends add's flags
// (after it they would be the server's arguments).
func withFlags(args, flags []string) []string {
	i := slices.Index(args, "--")
	if i < 0 {
		i = len(args)
	}
	return slices.Concat(args[:i], flags, args[i:])
}

func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// parsed is the entry called name as mcptray loads it.
func parsed(t *testing.T, path, name string) config.Server {
	t.Helper()
	cfg, err := config.Load(path, config.Env{Home: "/home/me", Keyring: func(string) (string, error) { return "from-keyring", nil }})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cfg.Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no entry %s in\n%s", name, fileText(t, path))
	return config.Server{}
}

// add and remove without an instance: a stdio entry (its command line
// after -- verbatim, a second -- and dashed words included) and an http
// one; removing both gives back the file byte for byte, comments and all.
func TestAddRemoveWithoutAnInstance(t *testing.T) {
	cfg, flags := offline(t)
	args := append(append([]string{"add", "github", "--env", "GITHUB_HOST=github.example.com", "--cwd", "/srv/gh", "--disabled"}, flags...),
		"--", "npx", "-y", "@modelcontextprotocol/server-github", "--port=3", "--", "-v", "--help")
	code, out, errs := cli(t, args...)
	if want := "added github (turned off) in " + cfg + " (mcptray is not running: the server starts with it)\n"; code != 0 || out != want || errs != "" {
		t.Fatalf("add: exit %d, %q %q; want 0, %q", code, out, errs, want)
	}
	s := parsed(t, cfg, "github")
	if s.Err != nil || s.Command != "npx" || !slices.Equal(s.Args, []string{"-y", "@modelcontextprotocol/server-github", "--port=3", "--", "-v", "--help"}) ||
		s.Env["GITHUB_HOST"] != "github.example.com" || s.Cwd != "/srv/gh" || !s.Disabled {
		t.Errorf("the entry loads as %+v:\n%s", s, fileText(t, cfg))
	}
	code, out, errs = cli(t, append([]string{"add", "remote", "--url", "https://mcp.example.com/mcp", "--header", "X-Team=blue"}, flags...)...)
	if code != 0 || !strings.HasPrefix(out, "added remote in ") {
		t.Fatalf("add --url: exit %d, %q %q", code, out, errs)
	}
	if s := parsed(t, cfg, "remote"); s.Err != nil || s.Type != "http" || s.URL != "https://mcp.example.com/mcp" || s.Headers["X-Team"] != "blue" {
		t.Errorf("the http entry loads as %+v", s)
	}
	if !strings.Contains(fileText(t, cfg), "// servers for the assistants") {
		t.Errorf("a comment is gone:\n%s", fileText(t, cfg))
	}

	for _, name := range []string{"github", "remote"} {
		code, out, errs = cli(t, append([]string{"remove", name}, flags...)...)
		if want := "removed " + name + " from " + cfg + "\n"; code != 0 || out != want {
			t.Errorf("remove %s: exit %d, %q %q; want %q", name, code, out, errs, want)
		}
	}
	if got := fileText(t, cfg); got != addConfig {
		t.Errorf("after add and remove:\n%s\nwant the file as it was:\n%s", got, addConfig)
	}
	code, out, errs = cli(t, append([]string{"remove", "github"}, flags...)...)
	if want := fmt.Sprintf("mcptray: no such server: \"github\" in %s\n", cfg); code != 1 || out != "" || errs != want {
		t.Errorf("second remove: exit %d, %q %q; want 1, %q", code, out, errs, want)
	}

	// --replace edits the entry in place: what it sets, the rest kept.
	code, out, errs = cli(t, append(append([]string{"add", "notes", "--replace"}, flags...), "--", "uvx", "notes-mcp", "--write")...)
	if code != 0 || !strings.HasPrefix(out, "replaced notes in ") {
		t.Fatalf("add --replace: exit %d, %q %q", code, out, errs)
	}
	want := strings.Replace(addConfig, `"args": ["notes-mcp"],`, "\"args\": [\n        \"notes-mcp\",\n        \"--write\"\n      ],", 1)
	if got := fileText(t, cfg); got != want {
		t.Errorf("after --replace:\n%s\nwant\n%s", got, want)
	}
}

// A bad command line is a usage error: exit 2, one line saying why (and
// where the usage is), nothing written.
func TestAddUsageErrors(t *testing.T) {
	cfg, flags := offline(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"add"}, "add takes the server's NAME, then -- COMMAND [ARGS...] or --url URL"},
		{[]string{"add", "x"}, "add needs -- COMMAND [ARGS...] (stdio) or --url URL (http)"},
		{[]string{"add", "x", "npx", "y"}, "add takes one NAME; the command goes after --: mcptray add NAME [flags] -- COMMAND [ARGS...]"},
		{[]string{"add", "x", "--url", "https://e/mcp", "--", "cmd"}, "add takes -- COMMAND or --url, not both"},
		{[]string{"add", "x", "--url", "https://e/mcp", "--env", "A=B"}, "--env and --cwd go with a command, not --url"},
		{[]string{"add", "x", "--header", "A=B", "--", "cmd"}, "--header goes with --url"},
		{[]string{"add", "x", "--", ""}, "the COMMAND after -- is empty"},
		{[]string{"add", "a b", "--", "cmd"}, "a server's name has letters, digits, _ and - only, and starts with a letter or a digit"},
		{[]string{"add", "mcptray", "--", "cmd"}, `"mcptray" is the name of mcptray's own tools; choose another`},
		{[]string{"add", "x", "--env", "NOEQUALS", "--", "cmd"}, `--env takes KEY=VALUE, got "NOEQUALS"`},
		{[]string{"add", "x", "--secret", "TOKEN=hunter2", "--", "cmd"}, "--secret takes a KEY only: its value is asked for, or read from stdin, never taken from the command line"},
		{[]string{"add", "x", "--bogus", "--", "cmd"}, "flag provided but not defined: -bogus"},
		{[]string{"remove"}, "remove takes 1 argument(s), got 0"},
		{[]string{"remove", "a", "b"}, "remove takes 1 argument(s), got 2"},
	} {
		code, out, errs := cli(t, withFlags(c.args, flags)...)
		lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
		if code != 2 || out != "" || len(lines) != 2 || lines[0] != "mcptray: "+c.want || !strings.HasPrefix(lines[1], "run 'mcptray ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
		if strings.Contains(errs, "hunter2") {
			t.Errorf("%q: the usage error repeats a value given to --secret", c.args)
		}
	}
	if got := fileText(t, cfg); got != addConfig {
		t.Errorf("a usage error changed the file:\n%s", got)
	}
}

// An entry that loading would refuse is refused with the reason: exit 1,
// one line, the file untouched.
func TestAddRefusedEntry(t *testing.T) {
	cfg, flags := offline(t)
	before, _ := os.Stat(cfg)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"add", "web", "--url", "ftp://files.example.com/mcp"}, `web: "url" must start with http:// or https:// (mcp.json is unchanged)`},
		{[]string{"add", "web", "--url", "https://e/mcp", "--header", "Bad Header=1"}, `web: header name "Bad Header" is not valid (mcp.json is unchanged)`},
		{[]string{"add", "tool", "--env", "K=${env:MCPTRAY_TEST_SURELY_UNSET}", "--", "cmd"}, "tool: variable ${env:MCPTRAY_TEST_SURELY_UNSET} is not set (mcp.json is unchanged)"},
		{[]string{"add", "tool", "--", "${workspaceFolder}/bin/tool"}, "tool: ${workspaceFolder} is not supported outside VS Code (mcp.json is unchanged)"},
		{[]string{"add", "notes", "--", "cmd"}, "notes: a server of that name exists in " + cfg + " (remove it first: mcptray remove notes; or replace it: --replace)"},
	} {
		code, out, errs := cli(t, withFlags(c.args, flags)...)
		if code != 1 || out != "" || errs != "mcptray: "+c.want+"\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 1 and %q", c.args, code, out, errs, c.want)
		}
	}
	after, _ := os.Stat(cfg)
	if got := fileText(t, cfg); got != addConfig || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("a refused entry changed the file:\n%s", got)
	}
	if entries, _ := os.ReadDir(filepath.Dir(cfg)); len(entries) != 1 {
		t.Errorf("files left beside mcp.json: %v", entries)
	}
}

// With a running instance: add (without --config: the instance's file)
// starts the server (an own edit: no approval asked), remove stops it,
// and the file is as it was.
func TestAddedServerStartsInTheDaemon(t *testing.T) {
	// A daemon that asks before new entries run: add is mcptray's own
	// edit, whose server runs without a question.
	in := startAskingDaemon(t, map[string]any{"a": fakeEntry(t, "echo")})
	in.WaitFor("a ready", states("a", "ready"))
	original := fileText(t, in.Config)
	// A config path the instance does not use: add must not write it.
	elsewhere := filepath.Join(t.TempDir(), "elsewhere.json")
	t.Setenv("MCPTRAY_CONFIG", elsewhere)
	exe, _ := os.Executable()
	code, out, errs := cli(t, "add", "b", "--env", "MCPTRAY_FAKE_SERVER=echo", "--env", "GORACE=atexit_sleep_ms=0", "--data", in.Data, "--", exe, "-test.run=^$")
	if want := "added b in " + in.Config + "; the running mcptray applies it\n"; code != 0 || out != want {
		t.Fatalf("add: exit %d, %q %q; want %q", code, out, errs, want)
	}
	in.WaitFor("b ready", states("a", "ready", "b", "ready"))
	if _, err := os.Stat(elsewhere); err == nil {
		t.Error("add wrote $MCPTRAY_CONFIG instead of the running instance's file")
	}
	code, out, errs = cli(t, "remove", "b", "--data", in.Data)
	if want := "removed b from " + in.Config + "; the running mcptray stops it\n"; code != 0 || out != want {
		t.Fatalf("remove: exit %d, %q %q; want %q", code, out, errs, want)
	}
	in.WaitFor("b gone", func(st statusJSON) bool { s, _ := state(st, "b"); return s == "" && len(st.Servers) == 1 })
	if got := fileText(t, in.Config); got != original {
		t.Errorf("after add and remove:\n%s\nwant\n%s", got, original)
	}
}

// addSecretName is a server name of the test's own whose secret KEY's
// keyring entry (and the index of names) the test owns.
func addSecretName(t *testing.T, what string, keys ...string) string {
	t.Helper()
	name := fmt.Sprintf("%s-%d-%d", what, os.Getpid(), time.Now().UnixNano()%1e6)
	for _, k := range keys {
		testdaemon.Keyring(t, "keyring/"+name+"-"+k)
	}
	testdaemon.Keyring(t, "keyring-index")
	return name
}

// --secret without an instance, from stdin: the value goes to the
// keyring (one line each for two), the file gets ${keyring:NAME-KEY}, and
// no output, file or argv holds a value. Remove names the secrets it used
// and leaves them.
func TestAddSecretWithoutAnInstance(t *testing.T) {
	name := addSecretName(t, "addoff", "TOKEN", "OTHER")
	cfg, flags := offline(t)
	v1, v2 := secretValue(t), secretValue(t)
	var outputs []string
	code, out, errs := runStdin(t, v1+"\n"+v2+"\n", append(append([]string{"add", name, "--secret", "TOKEN", "--secret", "OTHER", "--env", "PLAIN=1"}, flags...), "--", "notes-mcp")...)
	outputs = append(outputs, out, errs)
	ref1, ref2 := name+"-TOKEN", name+"-OTHER"
	want := fmt.Sprintf("stored ${keyring:%s}\nstored ${keyring:%s}\nadded %s in %s (mcptray is not running: the server starts with it)\n", ref1, ref2, name, cfg)
	if code != 0 || out != want || errs != "" {
		t.Fatalf("add --secret: exit %d, stdout %q, stderr %q; want 0, %q", code, out, errs, want)
	}
	for ref, v := range map[string]string{ref1: v1, ref2: v2} {
		if got, err := keyring.Get("keyring/" + ref); err != nil || got != v {
			t.Errorf("keyring/%s: %v (the value differs: %t)", ref, err, got != v)
		}
	}
	text := fileText(t, cfg)
	if !strings.Contains(text, `"TOKEN": "${keyring:`+ref1+`}"`) || !strings.Contains(text, `"OTHER": "${keyring:`+ref2+`}"`) {
		t.Errorf("the file does not reference the secrets:\n%s", text)
	}
	// A refused entry asks for nothing and stores nothing.
	code, out, errs = runStdin(t, "never-read\n", append(append([]string{"add", name + "x", "--secret", "TOKEN", "--cwd", "${env:MCPTRAY_TEST_SURELY_UNSET}"}, flags...), "--", "x")...)
	if code != 1 || !strings.Contains(errs, "is not set") {
		t.Errorf("refused add: exit %d %q %q", code, out, errs)
	}
	if _, err := keyring.Get("keyring/" + name + "x-TOKEN"); err == nil {
		t.Error("a refused entry stored its secret")
	}

	code, out, errs = runStdin(t, "", append([]string{"remove", name}, flags...)...)
	outputs = append(outputs, out, errs)
	for _, ref := range []string{ref1, ref2} {
		if line := fmt.Sprintf("it used ${keyring:%s}, still in the keyring (another entry may use it): mcptray secret remove %s deletes it\n", ref, ref); code != 0 || !strings.Contains(out, line) {
			t.Errorf("remove: exit %d, %q %q; want a line %q", code, out, errs, line)
		}
	}
	if got := fileText(t, cfg); got != addConfig {
		t.Errorf("after add and remove:\n%s", got)
	}
	for _, v := range []string{v1, v2} {
		for _, o := range outputs {
			secretLeaks(t, v, "an output", o)
		}
		secretLeaks(t, v, "mcp.json", text)
	}
}

// --secret typed on a terminal, with a running instance: asked without
// echo, stored through the instance, and the server it starts has it in
// its environment — not in its argv, the file, the outputs, mcptray's
// log or the data dir.
func TestAddSecretTypedStartsTheServer(t *testing.T) {
	name := addSecretName(t, "addpty", "NOTES_KEY")
	ref := name + "-NOTES_KEY"
	typed := secretValue(t)
	in := startDaemon(t, map[string]any{"a": fakeEntry(t, "echo")})
	in.WaitFor("a ready", states("a", "ready"))
	exe, _ := os.Executable()
	// runOnPTY puts the instance's flags last; here they go before "--".
	bare := &instance{&testdaemon.Instance{T: t}}
	cmd, master, screen, done := runOnPTY(t, bare, "add", name, "--secret", "NOTES_KEY", "--env", "MCPTRAY_FAKE_SERVER=echo",
		"--env", "GORACE=atexit_sleep_ms=0", "--config", in.Config, "--data", in.Data, "--", exe, "-test.run=^$")
	prompt := fmt.Sprintf("value of ${keyring:%s} (not shown): ", ref)
	waitFor(t, "the masked prompt", func() bool { return strings.Contains(screen.String(), prompt) && echoOff(master) })
	master.Write([]byte(typed + "\n"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("add on a terminal: %v\n%s", err, screen)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("add on a terminal did not finish")
	}
	if want := "added " + name + " in " + in.Config + "; the running mcptray applies it"; !strings.Contains(screen.String(), want) {
		t.Errorf("the terminal does not say %q", want)
	}
	st := in.WaitFor(name+" ready", states(name, "ready"))
	_, pid := state(st, name)
	if envOf(pid, "NOTES_KEY") != typed {
		t.Fatal("the server's NOTES_KEY is not the value typed")
	}
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	_, statusOut, _ := in.Run("status", "--json")
	_, logs, _ := in.Run("logs", name)
	code, out, errs := in.Run("remove", name)
	if code != 0 || !strings.Contains(out, "${keyring:"+ref+"}") {
		t.Errorf("remove: exit %d %q %q", code, out, errs)
	}
	in.WaitFor(name+" gone", func(st statusJSON) bool { s, _ := state(st, name); return s == "" })
	stopInstance(t, in)
	for where, text := range map[string]string{"the terminal": screen.String(), "the server's argv": string(cmdline), "status": statusOut,
		"the server's log": logs, "remove's output": out + errs, "mcp.json": fileText(t, in.Config), "mcptray's log": in.Stderr.String(), "the data dir": dirText(t, in.Data)} {
		secretLeaks(t, typed, where, text)
	}
}
