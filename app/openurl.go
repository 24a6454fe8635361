package app

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/mcptray/mcptray/mcp/exitwait"
)

// openBrowser opens url in the person's browser: $BROWSER when set (a
// command, or a list separated by ":", ";" on Windows; "%s" in it is
// replaced by the URL, else the URL is the last argument), else the
// desktop's opener. It returns once the opener has started.
func openBrowser(url string) error {
	if b := os.Getenv("BROWSER"); b != "" {
		var errs []error
		for cmdline := range strings.SplitSeq(b, string(os.PathListSeparator)) {
			args := strings.Fields(cmdline)
			if len(args) == 0 {
				continue
			}
			replaced := false
			for i, a := range args {
				if strings.Contains(a, "%s") {
					args[i], replaced = strings.ReplaceAll(a, "%s", url), true
				}
			}
			if !replaced {
				args = append(args, url)
			}
			if err := startDetached(args[0], args[1:]...); err != nil {
				errs = append(errs, err)
				continue
			}
			return nil
		}
		return fmt.Errorf("running $BROWSER: %w", errors.Join(errs...))
	}
	switch runtime.GOOS {
	case "darwin":
		return startDetached("open", url)
	case "windows":
		return startDetached("rundll32", "url.dll,FileProtocolHandler", url)
	}
	return startDetached("xdg-open", url)
}

// startDetached starts a command and reaps it in the background.
func startDetached(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go exitwait.Wait(cmd)
	return nil
}
