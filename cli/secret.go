package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/keyring"
)

// cmdSecret is `mcptray secret set|list|remove`: the values of
// ${keyring:NAME}. With a running instance it goes through it (setting a
// secret restarts the servers using it, an entry refused for want of it
// among them); without one, straight to the keyring.
func cmdSecret(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"secret takes set, list or remove"}
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "set":
		return secretSet(ctx, rest, stdin, stdout, stderr)
	case "list", "ls":
		return secretList(ctx, rest, stdout)
	case "remove", "rm":
		return secretRemove(ctx, rest, stdout)
	default:
		return usageError{fmt.Sprintf("secret takes set, list or remove, got %q", sub)}
	}
}

func secretSet(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	f := newFlags("secret set")
	pos, err := parseAny(f, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return usageError{"secret set takes the secret's NAME"}
	case len(pos) > 1:
		// Never repeat the extra words: they may be the value.
		return usageError{"secret set takes only NAME: the value is read from the terminal or stdin, never from the command line (where ps and the shell history show it)"}
	}
	name := pos[0]
	if err := config.CheckSecretName(name); err != nil {
		return usageError{err.Error()}
	}
	value, err := readSecret(stdin, stderr, name)
	if err != nil {
		return err
	}
	cl, err := f.dial()
	if errors.Is(err, control.ErrNotRunning) {
		if err := keyring.SetSecret(name, value); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "stored ${keyring:%s} (mcptray is not running: servers get it when they start)\n", name)
		return nil
	}
	if err != nil {
		return err
	}
	if err := cl.SetSecret(ctx, name, value); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "stored ${keyring:%s}; the servers using it restart with it\n", name)
	return nil
}

// readSecret reads a secret's value: on a terminal without echo, else
// all of stdin (one trailing newline dropped, so `printf '%s\n' "$X" |`
// and `< file` both work).
func readSecret(stdin *os.File, stderr io.Writer, name string) (string, error) {
	var b []byte
	if term.IsTerminal(int(stdin.Fd())) {
		fmt.Fprintf(stderr, "value of ${keyring:%s} (not shown): ", name)
		var err error
		b, err = term.ReadPassword(int(stdin.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", fmt.Errorf("reading from the terminal: %w", err)
		}
	} else {
		var err error
		b, err = io.ReadAll(io.LimitReader(stdin, config.MaxSecretValue+3))
		if err != nil {
			return "", fmt.Errorf("reading the value from stdin: %w", err)
		}
		if len(b) > config.MaxSecretValue+2 {
			return "", fmt.Errorf("stdin holds more than %d bytes; a secret holds at most that", config.MaxSecretValue)
		}
		b = bytes.TrimSuffix(b, []byte("\n"))
		b = bytes.TrimSuffix(b, []byte("\r"))
	}
	if len(b) == 0 {
		return "", errors.New("no value given: nothing stored (type it at the prompt, or pipe it on stdin)")
	}
	return string(b), nil
}

func secretList(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("secret list")
	asJSON := f.Bool("json", false, "print JSON: {\"names\": [...]}")
	if err := parse(f, args, 0); err != nil {
		return err
	}
	var names []string
	cl, err := f.dial()
	switch {
	case errors.Is(err, control.ErrNotRunning):
		names, err = keyring.SecretNames()
	case err == nil:
		names, err = cl.SecretNames(ctx)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		if names == nil {
			names = []string{}
		}
		return printJSON(stdout, control.SecretList{Names: names})
	}
	if len(names) == 0 {
		fmt.Fprintln(stdout, "no secrets (mcptray secret set NAME stores one, for ${keyring:NAME} in mcp.json)")
		return nil
	}
	for _, n := range names {
		fmt.Fprintln(stdout, oneLine(n))
	}
	return nil
}

func secretRemove(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("secret remove")
	if err := parse(f, args, 1); err != nil {
		return err
	}
	name := f.Arg(0)
	cl, err := f.dial()
	switch {
	case errors.Is(err, control.ErrNotRunning):
		err = keyring.RemoveSecret(name)
	case err == nil:
		err = cl.RemoveSecret(ctx, name)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "removed ${keyring:%s}\n", oneLine(name))
	return nil
}
