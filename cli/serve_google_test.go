//go:build linux

package cli

import (
	"strings"
	"testing"
)

// serve gcal and serve gmail take --account and no argument.
func TestServeGcalUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve", "gcal", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"serve", "gcal", "extra"}, 2, "serve gcal takes 0 argument(s), got 1"},
		{[]string{"serve", "ssh", "extra"}, 2, "serve ssh takes 0 argument(s), got 1"},
		{[]string{"serve", "gmail", "extra"}, 2, "serve gmail takes 0 argument(s), got 1"},
		{[]string{"serve", "gmail", "--bogus"}, 2, "flag provided but not defined: -bogus"},
	} {
		code, _, errs := cli(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}
