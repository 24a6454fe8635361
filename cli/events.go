package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
)

// defaultEvents is how many events `mcptray events` prints without
// --limit.
const defaultEvents = 100

// cmdEvents is `mcptray events [--json] [--all] [--server NAME] [--since
// ID] [--limit N]` and `mcptray events ack ID...|--all [--server NAME]`.
//
// It prints one page: without --since the newest N events, with --since
// the oldest N after that id (so --since pages forward), oldest first
// either way, and a line saying how many it left out and how to see them.
// --json prints the same page and that count as notShown.
func cmdEvents(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "ack" {
		return cmdEventsAck(ctx, args[1:], stdout)
	}
	f := newFlags("events")
	asJSON := f.Bool("json", false, "print JSON")
	all := f.Bool("all", false, "acknowledged events too")
	server := f.String("server", "", "`NAME` only this server's events")
	since := f.Int64("since", 0, "`ID` the events after this one, oldest first")
	limit := f.Int("limit", defaultEvents, "`N` how many events")
	if err := parse(f, args, 0); err != nil {
		return err
	}
	if *since < 0 {
		return usageError{fmt.Sprintf("--since takes an event id (0 or more), got %d", *since)}
	}
	if *limit < 1 || *limit > control.MaxEventsPage {
		return usageError{fmt.Sprintf("--limit takes a number of events (1 to %d), got %d", control.MaxEventsPage, *limit)}
	}
	forward := false // --since given: page forward from it
	f.Visit(func(fl *flag.Flag) { forward = forward || fl.Name == "since" })
	cl, err := f.dial()
	if err != nil {
		return err
	}
	page, err := cl.EventPage(ctx, events.Filter{All: *all, Server: *server, SinceID: *since, Limit: *limit, Newest: !forward})
	if err != nil {
		return err
	}
	evs := page.Events
	if *asJSON {
		if page.Events == nil {
			page.Events = []events.Event{}
		}
		return printJSON(stdout, page)
	}
	if len(evs) == 0 {
		if *all {
			fmt.Fprintln(stdout, "no events")
		} else {
			fmt.Fprintln(stdout, "no unacknowledged events")
		}
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	header := "ID\tRECEIVED\tSERVER\tMETHOD\tTITLE"
	if *all {
		header += "\tACKED"
	}
	fmt.Fprintln(tw, header)
	for _, e := range evs {
		title, _ := e.Summary()
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s", e.ID, e.Received.Local().Format(time.DateTime), oneLine(e.Server), oneLine(e.Method), oneLine(title))
		if *all {
			acked := "-"
			if e.Acked != nil {
				acked = e.Acked.Local().Format(time.DateTime)
			}
			fmt.Fprintf(tw, "\t%s", acked)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case page.NotShown == 0:
	case forward:
		fmt.Fprintf(stdout, "%d more events after these: --since %d lists the next ones\n", page.NotShown, evs[len(evs)-1].ID)
	default:
		fmt.Fprintf(stdout, "%d older events not shown: --limit N shows more (up to %d), --since 0 lists from the oldest\n", page.NotShown, control.MaxEventsPage)
	}
	return nil
}

// cmdEventsAck is `mcptray events ack ID...|--all [--server NAME]`.
func cmdEventsAck(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("events ack")
	all := f.Bool("all", false, "every unacknowledged event")
	server := f.String("server", "", "`NAME` with --all: only this server's events")
	pos, err := parseAny(f, args)
	if err != nil {
		return err
	}
	var req events.AckRequest
	for _, p := range pos {
		id, err := strconv.ParseInt(p, 10, 64)
		if err != nil || id <= 0 {
			return usageError{fmt.Sprintf("events ack takes event ids (numbers, as `mcptray events` shows them), got %q", p)}
		}
		req.IDs = append(req.IDs, id)
	}
	switch {
	case len(req.IDs) > 0 && *all:
		return usageError{"events ack takes event ids or --all, not both"}
	case len(req.IDs) == 0 && !*all:
		return usageError{"events ack takes event ids or --all"}
	case *server != "" && !*all:
		return usageError{"--server goes with --all"}
	}
	req.All, req.Server = *all, *server
	cl, err := f.dial()
	if err != nil {
		return err
	}
	n, err := cl.AckEvents(ctx, req)
	if err != nil {
		return err
	}
	if n == 1 {
		fmt.Fprintln(stdout, "1 event acknowledged")
	} else {
		fmt.Fprintf(stdout, "%d events acknowledged\n", n)
	}
	return nil
}

// cmdHistory is `mcptray history [--json] [--limit N]`: the last tool
// calls through the gateway, newest first.
func cmdHistory(ctx context.Context, args []string, stdout io.Writer) error {
	f := newFlags("history")
	asJSON := f.Bool("json", false, "print JSON")
	limit := f.Int("limit", app.DefaultHistory, "`N` how many calls")
	if err := parse(f, args, 0); err != nil {
		return err
	}
	if *limit <= 0 {
		return usageError{fmt.Sprintf("--limit takes a number of calls (1 or more), got %d", *limit)}
	}
	cl, err := f.dial()
	if err != nil {
		return err
	}
	calls, err := cl.History(ctx, *limit)
	if err != nil {
		return err
	}
	if *asJSON {
		if calls == nil {
			calls = []control.ToolCall{}
		}
		return printJSON(stdout, struct {
			Calls []control.ToolCall `json:"calls"`
		}{calls})
	}
	if len(calls) == 0 {
		fmt.Fprintln(stdout, "no tool calls yet")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STARTED\tSERVER\tTOOL\tDURATION\tOUTCOME")
	for _, c := range calls {
		d := time.Duration(c.DurationMS * float64(time.Millisecond))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Started.Local().Format("2006-01-02 15:04:05.000"), oneLine(c.Server), oneLine(c.Tool), roundDuration(d), oneLine(c.Outcome))
	}
	return tw.Flush()
}

// roundDuration keeps three significant figures or so.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// parseAny parses flags mixed with any number of positional args and
// returns the positional ones.
func parseAny(f *flags, args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.Parse(args); err != nil {
			return nil, parseError(f, err)
		}
		args = f.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}
