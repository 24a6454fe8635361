package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// x-mcptray.google: read as the file writes it; a value of the wrong
// type names the key and what it takes; a missing file is the defaults.
func TestGoogleSettingsFromConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if s, err := readGoogleSettings(path); err != nil || s != (googleSettings{}) {
		t.Errorf("no file: %+v %v", s, err)
	}
	for _, c := range []struct{ text, want string }{
		{`{"mcpServers": {}}`, ""},
		{`{"mcpServers": {}, "x-mcptray": {"google": {"calendarPoll": "30s", "calendarReminder": "5m", "gmailPoll": "1m"}}}`, ""},
		{`{"mcpServers": {}, "x-mcptray": {"google": {"calendarPoll": 30}}}`, `x-mcptray.google.calendarPoll in ` + path + ` must be a duration in quotes, like "2m", got 30`},
		{`{"mcpServers": {}, "x-mcptray": {"google": "2m"}}`, `x-mcptray.google in ` + path + ` must be an object`},
		{`{"mcpServers": {}, oops`, path + ": "},
	} {
		os.WriteFile(path, []byte(c.text), 0o600)
		s, err := readGoogleSettings(path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.text, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.text, err, c.want)
		case strings.Contains(c.text, "30s") && (s.CalendarPoll != "30s" || s.CalendarReminder != "5m"):
			t.Errorf("%s: %+v", c.text, s)
		}
	}
}

// serve gcal takes --account and no argument; gmail is not built in yet.
func TestServeGcalUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve", "gcal", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"serve", "gcal", "extra"}, 2, "serve gcal takes 0 argument(s), got 1"},
		{[]string{"serve", "ssh", "extra"}, 2, "serve ssh takes 0 argument(s), got 1"},
		{[]string{"serve", "gmail"}, 1, "the built-in gmail server is not in this version of mcptray yet"},
	} {
		code, _, errs := cli(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}
