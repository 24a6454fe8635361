package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"

	sshsrv "github.com/mcptray/mcptray/mcp/servers/ssh"
	"golang.org/x/term"
)

// cmdSSH is `mcptray ssh alias …`: the SSH server's aliases, kept in the
// keyring (entry ssh/aliases). No password is ever stored; `test` asks on
// the terminal when the alias needs one.
func cmdSSH(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "alias" {
		return usageError{"ssh takes: alias list|add|remove|test"}
	}
	args = args[1:]
	if len(args) == 0 {
		return usageError{"ssh alias takes list, add, remove or test"}
	}
	srv := SSHServer(slog.New(slog.DiscardHandler))
	defer srv.Close()
	switch sub, rest := args[0], args[1:]; sub {
	case "list":
		return sshAliasList(srv, rest, stdout)
	case "add":
		return sshAliasAdd(srv, rest, stdout)
	case "remove", "rm":
		f := newFlags("ssh alias remove")
		if err := parse(f, rest, 1); err != nil {
			return err
		}
		if err := srv.RemoveAlias(f.Arg(0)); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "alias %s removed\n", f.Arg(0))
		return nil
	case "test":
		return sshAliasTest(ctx, srv, rest, stdin, stdout, stderr)
	default:
		return usageError{fmt.Sprintf("ssh alias takes list, add, remove or test, got %q", sub)}
	}
}

func sshAliasList(srv *sshsrv.Server, args []string, stdout io.Writer) error {
	f := newFlags("ssh alias list")
	asJSON := f.Bool("json", false, "print JSON")
	if err := parse(f, args, 0); err != nil {
		return err
	}
	list, err := srv.ListAliases()
	if err != nil {
		return err
	}
	if *asJSON {
		if list == nil {
			list = []sshsrv.Alias{}
		}
		return printJSON(stdout, map[string]any{"aliases": list})
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "no SSH aliases (mcptray ssh alias add NAME --host H --user U adds one)")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDESTINATION\tAUTH\tSUDO\tJUMP\tNEW HOST KEYS")
	for _, a := range list {
		auth := a.Auth
		if a.KeyPath != "" {
			auth += " " + a.KeyPath
		}
		newKeys := "refused"
		if a.AcceptNewHostKey {
			newKeys = "accepted"
		}
		jump := a.Jump
		if jump == "" {
			jump = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.Name, a.Dest(), auth, a.Sudo, jump, newKeys)
	}
	return tw.Flush()
}

func sshAliasAdd(srv *sshsrv.Server, args []string, stdout io.Writer) error {
	f := newFlags("ssh alias add")
	var a sshsrv.Alias
	f.StringVar(&a.Host, "host", "", "`HOST` name or IP address")
	f.IntVar(&a.Port, "port", 22, "`PORT` SSH port")
	f.StringVar(&a.User, "user", "", "`USER` remote user")
	f.StringVar(&a.Auth, "auth", sshsrv.AuthKey, "`key|password|agent` login method")
	f.StringVar(&a.KeyPath, "key", "", "`FILE` private key (auth key)")
	f.StringVar(&a.Sudo, "sudo", sshsrv.SudoPrompt, "`nopasswd|prompt|none` how sudo gets its password")
	f.BoolVar(&a.AcceptNewHostKey, "accept-new-host-key", false, "add an unknown host's key to known_hosts")
	f.StringVar(&a.Jump, "jump", "", "`ALIAS` an alias to connect through")
	replace := f.Bool("replace", false, "replace an alias of that name")
	if err := parse(f, args, 1); err != nil {
		return err
	}
	a.Name = f.Arg(0)
	if a.Host == "" || a.User == "" {
		return usageError{"ssh alias add needs --host and --user"}
	}
	if a.KeyPath != "" && a.Auth != sshsrv.AuthKey {
		return usageError{"--key goes with --auth key"}
	}
	a, note, err := srv.AddAlias(a, *replace)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "alias %s: %s, auth %s, sudo %s\n", a.Name, a.Dest(), a.Auth, a.Sudo)
	if note != "" {
		fmt.Fprintf(stdout, "note: %s\n", note)
	}
	return nil
}

func sshAliasTest(ctx context.Context, srv *sshsrv.Server, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	f := newFlags("ssh alias test")
	asJSON := f.Bool("json", false, "print JSON")
	if err := parse(f, args, 1); err != nil {
		return err
	}
	res, err := srv.TestAlias(ctx, f.Arg(0), terminalAsk(stdin, stderr))
	if err != nil {
		return err
	}
	if *asJSON {
		if err := printJSON(stdout, res); err != nil {
			return err
		}
	} else {
		fmt.Fprint(stdout, SSHTestReport(res))
	}
	if !res.Connected {
		return errors.New(res.Error)
	}
	return nil
}

// SSHTestReport is a test's result as `mcptray ssh alias test` and the
// SSH tab show it.
func SSHTestReport(res sshsrv.TestResult) string {
	var b strings.Builder
	a := res.Alias
	if res.Connected {
		fmt.Fprintf(&b, "alias %s: connected to %s (%s)\n", oneLine(a.Name), oneLine(a.Dest()), oneLine(res.ServerVersion))
		fmt.Fprintf(&b, "  login:    %s\n", oneLine(res.Auth))
	} else {
		fmt.Fprintf(&b, "alias %s: could not connect to %s\n", oneLine(a.Name), oneLine(a.Dest()))
	}
	if res.HostKey.Fingerprint != "" {
		fmt.Fprintf(&b, "  host key: %s, %s %s\n", oneLine(res.HostKey.Status), oneLine(res.HostKey.Type), oneLine(res.HostKey.Fingerprint))
	}
	if res.Connected {
		fmt.Fprintf(&b, "  sudo:     %s: %s\n", oneLine(res.Sudo.Mode), oneLine(res.Sudo.Detail))
	}
	return b.String()
}

// terminalAsk reads a secret from the terminal without echo; without a
// terminal it refuses, naming the way that works.
func terminalAsk(stdin *os.File, stderr io.Writer) sshsrv.Ask {
	return func(ctx context.Context, message string) (string, error) {
		if !term.IsTerminal(int(stdin.Fd())) {
			return "", fmt.Errorf("%s\nno terminal to ask on: run this in a terminal, or use test_alias from an assistant (mcptray asks)", message)
		}
		fmt.Fprintf(stderr, "%s\n> ", escapeText(message))
		b, err := term.ReadPassword(int(stdin.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", fmt.Errorf("reading from the terminal: %w", err)
		}
		return string(b), nil
	}
}
