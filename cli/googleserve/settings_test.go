package googleserve

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// x-mcptray.google and x-mcptray.localRoots: read as the file writes
// them; a value of the wrong type names the key and what it takes; a
// missing file is the defaults.
func TestGoogleSettingsFromConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if s, err := readSettings(path, "/home/ada"); err != nil || !reflect.DeepEqual(s, settings{}) {
		t.Errorf("no file: %+v %v", s, err)
	}
	for _, c := range []struct {
		text string
		want settings
		err  string
	}{
		{text: `{"mcpServers": {}}`},
		{text: `{"mcpServers": {}, "x-mcptray": {"google": {"calendarPoll": "30s", "calendarReminder": "5m", "gmailPoll": "1m", "gmailSend": "drafts-only", "downloadDir": "~/Mail"}}}`,
			want: settings{CalendarPoll: "30s", CalendarReminder: "5m", GmailPoll: "1m", GmailSend: "drafts-only", DownloadDir: "/home/ada/Mail"}},
		{text: `{"mcpServers": {}, "x-mcptray": {"localRoots": ["~/work", "/srv/x/../data"]}}`,
			want: settings{LocalRoots: []string{"/home/ada/work", "/srv/data"}}},
		// The SSH server's older key counts; the top-level one wins.
		{text: `{"mcpServers": {}, "x-mcptray": {"ssh": {"localRoots": ["~/old"]}}}`,
			want: settings{LocalRoots: []string{"/home/ada/old"}}},
		{text: `{"mcpServers": {}, "x-mcptray": {"ssh": {"localRoots": ["~/old"]}, "localRoots": ["~/new"]}}`,
			want: settings{LocalRoots: []string{"/home/ada/new"}}},
		{text: `{"mcpServers": {}, "x-mcptray": {"localRoots": []}}`, want: settings{LocalRoots: []string{}}},
		{text: `{"mcpServers": {}, "x-mcptray": {"google": {"calendarPoll": 30}}}`,
			err: `x-mcptray.google.calendarPoll in ` + path + ` must be a duration in quotes, like "2m", got 30`},
		{text: `{"mcpServers": {}, "x-mcptray": {"google": {"gmailPoll": 60}}}`,
			err: `x-mcptray.google.gmailPoll in ` + path + ` must be a duration in quotes, like "60s", got 60`},
		{text: `{"mcpServers": {}, "x-mcptray": {"google": {"gmailSend": true}}}`,
			err: `x-mcptray.google.gmailSend in ` + path + ` must be "confirm", "allow" or "drafts-only", got true`},
		{text: `{"mcpServers": {}, "x-mcptray": {"google": {"downloadDir": ["~"]}}}`,
			err: `x-mcptray.google.downloadDir in ` + path + ` must be a folder in quotes`},
		{text: `{"mcpServers": {}, "x-mcptray": {"google": {"downloadDir": "Downloads"}}}`,
			err: `x-mcptray.google.downloadDir in ` + path + `: "Downloads" must be an absolute folder or start with ~`},
		{text: `{"mcpServers": {}, "x-mcptray": {"localRoots": "~"}}`,
			err: `x-mcptray.localRoots in ` + path + ` must be a list of folders, like ["~/work"], got "~"`},
		{text: `{"mcpServers": {}, "x-mcptray": {"localRoots": ["work"]}}`,
			err: `x-mcptray.localRoots in ` + path + `: "work" must be an absolute folder or start with ~`},
		{text: `{"mcpServers": {}, "x-mcptray": {"ssh": {"localRoots": "~"}}}`,
			err: `x-mcptray.ssh.localRoots in ` + path + ` must be a list of folders`},
		{text: `{"mcpServers": {}, "x-mcptray": {"google": "2m"}}`, err: `x-mcptray.google in ` + path + ` must be an object`},
		{text: `{"mcpServers": {}, oops`, err: path + ": "},
	} {
		os.WriteFile(path, []byte(c.text), 0o600)
		s, err := readSettings(path, "/home/ada")
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.text, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want %q", c.text, err, c.err)
		case c.err == "" && !reflect.DeepEqual(s, c.want):
			t.Errorf("%s: %+v, want %+v", c.text, s, c.want)
		}
	}
}
