package app

import (
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/mcptray/mcptray/mcp/exitwait"
)

// openBrowser opens url in the person's browser: $BROWSER when set (a
// command, or a list separated by ":", ";" on Windows; "%s" in it is
// replaced by the URL, else the URL is the last argument), else the
// desktop's opener. It returns once the opener has started. Only an
// http or https address is opened: the address may come from a remote
// server's metadata (a sign-in), and the desktop's opener would hand a
// file:, smb: or custom scheme to whatever program claims it.
func openBrowser(url string) error {
	if err := browsable(url); err != nil {
		return err
	}
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

// browsable refuses what openBrowser must not open. The error names the
// scheme only: the address may carry a sign-in's state.
func browsable(url string) error {
	u, err := neturl.Parse(url)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		scheme := "no scheme"
		if err == nil && u.Scheme != "" {
			scheme = "scheme " + u.Scheme
		}
		return fmt.Errorf("not opening an address with %s in the browser: only http and https addresses are opened", scheme)
	}
	return nil
}
