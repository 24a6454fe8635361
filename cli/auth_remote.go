package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcptray/mcptray/app/control"
)

// `mcptray auth login|logout|list`: the sign-ins of remote (OAuth)
// servers. They go through the running instance, which keeps the tokens
// in the keyring and restarts the server; none is ever printed.

const authRemoteUsage = `usage:
  mcptray auth login NAME [--no-browser]   sign in to a remote server (in the browser)
  mcptray auth logout NAME                 revoke and forget its sign-in
  mcptray auth list [--json]               each remote server's issuer, scopes, expiry and state
`

func authLogin(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f := newFlags("auth login")
	noBrowser := f.Bool("no-browser", false, "print the sign-in address and wait, instead of opening a browser (SSH sessions)")
	cl, err := f.parseDial(args, 1)
	if err != nil {
		return err
	}
	name := f.Arg(0)
	var onURL func(string)
	if *noBrowser {
		onURL = func(u string) {
			fmt.Fprintf(stderr, "Open this address in a browser to sign in to %s (waiting for it). A browser on another machine ends on an address it cannot open (127.0.0.1): paste that address here.\n", oneLine(name))
			fmt.Fprintln(stdout, u)
			go pasteRedirects(ctx, cl, name, stdin, stderr)
		}
	} else {
		fmt.Fprintf(stderr, "Signing in to %s in the browser (waiting for it)…\n", oneLine(name))
	}
	info, err := cl.SignIn(ctx, name, onURL)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "signed in to %s at %s; it restarts now\n", oneLine(name), oneLine(info.Issuer))
	return nil
}

func authLogout(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("auth logout")
	cl, err := f.parseDial(args, 1)
	if err != nil {
		return err
	}
	if err := cl.SignOut(ctx, f.Arg(0)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "signed out of %s: its tokens are forgotten; it waits for a sign-in\n", oneLine(f.Arg(0)))
	return nil
}

func authRemoteList(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("auth list")
	asJSON := f.Bool("json", false, "print JSON")
	cl, err := f.parseDial(args, 0)
	if err != nil {
		return err
	}
	l, err := cl.AuthList(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, control.AuthList{Servers: l})
	}
	if len(l) == 0 {
		fmt.Fprintln(stdout, "no remote (http) servers in mcp.json")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATE\tISSUER\tSCOPES\tEXPIRES")
	for _, a := range l {
		exp := "-"
		if !a.Expiry.IsZero() {
			exp = a.Expiry.Local().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", oneLine(a.Server), a.State, orDash(oneLine(a.Issuer)), orDash(oneLine(strings.Join(a.Scopes, " "))), exp)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// pasteRedirects reads the addresses the person pastes (a browser on
// another machine ended on 127.0.0.1, which it cannot reach) and hands
// each to the sign-in under way, until one completes it or stdin ends.
func pasteRedirects(ctx context.Context, cl *control.Client, name string, stdin io.Reader, stderr io.Writer) {
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if err := cl.CompleteSignIn(ctx, name, line); err != nil {
			fmt.Fprintf(stderr, "that address did not complete the sign-in: %v\n", err)
			continue
		}
		return
	}
}
