package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/mcptray/mcptray/app/assistants"
	"golang.org/x/term"
)

// cmdSetup is `mcptray setup [CLIENT] [--dry-run] [--remove] [--tools
// MODE]`: without
// CLIENT, the assistants known here and whether mcptray is in their
// config; with one, mcptray's entry added to (or taken out of) its config.
func cmdSetup(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	f := newBareFlags("setup")
	f.StringVar(&f.data, "data", "", "`DIR` the data dir of the instance whose tools are counted (default: $MCPTRAY_DATA, else the user state dir)")
	dryRun := f.Bool("dry-run", false, "print the change as a diff; write nothing")
	remove := f.Bool("remove", false, "take mcptray's entry out instead")
	asJSON := f.Bool("json", false, "print the list as JSON (without CLIENT)")
	tools := f.String("tools", "", "`MODE` the entry's tool list: live, stable or dynamic (default: the mode its entry has, else the assistant's; dynamic is offered past what it handles well)")
	pos, err := parseAny(f, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{fmt.Sprintf("setup takes at most one CLIENT, got %d", len(pos))}
	}
	env, err := assistantsEnv()
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		if *dryRun || *remove || *tools != "" {
			return usageError{"--dry-run, --remove and --tools need a CLIENT (" + strings.Join(assistants.Names(), ", ") + ")"}
		}
		return setupList(stdout, env, *asJSON)
	}
	c, err := findClient(pos[0])
	if err != nil {
		return err
	}
	action := assistants.Add
	if *remove {
		if *tools != "" {
			return usageError{"--tools and --remove do not go together"}
		}
		action = assistants.Remove
	}
	if action == assistants.Add {
		if c, err = setupMode(ctx, f, c, env, *tools, !*dryRun && term.IsTerminal(int(stdin.Fd())), stdin, stdout, stderr); err != nil {
			return err
		}
	}
	p, err := c.Plan(env, action)
	if err != nil {
		return err
	}
	if *dryRun {
		if !p.Changed() {
			fmt.Fprintln(stdout, nothingToDo(p))
			return nil
		}
		fmt.Fprint(stdout, escapeText(p.Diff()))
		return nil
	}
	if !p.Changed() {
		fmt.Fprintln(stdout, nothingToDo(p))
		return nil
	}
	if err := p.Apply(); err != nil {
		return err
	}
	backup := ""
	if p.Existed && !p.Delete {
		backup = fmt.Sprintf(" (backup: %s)", escapeText(p.Path+assistants.BackupSuffix))
	}
	switch {
	case action == assistants.Remove && p.Delete:
		fmt.Fprintf(stdout, "removed mcptray from %s: deleted %s, which setup had created\n", c.Display, escapeText(p.Path))
	case action == assistants.Remove:
		fmt.Fprintf(stdout, "removed mcptray from %s's config %s%s\n", c.Display, escapeText(p.Path), backup)
	default:
		fmt.Fprintf(stdout, "added mcptray to %s's config %s%s\n", c.Display, escapeText(p.Path), backup)
	}
	if hint := c.ReloadHint(action); hint != "" {
		fmt.Fprintln(stdout, hint)
	}
	if note := c.AddNote(); note != "" && action == assistants.Add {
		fmt.Fprintln(stdout, note)
	}
	return nil
}

// findClient is the client called name, or a usage error listing them.
func findClient(name string) (*assistants.Client, error) {
	c, ok := assistants.Find(name)
	if !ok {
		return nil, usageError{fmt.Sprintf("no assistant %q; known: %s", oneLine(name), strings.Join(assistants.Names(), ", "))}
	}
	return c, nil
}

func nothingToDo(p *assistants.Plan) string {
	if p.Action == assistants.Remove {
		if !p.Existed {
			return fmt.Sprintf("nothing to remove: %s has no config at %s", p.Client.Display, escapeText(p.Path))
		}
		return fmt.Sprintf("nothing to remove: no mcptray entry in %s", escapeText(p.Path))
	}
	return fmt.Sprintf("%s is set up already: %s runs this mcptray", p.Client.Display, escapeText(p.Path))
}

// setupJSON is `setup --json`.
type setupJSON struct {
	Clients []setupClientJSON `json:"clients"`
}

type setupClientJSON struct {
	Name      string `json:"name"`
	Display   string `json:"display"`
	Path      string `json:"path"`
	Exists    bool   `json:"exists"`
	Installed bool   `json:"installed"`
	Current   bool   `json:"current"`
	Error     string `json:"error,omitempty"`
}

// setupList prints the clients known on this OS: whether each one's
// config exists, whether mcptray is in it, and its path.
func setupList(w io.Writer, env assistants.Env, asJSON bool) error {
	st := assistants.Detect(env)
	if asJSON {
		out := setupJSON{Clients: []setupClientJSON{}}
		for _, s := range st {
			j := setupClientJSON{Name: s.Client.Name, Display: s.Client.Display, Path: s.Path, Exists: s.Exists, Installed: s.Installed, Current: s.Current}
			if s.Err != nil {
				j.Error = s.Err.Error()
			}
			out.Clients = append(out.Clients, j)
		}
		return printJSON(w, out)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tCONFIG\tMCPTRAY\tPATH")
	var problems []string
	other := false
	for _, s := range st {
		config, mcptray := "none", "no"
		switch {
		case s.Err != nil && s.Exists:
			config, mcptray = "broken", "?"
			problems = append(problems, fmt.Sprintf("%s: %s", s.Client.Name, oneLine(s.Err.Error())))
		case s.Err != nil:
			config, mcptray = "?", "?"
			problems = append(problems, fmt.Sprintf("%s: %s", s.Client.Name, oneLine(s.Err.Error())))
		case s.Exists:
			config = "found"
		}
		switch {
		case s.Current:
			mcptray = "yes"
		case s.Installed:
			mcptray, other = "other", true
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Client.Name, config, mcptray, escapeText(s.Path))
	}
	tw.Flush()
	for _, p := range problems {
		fmt.Fprintln(w, p)
	}
	fmt.Fprintln(w, "`mcptray setup CLIENT` puts mcptray in a client's config (--dry-run shows the change first).")
	if other {
		fmt.Fprintln(w, "\"other\": the entry runs another mcptray (moved or reinstalled); `mcptray setup CLIENT` points it at this one.")
	}
	return nil
}

// assistantsEnv is the environment setup and import work in: the one
// rule the Assistants tab uses too (assistants.InstalledEnv).
func assistantsEnv() (assistants.Env, error) { return assistants.InstalledEnv() }
