package googleserve

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mcptray-google's own command line: help, and a one-line reason with
// exit 2 for what it does not take (mcptray checks `serve gcal|gmail`'s
// flags before it execs, so these are for a person running it by hand).
func TestMainUsage(t *testing.T) {
	for _, c := range []struct {
		args      []string
		code      int
		out, errs string
	}{
		{[]string{"--help"}, 0, "usage: mcptray-google serve gcal|gmail", ""},
		{nil, 2, "", "mcptray-google: expected serve gcal|gmail"},
		{[]string{"daemon"}, 2, "", "mcptray-google: expected serve gcal|gmail"},
		{[]string{"serve"}, 2, "", "mcptray-google: serve takes gcal or gmail"},
		{[]string{"serve", "calendar"}, 2, "", `mcptray-google: no Google server "calendar" (gcal, gmail)`},
		{[]string{"serve", "gcal", "--bogus"}, 2, "", "mcptray-google: flag provided but not defined: -bogus"},
		{[]string{"serve", "gcal", "extra"}, 2, "", `mcptray-google: serve gcal takes no argument, got "extra"`},
		{[]string{"serve", "gcal", "--help"}, 0, "usage: mcptray-google", ""},
	} {
		var out, errs bytes.Buffer
		code := Main(c.args, &out, &errs)
		if code != c.code || !strings.Contains(out.String(), c.out) || !strings.Contains(errs.String(), c.errs) || (c.errs != "" && strings.Count(errs.String(), "\n") != 1 && code != 2) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, code, out.String(), errs.String(), c.code, c.out, c.errs)
		}
	}
}

// serve gmail runs the Gmail server: its settings are checked at once,
// a bad one ending it with exit 1 and a reason that names the key.
func TestServeGmailChecksItsSettings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	for text, want := range map[string]string{
		`{"mcpServers": {}, "x-mcptray": {"google": {"gmailSend": "sometimes"}}}`: `x-mcptray.google.gmailSend "sometimes" must be "confirm"`,
		`{"mcpServers": {}, "x-mcptray": {"google": {"gmailPoll": "10ms"}}}`:      `x-mcptray.google.gmailPoll "10ms" is too short`,
		`{"mcpServers": {}, "x-mcptray": {"localRoots": "~"}}`:                    `x-mcptray.localRoots in ` + path + ` must be a list of folders`,
	} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errs bytes.Buffer
		code := Main([]string{"serve", "gmail", "--config", path, "--data", dir}, &out, &errs)
		if code != 1 || !strings.Contains(errs.String(), want) || strings.Count(errs.String(), "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", text, code, errs.String(), want)
		}
	}
}
