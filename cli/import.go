package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/assistants"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/keyring"
)

// cmdImport is `mcptray import CLIENT`: the client's servers copied into
// mcp.json; the values that look like secrets moved into the keyring after
// a yes; and, after another yes, the servers taken out of the client's
// config with mcptray put in their place, so that none runs twice.
func cmdImport(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	f := newFlags("import")
	dryRun := f.Bool("dry-run", false, "print the changes as diffs (secrets hidden); write and store nothing")
	move := f.Bool("move-secrets", false, "move the values that look like secrets into the keyring, as ${keyring:NAME}")
	keep := f.Bool("keep-secrets", false, "copy the values that look like secrets into mcp.json as they are")
	replace := f.Bool("replace", false, "take the servers out of the client's config and put mcptray in their place")
	noReplace := f.Bool("no-replace", false, "leave the client's config as it is (the default without a terminal)")
	if err := parse(f, args, 1); err != nil {
		return err
	}
	switch {
	case *move && *keep:
		return usageError{"--move-secrets and --keep-secrets exclude each other"}
	case *replace && *noReplace:
		return usageError{"--replace and --no-replace exclude each other"}
	}
	c, err := findClient(f.Arg(0))
	if err != nil {
		return err
	}
	configPath, _, err := f.paths()
	if err != nil {
		return err
	}
	env, err := assistantsEnv()
	if err != nil {
		return err
	}
	im, err := assistants.NewImport(c, env, configPath)
	if err != nil {
		return err
	}
	if len(im.Secrets) > 0 {
		// A moved secret must not overwrite one the keyring has (a keyring
		// that cannot be listed holds none that anyone could tell).
		names, _ := keyring.SecretNames()
		im.AvoidSecretNames(func(name string) bool { return slices.Contains(names, name) })
	}

	copying := 0
	for _, s := range im.Servers {
		if s.Skip == "" {
			copying++
		}
	}
	fmt.Fprintf(stdout, "%s (%s):\n", c.Display, escapeText(im.From))
	for _, s := range im.Servers {
		line := "  " + oneLine(s.Name)
		if s.Project != "" {
			line += " (project " + oneLine(s.Project) + ")"
		}
		switch {
		case s.Skip != "":
			line += ": " + s.Skip
		case s.As != s.Name:
			line += " → " + oneLine(s.As) + " (mcp.json has a " + oneLine(s.Name) + " already)"
		}
		fmt.Fprintln(stdout, line)
	}
	for _, n := range im.Notes {
		fmt.Fprintf(stdout, "note: %s\n", oneLine(n))
	}
	if len(im.Servers) == 0 {
		fmt.Fprintf(stdout, "  no servers to import\n")
		return nil
	}

	interactive := !*dryRun && term.IsTerminal(int(stdin.Fd()))
	optional := 0
	for _, s := range im.Secrets {
		if s.Required {
			fmt.Fprintf(stdout, "  %s %s %s → %s (an OAuth client secret: always moved into the keyring)\n", oneLine(s.Server), s.Field, oneLine(s.Key), oneLine(s.Reference()))
		} else {
			optional++
		}
	}
	if optional > 0 {
		fmt.Fprintf(stdout, "%d value(s) look like secrets:\n", optional)
		for _, s := range im.Secrets {
			if !s.Required {
				fmt.Fprintf(stdout, "  %s %s %s → %s\n", oneLine(s.Server), s.Field, oneLine(s.Key), oneLine(s.Reference()))
			}
		}
		choice := *move
		switch {
		case *move || *keep:
		case interactive:
			yes, err := askYesNo(ctx, stdin, stderr, "Move them into the keyring, leaving ${keyring:…} references in mcp.json?")
			if err != nil {
				return err
			}
			choice = yes
		case *dryRun:
			choice = true
			fmt.Fprintln(stdout, "(the diff shows them moved, as --move-secrets would)")
		default:
			return usageError{fmt.Sprintf("%d value(s) look like secrets: pass --move-secrets to put them in the keyring (mcp.json gets ${keyring:…} references), or --keep-secrets to copy them into mcp.json as they are", optional)}
		}
		for _, s := range im.Secrets {
			s.Move = choice || s.Required
		}
	}

	doReplace := *replace
	if !*replace && !*noReplace && interactive {
		yes, err := askYesNo(ctx, stdin, stderr, fmt.Sprintf("Take them out of %s's config and put mcptray in their place, so that none runs twice?", c.Display))
		if err != nil {
			return err
		}
		doReplace = yes
	}

	cfg, client, err := im.Plans(doReplace)
	if err != nil {
		return err
	}
	if *dryRun {
		fmt.Fprint(stdout, escapeText(cfg.Diff()))
		if client != nil {
			fmt.Fprint(stdout, escapeText(client.Diff()))
		}
		return nil
	}

	// mcp.json is written as mcptray's own edit: the imported servers
	// need no approval (they ran in the assistant already).
	cl, err := f.dial()
	if err != nil && !errors.Is(err, control.ErrNotRunning) {
		return err
	}
	_, data, err := f.paths()
	if err != nil {
		return err
	}
	if err := im.ApplyWith(doReplace, secretStore(ctx, f), app.OwnFile(ctx, cl, configPath, data).Replace); err != nil {
		return err
	}
	moved := 0
	for _, s := range im.Secrets {
		if s.Move {
			moved++
		}
	}
	fmt.Fprintf(stdout, "imported %d server(s) into %s\n", copying, escapeText(im.Config))
	if moved > 0 {
		fmt.Fprintf(stdout, "moved %d secret(s) into the keyring\n", moved)
	}
	if doReplace {
		fmt.Fprintf(stdout, "took them out of %s; mcptray is in their place (backup: %s)\n", escapeText(im.From), escapeText(im.From+assistants.BackupSuffix))
		if hint := c.ReloadHint(assistants.Add); hint != "" {
			fmt.Fprintln(stdout, hint)
		}
		if note := c.AddNote(); note != "" {
			fmt.Fprintln(stdout, note)
		}
	} else {
		fmt.Fprintf(stdout, "%s still runs them too: `mcptray import %s --replace` takes them out and puts mcptray in their place\n", c.Display, c.Name)
	}
	return nil
}

// secretStore stores a ${keyring:NAME} value as `mcptray secret set`
// does: through the running instance when there is one (which restarts
// the servers using it), else straight into the keyring.
// It dials the instance at the first secret.
func secretStore(ctx context.Context, f *flags) func(name, value string) error {
	var (
		cl     *control.Client
		dialed bool
	)
	return func(name, value string) error {
		if !dialed {
			var err error
			cl, err = f.dial()
			if err != nil && !errors.Is(err, control.ErrNotRunning) {
				return err
			}
			dialed = true
		}
		if cl == nil {
			return keyring.SetSecret(name, value)
		}
		return cl.SetSecret(ctx, name, value)
	}
}

// askYesNo asks question on the terminal; only y or yes is a yes.
func askYesNo(ctx context.Context, stdin *os.File, stderr io.Writer, question string) (bool, error) {
	fmt.Fprintf(stderr, "%s [y/N] ", question)
	line, err := readLine(ctx, stdin)
	if err != nil {
		return false, fmt.Errorf("reading the answer: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}
