package googleserve

import (
	"bytes"
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
