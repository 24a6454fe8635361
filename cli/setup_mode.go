package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/mcptray/mcptray/app/assistants"
)

// setupMode is the client whose entry setup writes, in the tool-list mode
// chosen: the --tools flag (explicit); else the mode the client's entry
// has already (setup never changes it silently), else the client's own.
// Past the tools the client handles well (assistants.ToolBudget; counted
// by the running instance, none counted when none runs), dynamic mode is
// offered: asked on a terminal, else said, with the flag that takes it.
func setupMode(ctx context.Context, f *flags, c *assistants.Client, env assistants.Env, flagMode string, interactive bool, stdin *os.File, stdout, stderr io.Writer) (*assistants.Client, error) {
	if flagMode != "" {
		d, err := c.WithMode(flagMode)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		return d, nil
	}
	mode := c.Mode()
	for _, s := range assistants.Detect(env) {
		if s.Client.Name == c.Name && s.Current {
			mode = s.Mode
		}
	}
	c, err := c.WithMode(mode)
	if err != nil {
		return nil, err
	}
	if c.ToolBudget() == 0 || mode == assistants.ModeDynamic {
		return c, nil
	}
	n, ok := countTools(ctx, f)
	if !ok || n <= c.ToolBudget() {
		return c, nil
	}
	if interactive {
		yes, err := askYesNo(ctx, stdin, stderr, fmt.Sprintf("mcptray serves %d tools, more than %s handles well (%d). Give it dynamic mode instead: a tool search and three more tools, a few %% of the tokens?", n, c.Display, c.ToolBudget()))
		if err != nil {
			return nil, err
		}
		if yes {
			return c.WithMode(assistants.ModeDynamic)
		}
		return c, nil
	}
	fmt.Fprintf(stdout, "note: mcptray serves %d tools, more than %s handles well (%d); `mcptray setup %s --tools dynamic` gives it a tool search instead of every tool (README: \"Many servers, few tokens\")\n",
		n, c.Display, c.ToolBudget(), c.Name)
	return c, nil
}

// countTools is how many tools the running instance lists now (its
// servers' tools); ok is false when no instance runs.
func countTools(ctx context.Context, f *flags) (n int, ok bool) {
	cl, err := f.dial()
	if err != nil {
		return 0, false
	}
	st, err := cl.Status(ctx)
	if err != nil {
		return 0, false
	}
	for _, s := range st.Servers {
		n += s.Tools
	}
	return n, true
}
