//go:build linux

package cli

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/help/*.txt from what the commands print")

// What a person sees: the whole text of a few helps, as golden files
// (testdata/help/NAME.txt; refreshed with go test -run TestHelpGolden
// -update ./cli/).
func TestHelpGolden(t *testing.T) {
	for name, args := range map[string][]string{
		"usage":        {"--help"},
		"inbox-answer": {"inbox", "answer", "--help"},
		"secret":       {"secret", "--help"},
		"secret-set":   {"secret", "set", "--help"},
		"serve-gmail":  {"serve", "gmail", "--help"},
		"ssh-alias":    {"ssh", "alias", "--help"},
		"auth-google":  {"auth", "google", "add", "--help"},
		"auth-login":   {"auth", "login", "--help"},
		"restart":      {"restart", "--help"},
		"setup":        {"setup", "--help"},
		"import":       {"import", "--help"},
		"add":          {"add", "--help"},
	} {
		code, out, errs := cli(t, args...)
		if code != 0 || errs != "" {
			t.Errorf("%v: exit %d, stderr %q; want 0 and nothing", args, code, errs)
		}
		testkit.Golden(t, filepath.Join("testdata", "help", name+".txt"), []byte(out), *update, "go test -run TestHelpGolden -update ./cli/")
	}
}

// mcptray --help, -h and help print the list of commands on stdout and
// exit 0.
func TestHelpListsEveryCommand(t *testing.T) {
	var first string
	for _, args := range [][]string{{"--help"}, {"-h"}, {"-help"}, {"help"}} {
		code, out, errs := cli(t, args...)
		if code != 0 || errs != "" || !strings.HasPrefix(out, "mcptray supervises local MCP servers") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
		if first == "" {
			first = out
		} else if out != first {
			t.Errorf("%v printed another text than --help", args)
		}
	}
	for _, c := range commands {
		if c.listed && !strings.Contains(first, "\n  "+strings.TrimSpace(c.path+" "+c.args)) {
			t.Errorf("--help does not list %q", c.path)
		}
	}
}

// For every command: `help CMD`, `CMD --help` and `CMD -h` print the same
// help (usage line, what it does, its flags or subcommands, an example) on
// stdout and exit 0, and run nothing.
func TestHelpOfEveryCommand(t *testing.T) {
	data := t.TempDir() // a command that ran would leave something here
	for _, c := range commands {
		words := strings.Fields(c.path)
		code, viaHelp, errs := cli(t, append([]string{"help"}, words...)...)
		if code != 0 || errs != "" {
			t.Errorf("help %s: exit %d, stderr %q", c.path, code, errs)
			continue
		}
		if want := "usage: mcptray " + c.path; !strings.HasPrefix(viaHelp, want) {
			t.Errorf("help %s starts %q, want %q", c.path, firstLine(viaHelp), want)
		}
		if !strings.Contains(viaHelp, "\nexample:\n") && !strings.Contains(viaHelp, "\ncommands:\n") {
			t.Errorf("help %s has neither an example nor subcommands:\n%s", c.path, viaHelp)
		}
		for _, flag := range []string{"--help", "-h"} {
			code, out, errs := cli(t, append(words, flag, "--data", data)...)
			if code != 0 || errs != "" || out != viaHelp {
				t.Errorf("%s %s: exit %d, stderr %q, stdout:\n%s\nwant what help %s prints:\n%s", c.path, flag, code, errs, out, c.path, viaHelp)
			}
		}
	}
	if entries, _ := os.ReadDir(data); len(entries) > 0 {
		t.Errorf("a help ran its command: the data dir has %v", entries)
	}
	// A command's flags come from its FlagSet: every flag it parses is
	// in its help, the common ones last.
	_, out, _ := cli(t, "events", "--help")
	if !regexp.MustCompile(`(?s)--all .*--limit N +how many events \(default 100\).*--since ID.*--config FILE.*--data DIR`).MatchString(out) {
		t.Errorf("events --help flags:\n%s", out)
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// A usage error is one line saying what is wrong and one pointing to the
// help of the command it names, on stderr, exit 2; stdout stays empty.
func TestUsageErrorIsOneLineAndAPointer(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, "mcptray: unknown command \"frobnicate\"\nrun 'mcptray --help' for usage\n"},
		{[]string{"toggle", "a"}, "mcptray: toggle takes 2 argument(s), got 1\nrun 'mcptray toggle --help' for usage\n"},
		{[]string{"status", "--bogus"}, "mcptray: flag provided but not defined: -bogus\nrun 'mcptray status --help' for usage\n"},
		{[]string{"inbox", "answer"}, "mcptray: inbox answer takes 1 argument(s), got 0\nrun 'mcptray inbox answer --help' for usage\n"},
		{[]string{"inbox", "nope"}, "mcptray: inbox has no subcommand \"nope\" (answer, watch)\nrun 'mcptray inbox --help' for usage\n"},
		{[]string{"ssh"}, "mcptray: ssh takes: alias list|add|remove|test\nrun 'mcptray ssh --help' for usage\n"},
		{[]string{"ssh", "alias", "frob"}, "mcptray: ssh alias takes list, add, remove or test, got \"frob\"\nrun 'mcptray ssh alias --help' for usage\n"},
		{[]string{"ssh", "alias", "add", "x"}, "mcptray: ssh alias add needs --host and --user\nrun 'mcptray ssh alias add --help' for usage\n"},
		{[]string{"serve"}, "mcptray: serve takes one of ssh, gcal, gmail\nrun 'mcptray serve --help' for usage\n"},
		{[]string{"serve", "ftp"}, "mcptray: no built-in server \"ftp\" (ssh, gcal, gmail)\nrun 'mcptray serve --help' for usage\n"},
		{[]string{"secret"}, "mcptray: secret takes set, list or remove\nrun 'mcptray secret --help' for usage\n"},
		{[]string{"version", "now"}, "mcptray: version takes 0 argument(s), got 1\nrun 'mcptray version --help' for usage\n"},
		{[]string{"help", "nosuch"}, "mcptray: no command \"nosuch\"\nrun 'mcptray --help' for usage\n"},
		{[]string{"help", "inbox", "nope"}, "mcptray: no command \"inbox nope\"\nrun 'mcptray inbox --help' for usage\n"},
	} {
		code, out, errs := cli(t, c.args...)
		if code != 2 || out != "" || errs != c.want {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and:\n%s", c.args, code, out, errs, c.want)
		}
	}
}

// The value of a secret is never taken from argv, and a usage error does
// not repeat what was typed in its place.
func TestSecretSetRefusesAValueInArgv(t *testing.T) {
	const value = "hunter2-in-argv"
	for _, args := range [][]string{
		{"secret", "set", "tok", value},
		{"secret", "set", value + " x"},
	} {
		code, out, errs := cli(t, args...)
		if code != 2 || strings.Contains(out+errs, value) {
			t.Errorf("%v: exit %d, output %q %q; want 2 and no value", args, code, out, errs)
		}
	}
	_, _, errs := cli(t, "secret", "set", "tok", value)
	if want := "mcptray: secret set takes only NAME: the value is read from the terminal or stdin, never from the command line (where ps and the shell history show it)\nrun 'mcptray secret set --help' for usage\n"; errs != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errs, want)
	}
}

func TestVersion(t *testing.T) {
	code, out, errs := cli(t, "--version")
	if code != 0 || errs != "" {
		t.Fatalf("--version: exit %d, stderr %q", code, errs)
	}
	if _, again, _ := cli(t, "version"); again != out {
		t.Errorf("version printed %q, --version %q", again, out)
	}
	re := regexp.MustCompile(`^mcptray \S+\ncommit  .+\ngo      ` + regexp.QuoteMeta(runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH) + `\n$`)
	if !re.MatchString(out) {
		t.Errorf("--version printed:\n%s", out)
	}

	// What the Makefile stamps stands in for missing VCS information
	// (go test binaries carry none).
	defer func(v, c, m string) { stampedVersion, stampedCommit, stampedModified = v, c, m }(stampedVersion, stampedCommit, stampedModified)
	stampedVersion, stampedCommit, stampedModified = "v0.3.0-2-gd3c5d79", "d3c5d79abcdef0123456789abcdef0123456789a", "true"
	b := readBuildInfo()
	if b.Commit != stampedCommit || b.Version != stampedVersion {
		t.Fatalf("stamped values not used: %+v", b)
	}
	b.Time = ""
	b.Go = "go1.26.8 linux/amd64"
	want := "mcptray v0.3.0-2-gd3c5d79\ncommit  d3c5d79abcdef0123456789abcdef0123456789a (with uncommitted changes)\ngo      go1.26.8 linux/amd64\n"
	if got := b.String(); got != want {
		t.Errorf("printed:\n%s\nwant:\n%s", got, want)
	}
	unknown := buildInfo{Version: "(devel)", Go: "go1.26.8 linux/amd64"}.String()
	if want := "mcptray (devel)\ncommit  unknown (built without VCS information; `make build` stamps it)\ngo      go1.26.8 linux/amd64\n"; unknown != want {
		t.Errorf("without a commit:\n%s\nwant:\n%s", unknown, want)
	}
}
