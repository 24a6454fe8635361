// Package mcptest holds fake MCP servers for tests. A test binary becomes
// one when it is started with MCPTRAY_FAKE_SERVER set: call Main first in
// TestMain, then start os.Args[0] as a server with that variable in its
// environment.
//
// Modes (the value of MCPTRAY_FAKE_SERVER):
//
//	echo         tools echo {message} and add {a,b}; more with
//	             MCPTRAY_FAKE_TOOLS=a,b,c (each returns its own name),
//	             MCPTRAY_FAKE_TOOL_COUNT=N (tool_0000 …) and
//	             MCPTRAY_FAKE_ANNOTATED=1 (read_note, write_note,
//	             delete_note: see AnnotatedEnv; with MCPTRAY_FAKE_NOTES_DIR
//	             delete_note deletes a file there); pages of 100 tools.
//	             MCPTRAY_FAKE_DESC_FILE: echo's description, read at start;
//	             MCPTRAY_FAKE_PROMPTS=p,q adds prompts (see PromptsEnv)
//	banner       prints non-JSON lines on stdout at start and in every echo
//	             call, otherwise echo
//	crash        writes "panic: boom" to stderr and exits 3 at once
//	silent       never answers: reads stdin forever, then sleeps
//	ignore-term  echo that ignores SIGTERM and keeps running after stdin
//	             closes: only SIGKILL ends it
//	grandchild   starts itself in mode sleeper as a child (which inherits
//	             stdio), writes that child's pid to MCPTRAY_FAKE_PIDFILE,
//	             then serves echo
//	sleeper      sleeps forever
//	escaper      starts a sleeper in a session of its own (setsid, so it
//	             leaves the group; no stdio), writes its pid to
//	             MCPTRAY_FAKE_PIDFILE, then serves echo. With
//	             MCPTRAY_FAKE_ORPHAN=1 a child in mode daemonizer starts
//	             the sleeper and exits (a double fork), so the sleeper is
//	             an orphan before the server is ready
//	daemonizer   not a server: starts the setsid'd sleeper, writes its pid,
//	             exits
//	hugeline     prints a 17 MiB line on stdout, then serves echo
//	crlf         echo whose stdout lines end in "\r\n", as a Windows
//	             program's may (see crlf.go)
//	events       echo plus tool emit {count,method} that writes count raw
//	             notifications with that method (default "event/test") on
//	             stdout, params {"n": i, "title": "event i"}; also
//	             emit_async, emit_raw and emit_big (see events.go)
//	stderr-log   echo, and each echo call writes "echo called: MESSAGE" to
//	             stderr and sends notifications/message (info, logger
//	             "fake") "echo: MESSAGE"
//	exit-after   echo, and exits with code 4 after MCPTRAY_FAKE_EXIT_AFTER
//	             (a Go duration)
//	changing     echo plus tool add_tool {name}, which adds a tool (the server
//	             then sends notifications/tools/list_changed)
//	asker, asker-mrtr, unlock, unlock-list
//	             put questions to the client (elicitation): see asker.go
//	leaker       echoes a password it asked for on every channel, in every
//	             JSON spelling: see leaker.go
//	rich         echo plus tools for every gateway feature (rich results,
//	             progress, cancellation, sampling, elicitation, a crash
//	             mid-call, huge results, logging), resources, a resource
//	             template, a prompt with completion: see addRich
//	hostile      a hand-written server that sends what the SDK never
//	             would: duplicate keys in tools/list, invalid UTF-8 in a
//	             result, replies under a wrong id (see hostile.go)
//	listed       lists the tools of MCPTRAY_FAKE_LIST_FILE as written there
//	             (see listed.go)
//	relay        not a server: the smallest stdio relay in Go (io.Copy both
//	             ways) in front of an echo fake it starts (see relay.go)
//	commander    echo plus tool run {argv, env, detach, clearEnv}: runs a
//	             command line as its child, or as a setsid'd orphan
//	detacher, orphan
//	             not servers: start that orphan (see commander.go)
//	poster       not a server: one HTTP request over a unix socket
//
// MCPTRAY_FAKE_MARK, when set, is written to stderr as "mark: VALUE" at start.
//
// NewServer gives the same servers in-process, e.g. behind an HTTP handler.
//
// The tests of mcp and mcp/downstream start these fakes through one
// harness (harness.go): Marker puts an instance id in a fake's
// environment, StartFake starts it and checks at cleanup that no process
// with that id is left (MarkedPids), and Log records what its session logs.
// The harness runs in the test's goroutines and starts none of its own.
// The hand-written modes (hostile, laggard) share one JSON-RPC loop,
// serveRaw (rawserver.go), which runs on the fake's main goroutine.
//
// The fakes build for Windows: what detaches starts its child with
// DETACHED_PROCESS and a process group of its own instead of setsid
// (detach_windows.go; it stays in its server's Job Object), and the
// laggard's hold gets no SIGUSR1 there. Package fakeserver is the fakes as
// a program of their own (echo by default), for end-to-end tests that need
// a server binary.
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcptray/mcptray/mcp/stdioserver"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Environment variables the fakes read.
const (
	ModeEnv  = "MCPTRAY_FAKE_SERVER"
	ToolsEnv = "MCPTRAY_FAKE_TOOLS"
	// PromptsEnv=a,b adds prompts a and b: each is described by, and
	// answers with, its own name.
	PromptsEnv   = "MCPTRAY_FAKE_PROMPTS"
	ToolCountEnv = "MCPTRAY_FAKE_TOOL_COUNT"
	PidFileEnv   = "MCPTRAY_FAKE_PIDFILE"
	ExitAfterEnv = "MCPTRAY_FAKE_EXIT_AFTER"
	MarkEnv      = "MCPTRAY_FAKE_MARK"
	// AnnotatedEnv=1 adds tools with annotations: read_note (read-only,
	// idempotent), write_note (none) and delete_note (destructive), each
	// returning "NAME: ARGS" (ARGS its arguments as JSON).
	AnnotatedEnv = "MCPTRAY_FAKE_ANNOTATED"
	// NotesDirEnv names a folder that delete_note really deletes from:
	// a call with {"id": "N"} removes the file N there, so a test sees
	// whether the call ran.
	NotesDirEnv = "MCPTRAY_FAKE_NOTES_DIR"
	// DescFileEnv names a file whose text (read at start) is echo's
	// description: a server whose tool changes after a restart.
	DescFileEnv = "MCPTRAY_FAKE_DESC_FILE"
	OrphanEnv   = "MCPTRAY_FAKE_ORPHAN"
)

// PageSize is how many tools the fakes list per page.
const PageSize = 100

// Main runs a fake MCP server and exits if MCPTRAY_FAKE_SERVER is set;
// otherwise it returns at once. Call it first in TestMain.
func Main() {
	mode := os.Getenv(ModeEnv)
	if mode == "" || os.Getenv("MCPTRAY_WATCHDOG") == "1" {
		return
	}
	if mark := os.Getenv(MarkEnv); mark != "" {
		fmt.Fprintf(os.Stderr, "mark: %s\n", mark)
	}
	os.Exit(run(mode))
}

// Env returns the environment for a fake in mode: ours, with the mode set
// (and any earlier fake settings removed), plus extra KEY=VALUE entries.
//
// It also sets GORACE=atexit_sleep_ms=0: a binary built with -race
// otherwise sleeps a second on every exit, which would make each fake
// outlive a short stop grace.
func Env(mode string, extra ...string) []string {
	env := []string{}
	gorace := ""
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "MCPTRAY_FAKE_"), strings.HasPrefix(kv, "MCPTRAY_WATCHDOG="):
		case strings.HasPrefix(kv, "GORACE="):
			gorace = strings.TrimPrefix(kv, "GORACE=") + " "
		default:
			env = append(env, kv)
		}
	}
	env = append(env, "GORACE="+gorace+"atexit_sleep_ms=0", ModeEnv+"="+mode)
	return append(env, extra...)
}

func run(mode string) int {
	if code, ok := runAsker(mode); ok {
		return code
	}
	if code, ok := runNewWire(mode); ok { // newwire.go
		return code
	}
	switch mode {
	case "relay":
		return runRelay()
	case "detacher":
		return runDetacher()
	case "poster":
		return runPoster()
	case "orphan":
		return runOrphan()
	case "hostile":
		return runHostile()
	case "crlf":
		return runCRLF()
	case "laggard":
		return runLaggard()
	case "listed":
		return runListed()
	case "crash":
		fmt.Fprintln(os.Stderr, "panic: boom")
		return 3
	case "silent":
		io.Copy(io.Discard, os.Stdin)
		sleepForever()
	case "sleeper":
		sleepForever()
	case "hugeline":
		line := make([]byte, 17<<20)
		for i := range line {
			line[i] = 'x'
		}
		line[len(line)-1] = '\n'
		os.Stdout.Write(line)
	case "banner":
		fmt.Println("Welcome to the fake server!")
		fmt.Println("== listening on stdio ==")
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
	case "grandchild":
		if err := startGrandchild(); err != nil {
			fmt.Fprintln(os.Stderr, "grandchild:", err)
			return 1
		}
	case "escaper":
		if err := startEscapee(); err != nil {
			fmt.Fprintln(os.Stderr, "escaper:", err)
			return 1
		}
	case "daemonizer":
		if err := startSetsidSleeper(); err != nil {
			fmt.Fprintln(os.Stderr, "daemonizer:", err)
			return 1
		}
		return 0
	case "exit-after":
		d, err := time.ParseDuration(os.Getenv(ExitAfterEnv))
		if err != nil {
			fmt.Fprintln(os.Stderr, "exit-after:", err)
			return 1
		}
		time.AfterFunc(d, func() { os.Exit(4) })
	case "echo", "events", "stderr-log", "changing", "rich", "commander":
	default:
		fmt.Fprintf(os.Stderr, "unknown fake server mode %q\n", mode)
		return 2
	}
	if addr := os.Getenv(HTTPEnv); addr != "" {
		return serveHTTP(mode, addr)
	}
	err := NewServer(mode).Run(context.Background(), stdioserver.Transport())
	if mode == "ignore-term" {
		sleepForever()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "serving:", err)
		return 1
	}
	return 0
}

func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// startGrandchild re-executes this binary as a sleeper that shares our
// stdio, like npx's node child, and records its pid.
func startGrandchild() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe)
	cmd.Env = Env("sleeper")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	return writePidFile(cmd.Process.Pid)
}

// startEscapee starts a sleeper that leaves our process group, as a
// daemonizing helper does: directly, or (MCPTRAY_FAKE_ORPHAN=1) through a
// child that exits once the sleeper runs.
func startEscapee() error {
	if os.Getenv(OrphanEnv) != "1" {
		return startSetsidSleeper()
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe)
	cmd.Env = Env("daemonizer", PidFileEnv+"="+os.Getenv(PidFileEnv))
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("daemonizer: %w", err)
	}
	return nil
}

// startSetsidSleeper starts a sleeper in a new session, holding none of
// our stdio, records its pid and leaves it running.
func startSetsidSleeper() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe)
	cmd.Env = Env("sleeper")
	cmd.SysProcAttr = detachedAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	return writePidFile(cmd.Process.Pid)
}

// writePidFile writes pid to MCPTRAY_FAKE_PIDFILE, if set, atomically.
func writePidFile(pid int) error {
	path := os.Getenv(PidFileEnv)
	if path == "" {
		return nil
	}
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(pid)), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

type echoArgs struct {
	Message string `json:"message"`
}

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type emitArgs struct {
	Count  int    `json:"count"`
	Method string `json:"method,omitempty"`
}

// stdoutMu serialises the raw lines the fakes write on stdout themselves.
var stdoutMu sync.Mutex

func rawLine(s string) {
	stdoutMu.Lock()
	defer stdoutMu.Unlock()
	os.Stdout.WriteString(s + "\n")
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

type addToolArgs struct {
	Name string `json:"name"`
}

// NewServer returns the fake server of a mode (its tools; the process
// behaviour of modes like crash or silent is Main's).
func NewServer(mode string) *sdk.Server {
	opts := &sdk.ServerOptions{PageSize: PageSize}
	if mode == "rich" {
		richOptions(opts)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "fake-" + mode, Version: "1.0.0"}, opts)
	if mode == "rich" {
		addRich(s)
	}
	echoDesc := "Echoes its message."
	if f := os.Getenv(DescFileEnv); f != "" {
		if b, err := os.ReadFile(f); err == nil {
			echoDesc = strings.TrimSpace(string(b))
		}
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: echoDesc, Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest, in echoArgs) (*sdk.CallToolResult, any, error) {
			switch mode {
			case "banner":
				rawLine("echo was called (a stray stdout line)")
			case "stderr-log":
				fmt.Fprintf(os.Stderr, "echo called: %s\n", in.Message)
				req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Logger: "fake", Data: "echo: " + in.Message})
			}
			return text(in.Message), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Adds a and b.", Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest, in addArgs) (*sdk.CallToolResult, any, error) {
			return text(strconv.FormatFloat(in.A+in.B, 'f', -1, 64)), nil, nil
		})
	if mode == "events" {
		sdk.AddTool(s, &sdk.Tool{Name: "emit", Description: "Writes count raw notifications on stdout.", Annotations: notDestructive()},
			func(ctx context.Context, req *sdk.CallToolRequest, in emitArgs) (*sdk.CallToolResult, any, error) {
				method := in.Method
				if method == "" {
					method = "event/test"
				}
				for i := range in.Count {
					rawLine(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":{"n":%d,"title":"event %d"}}`, method, i, i))
				}
				return text(fmt.Sprintf("emitted %d", in.Count)), nil, nil
			})
		addEventTools(s)
	}
	if mode == "commander" {
		addCommander(s)
	}
	if mode == "changing" {
		sdk.AddTool(s, &sdk.Tool{Name: "add_tool", Description: "Adds a tool named name.", Annotations: notDestructive()},
			func(ctx context.Context, req *sdk.CallToolRequest, in addToolArgs) (*sdk.CallToolResult, any, error) {
				addNamed(s, in.Name)
				return text("added " + in.Name), nil, nil
			})
	}
	if os.Getenv(AnnotatedEnv) == "1" {
		addAnnotated(s)
	}
	var extra []string
	for name := range strings.SplitSeq(os.Getenv(ToolsEnv), ",") {
		if name = strings.TrimSpace(name); name != "" {
			extra = append(extra, name)
		}
	}
	if n, _ := strconv.Atoi(os.Getenv(ToolCountEnv)); n > 0 {
		for i := range n {
			extra = append(extra, fmt.Sprintf("tool_%04d", i))
		}
	}
	for _, name := range extra {
		addNamed(s, name)
	}
	for name := range strings.SplitSeq(os.Getenv(PromptsEnv), ",") {
		if name = strings.TrimSpace(name); name != "" {
			addNamedPrompt(s, name)
		}
	}
	return s
}

// notDestructive is the annotation of the fakes' tools (all but
// AnnotatedEnv's): destructiveHint false, so that they run without a
// question under the default approve "destructive", where a tool that says
// nothing asks (the MCP spec's defaults).
func notDestructive() *sdk.ToolAnnotations {
	no := false
	return &sdk.ToolAnnotations{DestructiveHint: &no}
}

// rawNotDestructive is notDestructive for the fakes that write their
// tools/list by hand.
var rawNotDestructive = map[string]any{"destructiveHint": false}

// addAnnotated adds the tools of AnnotatedEnv; write_note says nothing.
func addAnnotated(s *sdk.Server) {
	yes, no := true, false
	for _, t := range []*sdk.Tool{
		{Name: "read_note", Title: "Read a note", Description: "Reads a note.\nMore text.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}},
		{Name: "write_note", Description: "Writes a note."},
		{Name: "delete_note", Description: "Deletes a note.", Annotations: &sdk.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &yes}},
	} {
		t.InputSchema = map[string]any{"type": "object"}
		name := t.Name
		s.AddTool(t, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if dir := os.Getenv(NotesDirEnv); dir != "" && name == "delete_note" {
				var a struct {
					ID string `json:"id"`
				}
				json.Unmarshal(req.Params.Arguments, &a)
				if a.ID == "" || strings.ContainsAny(a.ID, `/\`) {
					return nil, fmt.Errorf("delete_note: want {\"id\": \"NAME\"}")
				}
				if err := os.Remove(filepath.Join(dir, a.ID)); err != nil {
					return nil, err
				}
			}
			return text(name + ": " + string(req.Params.Arguments)), nil
		})
	}
}

// addNamed adds a tool that returns its own name.
func addNamed(s *sdk.Server, name string) {
	s.AddTool(&sdk.Tool{Name: name, Description: "Returns its own name.", InputSchema: map[string]any{"type": "object"}, Annotations: notDestructive()},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(name), nil
		})
}

// addNamedPrompt adds a prompt described by, and answering with, its name.
func addNamedPrompt(s *sdk.Server, name string) {
	s.AddPrompt(&sdk.Prompt{Name: name, Description: name},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: name}}}}, nil
		})
}

var jsonUnmarshal = json.Unmarshal
