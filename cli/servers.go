package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/control"
)

// The commands on the servers: status, toggle, restart, logs.

func cmdStatus(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("status")
	asJSON := f.Bool("json", false, "print JSON")
	cl, err := f.parseDial(args, 0)
	if err != nil {
		return err
	}
	st, err := cl.Status(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, st)
	}
	if st.ConfigError != "" {
		fmt.Fprintf(stdout, "config error (the last good config keeps running): %s\n\n", escapeText(st.ConfigError))
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tPID\tTOOLS\tRESTARTS\tERROR")
	for _, s := range st.Servers {
		pid := "-"
		if s.PID > 0 {
			pid = fmt.Sprint(s.PID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", oneLine(s.Name), s.State, pid, s.Tools, s.Restarts, oneLine(s.Error))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case st.Endpoint != "":
		fmt.Fprintf(stdout, "HTTP endpoint: %s\n", escapeText(st.Endpoint))
	case st.EndpointError != "":
		fmt.Fprintf(stdout, "%s\n", escapeText(st.EndpointError))
	}
	if st.EndpointWarning != "" && st.Endpoint != "" {
		fmt.Fprintf(stdout, "warning: %s\n", escapeText(st.EndpointWarning))
	}
	switch st.LoginShell.State {
	case control.LoginShellUsed:
		fmt.Fprintf(stdout, "servers' PATH: from the login shell %s (status --json shows it)\n", escapeText(st.LoginShell.Shell))
	case control.LoginShellFailed:
		fmt.Fprintf(stdout, "servers' PATH: mcptray's own; reading the login shell's failed: %s\n", escapeText(st.LoginShell.Detail))
	}
	for _, s := range st.Servers {
		if s.InboxRefused > 0 {
			fmt.Fprintf(stdout, "%s: %d inbox requests refused (answered cancel: too many were waiting); see mcptray logs %s\n", s.Name, s.InboxRefused, s.Name)
		}
		if s.NotReading {
			fmt.Fprintf(stdout, "%s: not reading its input; its calls fail until it reads again (see mcptray logs %s)\n", oneLine(s.Name), oneLine(s.Name))
		}
	}
	return nil
}

func cmdToggle(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("toggle")
	if err := parse(f, args, 2); err != nil {
		return err
	}
	name, onoff := f.Arg(0), f.Arg(1)
	var enabled bool
	switch onoff {
	case "on":
		enabled = true
	case "off":
	default:
		return usageError{fmt.Sprintf("toggle takes on or off, got %q", onoff)}
	}
	cl, err := f.dial()
	if errors.Is(err, control.ErrNotRunning) {
		configPath, data, perr := f.paths()
		if perr != nil {
			return perr
		}
		if err := app.OwnFile(ctx, nil, configPath, data).SetEnabled(name, enabled); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s turned %s in %s (mcptray is not running)\n", name, onoff, configPath)
		return nil
	}
	if err != nil {
		return err
	}
	if err := cl.SetEnabled(ctx, name, enabled); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s turned %s\n", name, onoff)
	return nil
}

func cmdRestart(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("restart")
	cl, err := f.parseDial(args, 1)
	if err != nil {
		return err
	}
	if err := cl.Restart(ctx, f.Arg(0)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s restarting\n", f.Arg(0))
	return nil
}

func cmdLogs(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("logs")
	follow := f.Bool("f", false, "follow the log")
	if err := parse(f, args, 1); err != nil {
		return err
	}
	_, data, err := f.paths()
	if err != nil {
		return err
	}
	if _, err := os.Stat(data); err != nil {
		return fmt.Errorf("no data dir at %s", data)
	}
	w := &escapeWriter{w: stdout}
	err = app.TailLog(ctx, data, f.Arg(0), w, *follow)
	return errors.Join(err, w.Flush())
}
