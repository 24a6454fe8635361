package downstream

import (
	"errors"
	"regexp"
	"strings"

	"github.com/mcptray/mcptray/mcp/wire"
)

// A failed start keeps the last stderrTailLines non-empty stderr lines
// (each cut at stderrTailLineBytes), redacted, and names the most telling
// of them in its error: Node prints its version after the error that
// matters, Python its traceback before it.
const (
	stderrTailLines     = 20
	stderrTailLineBytes = 500
	// startErrorLineBytes cuts the line quoted in the one-line error.
	startErrorLineBytes = 300
)

// errorLike are the marks of a line that says what went wrong, as
// runtimes, shells and package managers print them.
var errorLike = []string{
	"Error:", "error:", "ERROR", "panic:", "fatal:", "FATAL", "Exception", "ERR!",
	"ModuleNotFoundError", "command not found", "No such file or directory",
	"Permission denied", "Cannot find module", "not found",
}

// weakErrorLike are marks of the start of a report rather than its words:
// taken only when no line says more.
var weakErrorLike = []string{"Traceback (most recent call last)", "node:internal/"}

// versionBanner is a line that only names a version ("Node.js v20.20.2",
// "v1.2.3", "Python 3.11.7").
var versionBanner = regexp.MustCompile(`^(?:[A-Za-z][\w.\- ]{0,30} )?v?\d+(?:\.\d+)+\S*$`)

// tellingLine is the line of tail that best says why a start failed: the
// first that looks like an error, else the first with a weaker mark, else
// the last that is not a bare version banner, else the last.
func tellingLine(tail []string) string {
	for _, marks := range [][]string{errorLike, weakErrorLike} {
		for _, l := range tail {
			for _, m := range marks {
				if strings.Contains(l, m) {
					return l
				}
			}
		}
	}
	for i := len(tail) - 1; i >= 0; i-- {
		if !versionBanner.MatchString(strings.TrimSpace(tail[i])) {
			return tail[i]
		}
	}
	if len(tail) > 0 {
		return tail[len(tail)-1]
	}
	return ""
}

// cutLine shortens a stderr line to n bytes, on a character boundary.
func cutLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return wire.LogText([]byte(s[:n])) + "…"
}

// StderrTail is the last stderr lines (redacted, oldest first) of the
// server whose start failed with err, or nil.
func StderrTail(err error) []string {
	var se *startupError
	if errors.As(err, &se) {
		return se.tail
	}
	return nil
}
