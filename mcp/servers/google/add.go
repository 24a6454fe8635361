package google

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// AddOptions are how Add signs in.
type AddOptions struct {
	// Services to sign in for; DefaultServices when empty.
	Services []string
	// NoBrowser prints the URL instead of opening a browser.
	NoBrowser bool
	// Out gets the lines for the person (the URL, what to do).
	Out io.Writer
}

// Add signs an account in: it opens Google's consent page in a browser
// (or prints its address), waits for the loopback redirect
// (Options.SignInTimeout at most), and keeps the account. The result says
// which services were not granted.
func (a *Accounts) Add(ctx context.Context, o AddOptions) (*Added, error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	s, err := a.StartSignIn(o.Services, "")
	if err != nil {
		return nil, err
	}
	defer s.Close()
	wait := a.opts.SignInTimeout.String()
	if d := a.opts.SignInTimeout; d >= time.Minute && d%time.Minute == 0 {
		wait = fmt.Sprintf("%d minutes", d/time.Minute)
	}
	switch {
	case o.NoBrowser:
		fmt.Fprintf(o.Out, "Open this address in a browser on this computer to sign in to Google (waiting %s at most):\n\n  %s\n\n", wait, s.URL)
	default:
		if err := a.opts.OpenBrowser(s.URL); err != nil {
			fmt.Fprintf(o.Out, "Could not open a browser (%v).\nOpen this address in a browser on this computer to sign in to Google (waiting %s at most):\n\n  %s\n\n", err, wait, s.URL)
		} else {
			fmt.Fprintf(o.Out, "Your browser shows Google's sign-in page; finish there (waiting %s at most).\nIf it did not open, visit:\n\n  %s\n\n", wait, s.URL)
		}
	}
	return s.Wait(ctx)
}

// OpenBrowser opens url: with $BROWSER when set (its first command; %s
// stands for the URL, else the URL is its last argument), else xdg-open
// (open on macOS). It does not wait for the browser to exit.
func OpenBrowser(url string) error {
	var argv []string
	if b := os.Getenv("BROWSER"); b != "" {
		first, _, _ := strings.Cut(b, string(os.PathListSeparator))
		argv = strings.Fields(first)
		if len(argv) == 0 {
			return errors.New("BROWSER names no command")
		}
		subst := false
		for i := range argv {
			if strings.Contains(argv[i], "%s") {
				argv[i], subst = strings.ReplaceAll(argv[i], "%s", url), true
			}
		}
		if !subst {
			argv = append(argv, url)
		}
	} else {
		switch runtime.GOOS {
		case "darwin":
			argv = []string{"open", url}
		case "windows":
			argv = []string{"rundll32", "url.dll,FileProtocolHandler", url}
		default:
			argv = []string{"xdg-open", url}
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", argv[0], err)
	}
	go cmd.Wait()
	return nil
}
