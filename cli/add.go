package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/keyring"
)

// `mcptray add` and `mcptray remove`: a server entry of mcp.json written
// or taken out without an editor, through config.File's Add and Remove on
// app.OwnFile (the Servers tab's Add, Edit and Remove make the same
// edits). No instance is needed: the watcher of a running one applies
// the edit; a --secret goes through it when it runs, as `secret set` does.

func cmdAdd(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	f := newFlags("add")
	var env, headers, secrets fieldFlags
	f.Var(&env, "env", "`KEY=VALUE` an environment variable of the server (repeatable); VALUE may use ${env:…}, ${keyring:…}, …")
	f.Var(&secrets, "secret", "`KEY` an environment variable (http: a header) whose value is asked for without echo, or read from stdin, "+
		"and kept in the keyring as ${keyring:NAME-KEY} (repeatable)")
	cwd := f.String("cwd", "", "`DIR` the server's working directory")
	url := f.String("url", "", "`URL` an http server's address, instead of a command")
	f.Var(&headers, "header", "`NAME=VALUE` an http header (repeatable)")
	disabled := f.Bool("disabled", false, "add it turned off")
	replace := f.Bool("replace", false, "edit the entry of that name in place (its other keys kept) instead of refusing")

	opts, command := splitCommand(f, args)
	pos, err := parseAny(f, opts)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return usageError{"add takes the server's NAME, then -- COMMAND [ARGS...] or --url URL"}
	case len(pos) > 1:
		return usageError{"add takes one NAME; the command goes after --: mcptray add NAME [flags] -- COMMAND [ARGS...]"}
	case *url == "" && len(command) == 0:
		return usageError{"add needs -- COMMAND [ARGS...] (stdio) or --url URL (http)"}
	case *url != "" && len(command) > 0:
		return usageError{"add takes -- COMMAND or --url, not both"}
	case *url != "" && (len(env) > 0 || *cwd != ""):
		return usageError{"--env and --cwd go with a command, not --url"}
	case *url == "" && len(headers) > 0:
		return usageError{"--header goes with --url"}
	case command != nil && command[0] == "":
		return usageError{"the COMMAND after -- is empty"}
	}
	e := config.Entry{Name: pos[0], Cwd: *cwd, URL: *url, Disabled: *disabled}
	if err := config.CheckServerName(e.Name); err != nil && !*replace {
		return usageError{err.Error()} // with --replace, an existing entry keeps its name
	}
	if len(command) > 0 {
		e.Command, e.Args = command[0], command[1:]
	}
	group, flagName := &e.Env, "--env"
	if e.IsHTTP() {
		group, flagName = &e.Headers, "--header"
		env = headers
	}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usageError{fmt.Sprintf("%s takes KEY=VALUE, got %q", flagName, redactFieldArg(kv))}
		}
		*group = append(*group, config.Var{Key: k, Value: v})
	}
	for _, k := range secrets {
		if k == "" || strings.Contains(k, "=") {
			// Never repeat it: it may be a value typed in the wrong place.
			return usageError{"--secret takes a KEY only: its value is asked for, or read from stdin, never taken from the command line"}
		}
		*group = append(*group, config.Var{Key: k, Secret: true})
	}

	configPath, cl, err := editTarget(ctx, f)
	if err != nil {
		return err
	}
	_, data, err := f.paths()
	if err != nil {
		return err
	}
	ask := secretAsker(stdin, stderr, e.Name, len(secrets))
	res, err := app.OwnFile(ctx, cl, configPath, data).Add(e, config.AddOptions{
		Replace:     *replace,
		SecretValue: ask,
		Env:         app.FileEnv(configPath),
		StoreSecret: func(name, value string) error {
			if cl != nil {
				return cl.SetSecret(ctx, name, value)
			}
			return keyring.SetSecret(name, value)
		},
	})
	if res.Created {
		fmt.Fprintf(stdout, "created %s with the built-in servers\n", configPath)
	}
	if err != nil {
		var ee *config.EntryError
		if errors.As(err, &ee) && !errors.Is(err, config.ErrServerExists) {
			return fmt.Errorf("%w (mcp.json is unchanged)", err)
		}
		return err
	}
	for _, s := range res.Secrets {
		fmt.Fprintf(stdout, "stored ${keyring:%s}\n", s)
	}
	verb, state := "added", ""
	if res.Replaced {
		verb = "replaced"
	}
	if *disabled {
		state = " (turned off)"
	}
	if cl != nil {
		fmt.Fprintf(stdout, "%s %s%s in %s; the running mcptray applies it\n", verb, e.Name, state, configPath)
	} else {
		fmt.Fprintf(stdout, "%s %s%s in %s (mcptray is not running: the server starts with it)\n", verb, e.Name, state, configPath)
	}
	return nil
}

func cmdRemove(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("remove")
	if err := parse(f, args, 1); err != nil {
		return err
	}
	name := f.Arg(0)
	configPath, cl, err := editTarget(ctx, f)
	if err != nil {
		return err
	}
	_, data, err := f.paths()
	if err != nil {
		return err
	}
	secrets, err := app.OwnFile(ctx, cl, configPath, data).Remove(name)
	if err != nil {
		return err
	}
	if cl != nil {
		fmt.Fprintf(stdout, "removed %s from %s; the running mcptray stops it\n", oneLine(name), configPath)
	} else {
		fmt.Fprintf(stdout, "removed %s from %s\n", oneLine(name), configPath)
	}
	for _, s := range secrets {
		fmt.Fprintf(stdout, "it used ${keyring:%s}, still in the keyring (another entry may use it): mcptray secret remove %s deletes it\n", oneLine(s), oneLine(s))
	}
	return nil
}

// splitCommand cuts args at the "--" that ends the flags (not a flag's
// value: `--env --` is an env value): what comes after is the server's
// command line, verbatim, dashes and all. nil when there is no "--".
func splitCommand(f *flags, args []string) (opts, command []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return args[:i], append([]string{}, args[i+1:]...)
		}
		if takesValue(f, a) {
			i++ // its value, whatever it is
		}
	}
	return args, nil
}

// takesValue reports whether a is a flag of f given without "=" that takes
// the next argument as its value.
func takesValue(f *flags, a string) bool {
	if !strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
		return false
	}
	fl := f.Lookup(strings.TrimLeft(a, "-"))
	if fl == nil {
		return false
	}
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// editTarget is the mcp.json add and remove edit: --config's, else the
// running instance's (whose watcher then applies the edit), else the
// default path. cl is the running instance, nil when none runs.
func editTarget(ctx context.Context, f *flags) (configPath string, cl *control.Client, err error) {
	configPath, _, err = f.paths()
	if err != nil {
		return "", nil, err
	}
	cl, err = f.dial()
	if errors.Is(err, control.ErrNotRunning) {
		return configPath, nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	if f.config == "" {
		st, err := cl.Status(ctx)
		if err != nil {
			return "", nil, err
		}
		if st.ConfigPath != "" {
			configPath = st.ConfigPath
		}
	}
	return configPath, cl, nil
}

// secretAsker gives the values of `add --secret KEY`: on a terminal each
// asked without echo; otherwise stdin holds them, all of it for one
// secret (as `secret set` reads it), one line each, in the order of the
// flags, for several.
func secretAsker(stdin *os.File, stderr io.Writer, server string, n int) func(key string) (string, error) {
	if n == 0 {
		return nil
	}
	if term.IsTerminal(int(stdin.Fd())) || n == 1 {
		return func(key string) (string, error) {
			return readSecret(stdin, stderr, config.SecretRef(server, key))
		}
	}
	var lines []string
	read := false
	return func(key string) (string, error) {
		if !read {
			read = true
			b, err := io.ReadAll(io.LimitReader(stdin, int64(n)*(config.MaxSecretValue+2)+1))
			if err != nil {
				return "", fmt.Errorf("reading the values from stdin: %w", err)
			}
			b = bytes.TrimSuffix(b, []byte("\n"))
			for _, l := range strings.Split(string(b), "\n") {
				lines = append(lines, strings.TrimSuffix(l, "\r"))
			}
		}
		if len(lines) == 0 || lines[0] == "" {
			return "", fmt.Errorf("no value for --secret %s on stdin: with several --secret, stdin holds one value per line, in their order; nothing written", key)
		}
		v := lines[0]
		lines = lines[1:]
		return v, nil
	}
}
