package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
)

// fieldFlags collects repeated --field NAME=VALUE.
type fieldFlags []string

func (f *fieldFlags) String() string     { return strings.Join(*f, ",") }
func (f *fieldFlags) Set(v string) error { *f = append(*f, v); return nil }

func cmdInbox(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "answer":
			return cmdInboxAnswer(ctx, args[1:], stdin, stdout, stderr)
		case "watch":
			return cmdInboxWatch(ctx, args[1:], stdin, stdout, stderr)
		}
		return usageError{fmt.Sprintf("inbox has no subcommand %q (answer, watch)", args[0])}
	}
	f := newFlags("inbox")
	asJSON := f.Bool("json", false, "print JSON")
	cl, err := f.parseDial(args, 0)
	if err != nil {
		return err
	}
	reqs, err := cl.Inbox(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		if reqs == nil {
			reqs = []inbox.Request{}
		}
		return printJSON(stdout, control.InboxList{Requests: reqs})
	}
	if len(reqs) == 0 {
		fmt.Fprintln(stdout, "No requests waiting.")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSERVER\tTOOL\tKIND\tEXPIRES\tMESSAGE")
	for _, r := range reqs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, oneLine(r.Server), oneLine(dash(r.Tool)), kind(r), until(r.Deadline), oneLine(r.Message))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// kind says what answering involves: a form, a yes/no, a URL, an input.
func kind(r inbox.Request) string {
	switch {
	case r.Kind == inbox.KindApproval, r.Kind == inbox.KindLaunch, r.Kind == inbox.KindLaunchReset, r.Kind == inbox.KindToolChange:
		return r.Kind
	case r.Source == inbox.SourceConfig:
		return "input " + oneLine(r.Input)
	case r.Mode == "url":
		return "url " + oneLine(r.Host)
	case r.Confirm && r.AcceptLabel != "":
		return "yes/no (" + oneLine(r.AcceptLabel) + ")"
	case r.Confirm:
		return "yes/no"
	}
	return fmt.Sprintf("form (%d fields)", len(r.Fields))
}

func until(t time.Time) string {
	d := time.Until(t).Round(time.Second)
	if d <= 0 {
		return "now"
	}
	return "in " + d.String()
}

func cmdInboxAnswer(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	f := newFlags("inbox answer")
	var fields fieldFlags
	f.Var(&fields, "field", "`NAME=VALUE` a field's value (repeatable); a VALUE of - is read from stdin")
	yes := f.Bool("yes", false, "accept, with the defaults for the fields not given")
	decline := f.Bool("decline", false, "decline the request")
	cancel := f.Bool("cancel", false, "cancel the request")
	session := f.Bool("session", false, "an approval: allow this tool for the rest of the assistant's session")
	always := f.Bool("always", false, "an approval: allow this tool from now on (written to the entry's x-mcptray.allowTools)")
	if err := parse(f, args, 1); err != nil {
		return err
	}
	id := f.Arg(0)
	scope := ""
	switch {
	case *session && *always:
		return usageError{"give at most one of --session and --always"}
	case *session:
		scope = inbox.ScopeSession
	case *always:
		scope = inbox.ScopeAlways
	}
	if scope != "" && (*decline || *cancel) {
		return usageError{"--" + scope + " goes with accepting, not with --decline or --cancel"}
	}
	if scope != "" {
		*yes = true
	}
	action := ""
	for _, a := range []struct {
		set  bool
		name string
	}{{*yes, inbox.ActionAccept}, {*decline, inbox.ActionDecline}, {*cancel, inbox.ActionCancel}} {
		if a.set {
			if action != "" {
				return usageError{"give at most one of --yes, --decline and --cancel"}
			}
			action = a.name
		}
	}
	if action != "" && action != inbox.ActionAccept && len(fields) > 0 {
		return usageError{"--field goes with accepting, not with --" + action}
	}
	cl, err := f.dial()
	if err != nil {
		return err
	}
	req, err := findRequest(ctx, cl, id)
	if err != nil {
		return err
	}
	interactive := action == "" && len(fields) == 0 && term.IsTerminal(int(stdin.Fd()))
	if interactive {
		p := newPrompter(ctx, stdin, stderr)
		defer p.restore()
		a, err := p.answer(req, func(a inbox.Answer) error { return cl.Answer(ctx, req.ID, a) })
		if err != nil {
			return err
		}
		reportAnswer(stdout, req, a.Action)
		return nil
	}
	if scope != "" && req.Kind != inbox.KindApproval {
		return usageError{"--" + scope + " answers a tool call's approval; request " + req.ID + " is not one"}
	}
	a := inbox.Answer{Action: action, By: "cli", Scope: scope}
	if a.Action == "" {
		a.Action = inbox.ActionAccept
	}
	if a.Action == inbox.ActionAccept {
		a.Content = map[string]any{}
		for _, kv := range fields {
			name, value, ok := strings.Cut(kv, "=")
			if !ok || name == "" {
				return usageError{fmt.Sprintf("--field takes NAME=VALUE, got %q", redactFieldArg(kv))}
			}
			if value == "-" {
				line, err := readLine(ctx, stdin)
				if err != nil {
					return fmt.Errorf("reading the value of %q from stdin: %w", name, err)
				}
				value = line
			}
			a.Content[name] = value
		}
	}
	if err := cl.Answer(ctx, req.ID, a); err != nil {
		var inv *inbox.InvalidAnswerError
		if errors.As(err, &inv) {
			return fmt.Errorf("%s (nothing was sent; the request stays open)", err)
		}
		return err
	}
	reportAnswer(stdout, req, a.Action)
	return nil
}

// redactFieldArg shows a malformed --field argument without what might be
// a value.
func redactFieldArg(s string) string {
	if len(s) > 12 {
		return s[:4] + "…"
	}
	return s
}

func findRequest(ctx context.Context, cl *control.Client, id string) (inbox.Request, error) {
	reqs, err := cl.Inbox(ctx)
	if err != nil {
		return inbox.Request{}, err
	}
	for _, r := range reqs {
		if r.ID == id {
			return r, nil
		}
	}
	return inbox.Request{}, fmt.Errorf("no open request %s in the inbox (`mcptray inbox` lists them)", id)
}

func reportAnswer(w io.Writer, req inbox.Request, action string) {
	switch {
	case req.Kind == inbox.KindApproval && action == inbox.ActionAccept:
		fmt.Fprintf(w, "%s: %s of %s allowed\n", req.ID, oneLine(req.Tool), oneLine(req.Server))
	case req.Kind == inbox.KindApproval:
		fmt.Fprintf(w, "%s: %s of %s declined\n", req.ID, oneLine(req.Tool), oneLine(req.Server))
	case req.Mode == "url" && action == inbox.ActionAccept:
		fmt.Fprintf(w, "%s: accepted; opening %s in your browser (open it yourself if it does not appear)\n", req.ID, oneLine(req.URL))
	default:
		fmt.Fprintf(w, "%s: %s sent to %s\n", req.ID, action, oneLine(req.Server))
	}
}

func cmdInboxWatch(ctx context.Context, args []string, stdin *os.File, stdout, stderr io.Writer) error {
	f := newFlags("inbox watch")
	asJSON := f.Bool("json", false, "print events as JSON lines")
	cl, err := f.parseDial(args, 0)
	if err != nil {
		return err
	}
	events, err := cl.WatchInbox(ctx)
	if err != nil {
		return err
	}
	interactive := !*asJSON && term.IsTerminal(int(stdin.Fd()))
	var p *prompter
	if interactive {
		p = newPrompter(ctx, stdin, stderr)
		defer p.restore()
		fmt.Fprintln(stderr, "Waiting for requests (Ctrl-C to stop)…")
	}
	enc := json.NewEncoder(stdout)
	answered := map[string]bool{}
	for ev := range events {
		switch {
		case *asJSON:
			if err := enc.Encode(ev); err != nil {
				return err
			}
		case !interactive:
			describeEvent(stdout, ev)
		case ev.Kind == inbox.Added:
			a, err := p.answer(ev.Request, func(a inbox.Answer) error { return cl.Answer(ctx, ev.Request.ID, a) })
			switch {
			case ctx.Err() != nil:
				return nil
			case errors.Is(err, inbox.ErrRequestClosed):
				fmt.Fprintf(stderr, "%s was closed meanwhile: %s\n", ev.Request.ID, escapeText(err.Error()))
			case err != nil:
				return err
			default:
				answered[ev.Request.ID] = true
				reportAnswer(stdout, ev.Request, a.Action)
			}
		case ev.Kind == inbox.Closed && !answered[ev.Request.ID]:
			describeEvent(stderr, ev)
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return errors.New("mcptray stopped")
}

func describeEvent(w io.Writer, ev inbox.Event) {
	r := ev.Request
	switch ev.Kind {
	case inbox.Added:
		fmt.Fprintf(w, "+ %s from %s (%s, expires %s): %s\n", r.ID, oneLine(r.Server), kind(r), until(r.Deadline), oneLine(r.Message))
	case inbox.Closed:
		fmt.Fprintf(w, "- %s from %s closed: %s by %s\n", r.ID, oneLine(r.Server), oneLine(ev.Outcome), oneLine(ev.By))
	case inbox.Completed:
		fmt.Fprintf(w, "✓ %s from %s: the server says it is complete\n", r.ID, oneLine(r.Server))
	}
}

func cmdInputs(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "forget" {
		return usageError{"inputs takes: forget ID"}
	}
	f := newFlags("inputs forget")
	if err := parse(f, args[1:], 1); err != nil {
		return err
	}
	id := f.Arg(0)
	cl, err := f.dial()
	if errors.Is(err, control.ErrNotRunning) {
		_, data, perr := f.paths()
		if perr != nil {
			return perr
		}
		if err := app.ForgetInputInData(data, id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "forgot ${input:%s} (mcptray is not running)\n", id)
		return nil
	}
	if err != nil {
		return err
	}
	if err := cl.ForgetInput(ctx, id); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "forgot ${input:%s}; the servers using it will ask again\n", id)
	return nil
}

// readLine reads one line from in, a byte at a time (so that nothing is
// buffered past it for a later masked read), without its line ending.
func readLine(ctx context.Context, in *os.File) (string, error) {
	type result struct {
		s   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var b []byte
		one := make([]byte, 1)
		for {
			n, err := in.Read(one)
			if n == 1 {
				if one[0] == '\n' {
					ch <- result{strings.TrimSuffix(string(b), "\r"), nil}
					return
				}
				b = append(b, one[0])
			}
			if err != nil {
				if err == io.EOF && len(b) > 0 {
					ch <- result{string(b), nil}
					return
				}
				if err == io.EOF {
					err = errors.New("end of input")
				}
				ch <- result{"", err}
				return
			}
		}
	}()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// prompter asks a person at a terminal, field by field.
type prompter struct {
	ctx   context.Context
	in    *os.File
	out   io.Writer
	state *term.State // the terminal as it was, restored on exit
}

func newPrompter(ctx context.Context, in *os.File, out io.Writer) *prompter {
	p := &prompter{ctx: ctx, in: in, out: out}
	p.state, _ = term.GetState(int(in.Fd()))
	return p
}

// restore puts the terminal back (echo on) even if a masked read was cut
// short.
func (p *prompter) restore() {
	if p.state != nil {
		term.Restore(int(p.in.Fd()), p.state)
	}
}

func (p *prompter) line(prompt string) (string, error) {
	fmt.Fprint(p.out, prompt)
	return readLine(p.ctx, p.in)
}

// secret reads a line without echo.
func (p *prompter) secret(prompt string) (string, error) {
	fmt.Fprint(p.out, prompt)
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := term.ReadPassword(int(p.in.Fd()))
		ch <- result{b, err}
	}()
	select {
	case r := <-ch:
		fmt.Fprintln(p.out)
		if r.err != nil {
			return "", fmt.Errorf("reading a masked value: %w", r.err)
		}
		return string(r.b), nil
	case <-p.ctx.Done():
		p.restore()
		fmt.Fprintln(p.out)
		return "", p.ctx.Err()
	}
}

// answer shows req, asks for an answer and sends it with send; an answer
// the instance refuses for a field asks that field again.
func (p *prompter) answer(req inbox.Request, send func(inbox.Answer) error) (inbox.Answer, error) {
	fmt.Fprintf(p.out, "\nRequest %s from %s", req.ID, oneLine(req.Server))
	if req.Tool != "" {
		fmt.Fprintf(p.out, " (tool %s", oneLine(req.Tool))
		if req.Client != "" {
			fmt.Fprintf(p.out, ", called by %s", oneLine(req.Client))
		}
		fmt.Fprint(p.out, ")")
	}
	fmt.Fprintf(p.out, ", expires %s\n%s\n", until(req.Deadline), indent(req.Message))
	a := inbox.Answer{By: "cli"}
	var err error
	switch {
	case req.Kind == inbox.KindApproval && req.Approval != nil:
		fmt.Fprintf(p.out, "  Why: %s\n  Arguments:\n%s\n", oneLine(req.Approval.Why), indent(indent(req.Approval.Arguments)))
		a.Action, a.Scope, err = p.chooseApproval()
		if err == nil {
			err = send(a)
		}
		return a, err
	case req.Kind == inbox.KindLaunch && req.Launch != nil:
		l := req.Launch
		fmt.Fprintf(p.out, "  File:  %s\n  Entry: %s\n  Runs:  %s\n", oneLine(l.File), oneLine(l.Entry), oneLine(l.CommandLine))
		if len(l.EnvNames) > 0 {
			fmt.Fprintf(p.out, "  With:  %s (values not shown)\n", oneLine(strings.Join(l.EnvNames, ", ")))
		}
		if l.Previous != "" {
			fmt.Fprintf(p.out, "  Ran before: %s\n", oneLine(l.Previous))
		}
		for _, ch := range l.Changes {
			fmt.Fprintf(p.out, "  Changed: %s\n", oneLine(ch))
		}
		a.Action, err = p.choose("Allow it to run? [y]es, [n]o: ")
	case req.Kind == inbox.KindLaunchReset && req.Reset != nil:
		fmt.Fprintf(p.out, "  File:  %s\n", oneLine(req.Reset.File))
		for _, e := range req.Reset.Entries {
			fmt.Fprintf(p.out, "  %s: %s\n", oneLine(e.Entry), oneLine(e.CommandLine))
		}
		a.Action, err = p.choose("Approve them all? [y]es, [n]o (choose one by one): ")
	case req.Kind == inbox.KindToolChange && req.ToolChange != nil:
		tc := req.ToolChange
		fmt.Fprintf(p.out, "  Description before:\n%s\n  Description now:\n%s\n", indent(indent(tc.OldDescription)), indent(indent(tc.NewDescription)))
		for _, l := range tc.Changes {
			fmt.Fprintf(p.out, "  %s\n", oneLine(l))
		}
		a.Action, err = p.choose("Accept the change? [y]es, [n]o (keep it held back): ")
	case req.Mode == "url":
		fmt.Fprintf(p.out, "  URL:  %s\n  Host: %s\n", oneLine(req.URL), oneLine(req.Host))
		a.Action, err = p.choose("Open it in your browser? [y]es, [n]o (decline), [c]ancel: ")
	case req.Confirm:
		a.Action, err = p.choose("[y]es, [n]o (decline), [c]ancel: ")
	default:
		a.Action, err = p.choose("Fill in the form? [y]es, [n]o (decline), [c]ancel: ")
	}
	if err != nil || a.Action != inbox.ActionAccept || req.Mode == "url" || req.Confirm {
		if err == nil {
			err = send(a)
		}
		return a, err
	}
	a.Content = map[string]any{}
	for _, f := range req.Fields {
		if err := p.field(f, a.Content); err != nil {
			return a, err
		}
	}
	for {
		err := send(a)
		var inv *inbox.InvalidAnswerError
		if !errors.As(err, &inv) {
			return a, err
		}
		fmt.Fprintf(p.out, "  mcptray refused it: %s\n", oneLine(err.Error()))
		i := slices.IndexFunc(req.Fields, func(f inbox.Field) bool { return f.Name == inv.Field })
		if i < 0 {
			return a, err
		}
		delete(a.Content, inv.Field)
		if err := p.field(req.Fields[i], a.Content); err != nil {
			return a, err
		}
	}
}

// chooseApproval asks for an approval's answer: once, for the session,
// always, or no.
func (p *prompter) chooseApproval() (action, scope string, err error) {
	for {
		s, err := p.line("Allow? [y]es once, [s]ession (this tool, this assistant session), [a]lways, [n]o: ")
		if err != nil {
			return "", "", err
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "y", "yes", "o", "once":
			return inbox.ActionAccept, inbox.ScopeOnce, nil
		case "s", "session":
			return inbox.ActionAccept, inbox.ScopeSession, nil
		case "a", "always":
			return inbox.ActionAccept, inbox.ScopeAlways, nil
		case "n", "no", "d", "deny", "decline":
			return inbox.ActionDecline, "", nil
		}
		fmt.Fprintln(p.out, "  Type y, s, a or n.")
	}
}

func (p *prompter) choose(prompt string) (string, error) {
	for {
		s, err := p.line(prompt)
		if err != nil {
			return "", err
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "y", "yes", "a", "accept", "":
			return inbox.ActionAccept, nil
		case "n", "no", "d", "decline":
			return inbox.ActionDecline, nil
		case "c", "cancel":
			return inbox.ActionCancel, nil
		}
		fmt.Fprintln(p.out, "  Type y, n or c.")
	}
}

// field asks for one field until its value is valid (or left out, when
// that is allowed), and puts it in content.
func (p *prompter) field(f inbox.Field, content map[string]any) error {
	prompt := fieldPrompt(f, p.out)
	for {
		var s string
		var err error
		if f.Secret {
			s, err = p.secret(prompt)
		} else {
			s, err = p.line(prompt)
		}
		if err != nil {
			return err
		}
		if s == "" {
			if f.HasDefault || !f.Required {
				return nil // the default, or left out
			}
			fmt.Fprintln(p.out, "  This field is required.")
			continue
		}
		var v any = s
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && f.Options != nil && f.Type != "array" && n >= 1 && n <= len(f.Options) {
			v = f.Options[n-1].Value
		}
		if f.Type == "array" && f.Options != nil {
			v = pickByNumber(s, f.Options)
		}
		pv, err := f.Parse(v)
		if err != nil {
			fmt.Fprintf(p.out, "  %s\n", oneLine(err.Error()))
			continue
		}
		content[f.Name] = pv
		return nil
	}
}

// pickByNumber maps "1, 3" to the options' values; other items stay.
func pickByNumber(s string, opts []inbox.Option) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if n, err := strconv.Atoi(item); err == nil && n >= 1 && n <= len(opts) {
			item = opts[n-1].Value
		}
		out = append(out, item)
	}
	return out
}

// fieldPrompt prints a select's choices and returns the prompt line: the
// label, type hints, and the default.
func fieldPrompt(f inbox.Field, out io.Writer) string {
	var hints []string
	switch f.Type {
	case "string":
		switch f.Format {
		case "email":
			hints = append(hints, "email address")
		case "uri":
			hints = append(hints, "URI")
		case "date":
			hints = append(hints, "date, like 2026-07-03")
		case "date-time":
			hints = append(hints, "date and time, like 2026-07-03T14:30:00Z")
		}
		if f.MinLength != nil || f.MaxLength != nil {
			hints = append(hints, lengthHint(f.MinLength, f.MaxLength))
		}
	case "number", "integer":
		h := "number"
		if f.Type == "integer" {
			h = "whole number"
		}
		if f.Minimum != nil || f.Maximum != nil {
			h += " " + rangeHint(f.Minimum, f.Maximum)
		}
		hints = append(hints, h)
	case "boolean":
		hints = append(hints, "y/n")
	case "array":
		h := "comma-separated numbers or values"
		if f.MinItems != nil || f.MaxItems != nil {
			h += ", " + countHint(f.MinItems, f.MaxItems)
		}
		hints = append(hints, h)
	}
	if f.Options != nil {
		fmt.Fprintf(out, "  %s:\n", oneLine(f.Label()))
		for i, o := range f.Options {
			if o.Title != "" && o.Title != o.Value {
				fmt.Fprintf(out, "    %d) %s (%s)\n", i+1, oneLine(o.Title), oneLine(o.Value))
			} else {
				fmt.Fprintf(out, "    %d) %s\n", i+1, oneLine(o.Value))
			}
		}
		if f.Type != "array" {
			hints = append(hints, "a number or a value")
		}
	}
	if f.Secret {
		hints = append(hints, "secret, not shown")
	}
	if f.Required {
		hints = append(hints, "required")
	}
	prompt := "  " + oneLine(f.Label())
	if f.Description != "" {
		prompt = indent(f.Description) + "\n" + prompt
	}
	if len(hints) > 0 {
		prompt += " (" + strings.Join(hints, "; ") + ")"
	}
	switch {
	case f.HasDefault && f.Secret:
		prompt += " [Enter keeps the default]"
	case f.HasDefault:
		prompt += " [" + oneLine(showDefault(f.Default)) + "]"
	case !f.Required:
		prompt += " [Enter skips]"
	}
	return prompt + ": "
}

// indent is a server's text (escapeText) with every line indented by two
// spaces, so that none of it passes for a line of mcptray's own.
func indent(s string) string {
	return "  " + strings.ReplaceAll(escapeText(strings.TrimRight(s, "\n")), "\n", "\n  ")
}

func showDefault(v any) string {
	switch d := v.(type) {
	case []any:
		parts := make([]string, len(d))
		for i, x := range d {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, ", ")
	case bool:
		if d {
			return "y"
		}
		return "n"
	}
	return fmt.Sprint(v)
}

func lengthHint(min, max *int) string {
	switch {
	case min != nil && max != nil:
		return fmt.Sprintf("%d to %d characters", *min, *max)
	case min != nil:
		return fmt.Sprintf("at least %d characters", *min)
	}
	return fmt.Sprintf("at most %d characters", *max)
}

func countHint(min, max *int) string {
	switch {
	case min != nil && max != nil:
		return fmt.Sprintf("%d to %d", *min, *max)
	case min != nil:
		return fmt.Sprintf("at least %d", *min)
	}
	return fmt.Sprintf("at most %d", *max)
}

func rangeHint(min, max *float64) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch {
	case min != nil && max != nil:
		return f(*min) + " to " + f(*max)
	case min != nil:
		return "from " + f(*min)
	}
	return "up to " + f(*max)
}
