package googleserve

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
	if s, err := readSettings(path); err != nil || s != (settings{}) {
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
		s, err := readSettings(path)
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
