package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcptray/mcptray/app/googlekeys"
	"github.com/mcptray/mcptray/mcp/servers/google"
)

const authUsage = `usage:
  mcptray auth google client FILE        import your "Desktop app" OAuth client (JSON from the Google Cloud console)
  mcptray auth google add [--no-browser] [--scopes calendar,gmail]
                                         sign an account in (in the browser)
  mcptray auth google list [--json]      the accounts, their services and status
  mcptray auth google remove EMAIL       revoke an account's sign-in and forget it
`

// keyringStore is the Google accounts' Store on the OS keyring, the one
// the tray's Google tab uses too.
type keyringStore = googlekeys.Store

// googleAccounts are the Google accounts of data dir data: metadata in
// DATA/google-accounts.json, tokens in the keyring.
func googleAccounts(data string, logger *slog.Logger) *google.Accounts {
	return googlekeys.Accounts(data, logger)
}

// cmdAuth is `mcptray auth login|logout|list` (remote servers;
// auth_remote.go) and `mcptray auth google …`.
func cmdAuth(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "login":
			return authLogin(ctx, args[1:], stdin, stdout, stderr)
		case "logout":
			return authLogout(ctx, args[1:], stdout)
		case "list":
			return authRemoteList(ctx, args[1:], stdout)
		}
	}
	if len(args) == 0 || args[0] != "google" {
		return usageError{"auth takes: login|logout|list, or google client|add|list|remove\n" + authRemoteUsage + authUsage}
	}
	args = args[1:]
	if len(args) == 0 {
		return usageError{"auth google takes client, add, list or remove\n" + authUsage}
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "client":
		return authClient(rest, stdout)
	case "add":
		return authAdd(ctx, rest, stdout, stderr)
	case "list":
		return authList(rest, stdout)
	case "remove", "rm":
		return authRemove(ctx, rest, stdout, stderr)
	default:
		return usageError{fmt.Sprintf("auth google takes client, add, list or remove, got %q\n%s", sub, authUsage)}
	}
}

func authClient(args []string, stdout io.Writer) error {
	f := newFlags("auth google client")
	if err := parse(f, args, 1); err != nil {
		return err
	}
	b, err := os.ReadFile(f.Arg(0))
	if err != nil {
		return fmt.Errorf("reading the client file: %w", err)
	}
	c, err := google.ParseClientFile(b)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Arg(0), err)
	}
	if err := google.SetClient(keyringStore{}, c); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported the OAuth client %s (id and secret in the keyring, entry %s)\nnext: mcptray auth google add\n", c.ID, google.ClientEntry)
	return nil
}

func authAdd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newFlags("auth google add")
	noBrowser := f.Bool("no-browser", false, "print the sign-in address instead of opening a browser")
	scopes := f.String("scopes", "calendar,gmail", "the `LIST` of services to sign in for: calendar, gmail or both")
	if err := parse(f, args, 0); err != nil {
		return err
	}
	services, err := google.ParseServices(*scopes)
	if err != nil {
		return usageError{"--scopes: " + err.Error()}
	}
	_, data, err := f.paths()
	if err != nil {
		return err
	}
	added, err := googleAccounts(data, nil).Add(ctx, google.AddOptions{Services: services, NoBrowser: *noBrowser, Out: stderr})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "added %s (%s)\n", added.Account.Email, strings.Join(added.Account.Scopes, ", "))
	for _, m := range added.Messages() {
		fmt.Fprintf(stderr, "mcptray: warning: %s\n", escapeText(m))
	}
	return nil
}

// authAccountJSON is one account in `auth google list --json`: never a
// token.
type authAccountJSON struct {
	Email  string    `json:"email"`
	Scopes []string  `json:"scopes"`
	Status string    `json:"status"`
	Reason string    `json:"reason,omitempty"`
	Added  time.Time `json:"added"`
}

func authList(args []string, stdout io.Writer) error {
	f := newFlags("auth google list")
	asJSON := f.Bool("json", false, "print JSON")
	if err := parse(f, args, 0); err != nil {
		return err
	}
	_, data, err := f.paths()
	if err != nil {
		return err
	}
	list, err := googleAccounts(data, nil).List()
	if err != nil {
		return err
	}
	if *asJSON {
		out := []authAccountJSON{}
		for _, a := range list {
			scopes := a.Scopes
			if scopes == nil {
				scopes = []string{}
			}
			out = append(out, authAccountJSON{a.Email, scopes, a.Status, a.Reason, a.Added})
		}
		return printJSON(stdout, map[string]any{"accounts": out})
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "no Google accounts (mcptray auth google add signs one in)")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EMAIL\tSCOPES\tSTATUS\tADDED")
	for _, a := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", escapeText(a.Email), strings.Join(a.Scopes, ", "), a.Status, a.Added.Local().Format("2006-01-02 15:04"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, a := range list {
		if a.Status == google.StatusNeedsSignIn {
			fmt.Fprintf(stdout, "\n%s needs to sign in again (mcptray auth google add): %s\n", escapeText(a.Email), escapeText(a.Reason))
		}
	}
	return nil
}

func authRemove(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newFlags("auth google remove")
	if err := parse(f, args, 1); err != nil {
		return err
	}
	_, data, err := f.paths()
	if err != nil {
		return err
	}
	res, err := googleAccounts(data, nil).Remove(ctx, f.Arg(0))
	if err != nil {
		return err
	}
	if res.RevokeError != nil {
		fmt.Fprintf(stdout, "removed %s\n", res.Email)
		fmt.Fprintf(stderr, "mcptray: warning: its sign-in could not be revoked at Google (%s), but it is deleted here; "+
			"to revoke it yourself, remove the app at https://myaccount.google.com/connections\n", escapeText(res.RevokeError.Error()))
		return nil
	}
	fmt.Fprintf(stdout, "removed %s (its sign-in was revoked at Google)\n", res.Email)
	return nil
}
