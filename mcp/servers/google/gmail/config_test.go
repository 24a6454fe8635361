package gmail

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// noAccountsYet is an AccountSource with none.
type noAccountsYet struct{}

func (noAccountsYet) Emails() ([]string, error) { return nil, nil }
func (noAccountsYet) Client(context.Context, string) (*http.Client, error) {
	return nil, nil
}

func TestNewFromConfig(t *testing.T) {
	s, err := NewFromConfig(Config{Accounts: noAccountsYet{}, Home: "/home/ada"})
	if err != nil || s.opts.Poll != DefaultPoll || s.opts.Send != SendConfirm || s.opts.DownloadDir != "/home/ada/Downloads/mcptray" ||
		strings.Join(s.opts.LocalRoots, ",") != "/home/ada" {
		t.Fatalf("defaults: %v %+v", err, s.opts)
	}
	s, err = NewFromConfig(Config{Accounts: noAccountsYet{}, Home: "/home/ada", GmailPoll: "5m", GmailSend: "drafts-only",
		DownloadDir: "/tmp/dl", LocalRoots: []string{"/srv/a", "/srv/b"}, Account: "bob@example.com"})
	if err != nil || s.opts.Poll != 5*time.Minute || s.opts.Send != SendDraftsOnly || s.opts.DownloadDir != "/tmp/dl" ||
		strings.Join(s.opts.LocalRoots, ",") != "/srv/a,/srv/b" || s.opts.Account != "bob@example.com" {
		t.Fatalf("set: %v %+v", err, s.opts)
	}
	if s, _ := NewFromConfig(Config{Accounts: noAccountsYet{}, Home: "/h", LocalRoots: []string{}}); len(s.opts.LocalRoots) != 0 {
		t.Errorf("an empty localRoots allows %v", s.opts.LocalRoots)
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{GmailPoll: "5x"}, `x-mcptray.google.gmailPoll "5x" is not a duration`},
		{Config{GmailPoll: "-1m"}, `gmailPoll "-1m" is not a duration`},
		{Config{GmailPoll: "500ms"}, `x-mcptray.google.gmailPoll "500ms" is too short: at least "1s"`},
		{Config{GmailSend: "yes"}, `x-mcptray.google.gmailSend "yes" must be "confirm"`},
		{Config{DownloadDir: "dl"}, `x-mcptray.google.downloadDir "dl" must be an absolute folder`},
		{Config{LocalRoots: []string{"rel"}}, `x-mcptray.localRoots: "rel" must be an absolute folder`},
	} {
		c.cfg.Accounts = noAccountsYet{}
		if _, err := NewFromConfig(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	if _, err := NewFromConfig(Config{}); err == nil {
		t.Error("no accounts: no error")
	}
}
