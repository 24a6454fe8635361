package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/control"
)

// cmdTools is `mcptray tools NAME [--json]`, a server's tools and their
// switches, and `mcptray tools NAME on|off TOOL`, which rewrites the
// entry's x-mcptray.disabledTools.
func cmdTools(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("tools")
	asJSON := f.Bool("json", false, "print JSON")
	n := 3
	if err := parse(f, args, n); err != nil {
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(ue.msg, "argument(s)") {
			return err
		}
		n = 1
		if err := parse(f, args, n); err != nil {
			return usageError{"tools takes NAME, or NAME on|off TOOL"}
		}
	}
	name := f.Arg(0)
	if n == 3 {
		return switchTool(ctx, f, name, f.Arg(1), f.Arg(2), stdout)
	}
	cl, err := f.dial()
	if err != nil {
		return err
	}
	l, err := cl.Tools(ctx, name)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, l)
	}
	if l.Cached {
		fmt.Fprintf(stdout, "%s is %s; its tools as last seen:\n", oneLine(name), oneLine(l.State))
	}
	if len(l.Tools) == 0 {
		fmt.Fprintf(stdout, "%s has no tools mcptray has seen.\n", oneLine(name))
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tON\tHINTS\tTITLE\tDESCRIPTION")
	for _, t := range l.Tools {
		on := "on"
		switch {
		case !t.Enabled:
			on = "off"
		case t.Held != "":
			on = "held"
		case t.Approval:
			on = "asks"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", oneLine(t.Name), on, dash(hints(t)), dash(oneLine(t.Title)), oneLine(t.Description))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, t := range l.Tools {
		if t.Held != "" {
			fmt.Fprintf(stdout, "%s is held back: %s (mcptray inbox)\n", oneLine(t.Name), oneLine(t.Held))
		}
	}
	return nil
}

// hints are a tool's annotations, short: read-only, destructive,
// idempotent, open-world.
func hints(t control.ToolInfo) string {
	var h []string
	for _, a := range []struct {
		set  bool
		name string
	}{{t.ReadOnly, "read-only"}, {t.Destructive, "destructive"}, {t.Idempotent, "idempotent"}, {t.OpenWorld, "open-world"}} {
		if a.set {
			h = append(h, a.name)
		}
	}
	return strings.Join(h, ",")
}

// switchTool is `mcptray tools NAME on|off TOOL`; without a running
// instance it edits mcp.json itself.
func switchTool(ctx context.Context, f *flags, name, onoff, tool string, stdout io.Writer) error {
	var on bool
	switch onoff {
	case "on":
		on = true
	case "off":
	default:
		return usageError{fmt.Sprintf("tools NAME takes on or off before the tool's name, got %q", onoff)}
	}
	cl, err := f.dial()
	if errors.Is(err, control.ErrNotRunning) {
		configPath, data, perr := f.paths()
		if perr != nil {
			return perr
		}
		if err := app.OwnFile(ctx, nil, configPath, data).SetToolEnabled(name, tool, on); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s of %s turned %s in %s (mcptray is not running)\n", tool, name, onoff, configPath)
		return nil
	}
	if err != nil {
		return err
	}
	if err := cl.SetToolEnabled(ctx, name, tool, on); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s of %s turned %s\n", oneLine(tool), oneLine(name), onoff)
	return nil
}
