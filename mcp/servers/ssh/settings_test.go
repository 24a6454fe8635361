//go:build unix

package ssh

import (
	"strings"
	"testing"
	"time"
)

func TestParseSettings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		raw, top string // x-mcptray.ssh and x-mcptray.localRoots
		roots    string
		ttl      time.Duration
		err      string
	}{
		{"", "", "/h", DefaultSecretTTL, ""},
		{`{}`, "", "/h", DefaultSecretTTL, ""},
		{`{"localRoots": ["~", "~/a", "/b/../c"], "secretTTL": 30}`, "", "/h,/h/a,/c", 30 * time.Second, ""},
		{`{"secretTTL": "0s"}`, "", "/h", 0, ""},
		{`{"secretTTL": "1h", "other": true}`, "", "/h", time.Hour, ""},
		{`{"localRoots": ["rel"]}`, "", "", 0, `x-mcptray.ssh.localRoots: "rel" must be an absolute folder or start with ~`},
		{`{"localRoots": "~"}`, "", "", 0, "x-mcptray.ssh.localRoots must be a list of folders"},
		{`{"secretTTL": "-1m"}`, "", "", 0, "secretTTL must be between 0 and 24h0m0s, got -1m0s"},
		{`{"secretTTL": "48h"}`, "", "", 0, "must be between 0 and 24h0m0s"},
		{`{"secretTTL": true}`, "", "", 0, `secretTTL must be a duration like "5m" or a number of seconds`},
		{`[1]`, "", "", 0, "x-mcptray.ssh must be an object"},
		// The top-level x-mcptray.localRoots, shared with gmail, wins.
		{"", `["~/shared"]`, "/h/shared", DefaultSecretTTL, ""},
		{`{"localRoots": ["/old"], "secretTTL": 30}`, `["/new", "~"]`, "/new,/h", 30 * time.Second, ""},
		{`{"localRoots": ["/old"]}`, `null`, "/old", DefaultSecretTTL, ""},
		{`{"localRoots": ["/old"]}`, `[]`, "", DefaultSecretTTL, ""},
		{"", `"~"`, "", 0, "x-mcptray.localRoots must be a list of folders"},
		{"", `["rel"]`, "", 0, `x-mcptray.localRoots: "rel" must be an absolute folder or start with ~`},
	} {
		s, err := ParseSettings([]byte(c.raw), []byte(c.top), "/h")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseSettings(%s, %s) error %v, want %q", c.raw, c.top, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(s.LocalRoots, ",") != c.roots || s.SecretTTL != c.ttl {
			t.Errorf("ParseSettings(%s, %s) = %+v, %v", c.raw, c.top, s, err)
		}
	}
}

// secretTTL 0: nothing is kept, every connection asks.
func TestSecretTTLZeroAsksEveryTime(t *testing.T) {
	t.Parallel()
	const pw = "pw-ttl-zero"
	ts := startServer(t, withPassword(pw))
	e := newEnv(t, withOptions(func(o *Options) {
		o.Settings = func() (Settings, error) { return Settings{LocalRoots: []string{"/"}, SecretTTL: 0}, nil }
	}))
	e.trust(ts)
	must(t, e.store.Save([]Alias{{Name: "p", Host: "127.0.0.1", Port: ts.port, User: "u", Auth: AuthPassword, Sudo: SudoNone}}))
	var out execOut
	for range 2 {
		e.asks.push(answer{value: pw})
		e.ok("exec", map[string]any{"alias": "p", "command": "true"}, &out)
		e.srv.pool.drop("p")
	}
	if n := len(e.asks.asked()); n != 2 {
		t.Errorf("asked %d times, want 2", n)
	}
}
