//go:build linux

package downstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/mcptest"
	"github.com/mcptray/mcptray/mcp/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func resultText(t *testing.T, res *CallToolResult) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool returned an error: %+v", res.Content)
	}
	if len(res.Content) != 1 {
		t.Fatalf("want one content block, got %d", len(res.Content))
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T", res.Content[0])
	}
	return tc.Text
}

func TestHandshakeListsAllPages(t *testing.T) {
	f := startFake(t, "echo", Hooks{}, withEnv(mcptest.ToolCountEnv+"=250", mcptest.ToolsEnv+"=alpha,beta"))
	tools := f.Tools()
	if len(tools) != 254 {
		t.Fatalf("got %d tools, want 254 (echo, add, 2 named, 250 counted; pages of %d)", len(tools), mcptest.PageSize)
	}
	seen := map[string]bool{}
	for _, tool := range tools {
		if seen[tool.Name] {
			t.Errorf("tool %q listed twice", tool.Name)
		}
		seen[tool.Name] = true
	}
	for _, name := range []string{"echo", "add", "alpha", "beta", "tool_0000", "tool_0249"} {
		if !seen[name] {
			t.Errorf("tool %q missing", name)
		}
	}
	if f.PID() <= 1 || f.PGID() != f.PID() {
		t.Errorf("PID %d, PGID %d: want a process group led by the server", f.PID(), f.PGID())
	}

	ctx := context.Background()
	res, err := f.CallTool(ctx, "echo", map[string]any{"message": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "hi" {
		t.Errorf("echo: got %q", got)
	}
	res, err = f.CallTool(ctx, "add", map[string]any{"a": 2, "b": 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "5" {
		t.Errorf("add: got %q", got)
	}

	again, err := f.ListTools(ctx)
	if err != nil || len(again) != 254 {
		t.Fatalf("ListTools again: %d tools, %v", len(again), err)
	}

	select {
	case <-f.Done():
		t.Fatal("Done before Close")
	default:
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if f.ExitReason() != "stopped" || f.ExitCode() != 0 {
		t.Errorf("after Close: reason %q, code %d; want stopped, 0 (it exits on stdin EOF)", f.ExitReason(), f.ExitCode())
	}
	if _, err := f.CallTool(ctx, "echo", map[string]any{"message": "late"}); err == nil {
		t.Error("CallTool after Close succeeded")
	}
}

func TestBannerLinesAreLoggedAndSessionSurvives(t *testing.T) {
	f := startFake(t, "banner", Hooks{})
	f.log.Wait(t, "stdout|Welcome to the fake server!")
	f.log.Wait(t, "stdout|== listening on stdio ==")
	res, err := f.CallTool(context.Background(), "echo", map[string]any{"message": "still here"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "still here" {
		t.Errorf("echo: got %q", got)
	}
	f.log.Wait(t, "stdout|echo was called (a stray stdout line)")
}

func TestHugeLineIsDiscardedAndSessionSurvives(t *testing.T) {
	f := startFake(t, "hugeline", Hooks{})
	f.log.Wait(t, fmt.Sprintf("stdout|line over 16 MiB discarded (%d bytes)", 17<<20-1))
	res, err := f.CallTool(context.Background(), "echo", map[string]any{"message": "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "ok" {
		t.Errorf("echo: got %q", got)
	}
}

func TestCrashBeforeInitializeSaysHow(t *testing.T) {
	spec, marker := fakeSpec("crash")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Start(ctx, spec, Hooks{})
	if err == nil {
		t.Fatal("Start succeeded")
	}
	if want := "exited with code 3 before initialize: panic: boom"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if pids := mcptest.MarkedPids(marker); len(pids) > 0 {
		t.Errorf("processes left: %v", pids)
	}
}

// A server that prints a password input on stderr and dies before
// initialize: the start error (the status's error, the server_runs reason)
// shows its last line, redacted like its log.
func TestStartErrorRedactsSecrets(t *testing.T) {
	const secret = "s3cr3t-input-value"
	var logged []string
	var mu sync.Mutex
	spec := StdioSpec{
		Command: "sh",
		Args:    []string{"-c", `echo "logging in with $NOTES_KEY" >&2; exit 1`},
		Env:     append(os.Environ(), "NOTES_KEY="+secret),
		Secrets: []string{secret},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Start(ctx, spec, Hooks{Log: func(kind, line string) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, line)
	}})
	if err == nil {
		t.Fatal("Start succeeded")
	}
	if msg := err.Error(); strings.Contains(msg, secret) || !strings.Contains(msg, "logging in with [redacted]") {
		t.Errorf("error %q, want the last stderr line with the secret redacted", strings.ReplaceAll(msg, secret, "<the secret>"))
	}
	mu.Lock()
	defer mu.Unlock()
	for _, l := range logged {
		if strings.Contains(l, secret) {
			t.Errorf("the secret in a log line: %q", strings.ReplaceAll(l, secret, "<the secret>"))
		}
	}
}

func TestSilentServerTimesOutAndIsKilled(t *testing.T) {
	spec, marker := fakeSpec("silent", withEnv(mcptest.MarkEnv+"=gen7"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	begun := time.Now()
	_, err := Start(ctx, spec, Hooks{})
	if err == nil {
		t.Fatal("Start succeeded")
	}
	if want := "no answer to initialize within 1s (last stderr line: mark: gen7)"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error does not wrap context.DeadlineExceeded: %v", err)
	}
	if d := time.Since(begun); d > 5*time.Second {
		t.Errorf("Start took %s after a 1s deadline", d)
	}
	if pids := mcptest.MarkedPids(marker); len(pids) > 0 {
		t.Errorf("processes left: %v", pids)
	}
}

func TestCloseEscalatesToSIGKILL(t *testing.T) {
	f := startFake(t, "ignore-term", Hooks{}, func(s *StdioSpec) {
		s.StopGrace, s.TermGrace = 200*time.Millisecond, 300*time.Millisecond
	})
	begun := time.Now()
	f.Close()
	took := time.Since(begun)
	if took < 500*time.Millisecond {
		t.Errorf("Close took %s; it should have waited StopGrace+TermGrace before SIGKILL", took)
	}
	if f.ExitReason() != "stopped" || f.ExitCode() != -1 {
		t.Errorf("reason %q, code %d; want stopped, -1", f.ExitReason(), f.ExitCode())
	}
	if !processGone(f.PID()) {
		t.Errorf("server %d still runs after Close", f.PID())
	}
}

func TestCloseKillsGrandchildren(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "grandchild.pid")
	f := startFake(t, "grandchild", Hooks{}, withEnv(mcptest.PidFileEnv+"="+pidfile))
	gc := readPidFile(t, pidfile)
	if processGone(gc) {
		t.Fatalf("grandchild %d not running", gc)
	}
	f.Close()
	waitGone(t, "grandchild", gc)
}

// TestCloseKillsSetsidDescendants: Close also kills a descendant that
// left the group with setsid(), whether still the server's child or an
// orphan of a double fork (this test binary is no subreaper, so the
// orphan belongs to init and only its serverEnv marker ties it to the
// server). Close returns only once it is gone.
func TestCloseKillsSetsidDescendants(t *testing.T) {
	for _, orphan := range []string{"0", "1"} {
		pidfile := filepath.Join(t.TempDir(), "escapee.pid")
		f := startFake(t, "escaper", Hooks{}, withEnv(mcptest.PidFileEnv+"="+pidfile, mcptest.OrphanEnv+"="+orphan))
		pid := readPidFile(t, pidfile)
		t.Cleanup(func() {
			if !processGone(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		if st, err := readProcStat(pid); err != nil || processGone(pid) || st.pgrp == f.PGID() {
			t.Fatalf("orphan=%s: escapee %d: %+v, %v; want it alive outside group %d", orphan, pid, st, err, f.PGID())
		}
		f.Close()
		if !processGone(pid) {
			t.Errorf("orphan=%s: the setsid'd escapee %d still runs after Close", orphan, pid)
		}
	}
}

func TestServerExitEndsSession(t *testing.T) {
	f := startFake(t, "exit-after", Hooks{}, withEnv(mcptest.ExitAfterEnv+"=300ms"))
	select {
	case <-f.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done not closed after the server exited")
	}
	if f.ExitReason() != "exited with code 4" || f.ExitCode() != 4 {
		t.Errorf("reason %q, code %d; want exited with code 4, 4", f.ExitReason(), f.ExitCode())
	}
	_, err := f.CallTool(context.Background(), "echo", map[string]any{"message": "x"})
	if !errors.Is(err, ErrClosed) || err.Error() != "session closed (exited with code 4)" {
		t.Errorf("CallTool on an ended session: %v; want session closed (exited with code 4)", err)
	}
	f.Close() // after Done: returns at once
	if f.ExitReason() != "exited with code 4" {
		t.Errorf("Close after Done changed the reason to %q", f.ExitReason())
	}
}

func TestCommandErrors(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "not-exec")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		spec StdioSpec
		want string
	}{
		{"missing", StdioSpec{Command: "mcptray-no-such-server"}, `command "mcptray-no-such-server" not found in PATH ` + os.Getenv("PATH") +
			"; give its absolute path in mcp.json, as `mcptray setup` does (`command -v mcptray-no-such-server` in a terminal prints it), " +
			"or see the servers' PATH in `mcptray status --json`"},
		{"not in Env's PATH", StdioSpec{Command: "sh", Env: []string{"PATH=" + dir}}, `command "sh" not found in PATH ` + dir +
			"; give its absolute path in mcp.json, as `mcptray setup` does (`command -v sh` in a terminal prints it), " +
			"or see the servers' PATH in `mcptray status --json`"},
		{"not executable", StdioSpec{Command: notExec}, fmt.Sprintf("command %q: not executable", notExec)},
		{"no such file", StdioSpec{Command: "./nope"}, `command "./nope": no such file`},
		{"empty", StdioSpec{}, "no command"},
		{"bad dir", StdioSpec{Command: os.Args[0], Dir: filepath.Join(dir, "gone")}, fmt.Sprintf("working directory %q: no such file or directory", filepath.Join(dir, "gone"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Start(ctx, tc.spec, Hooks{})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCommandFromEnvPATH(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(os.Args[0], filepath.Join(dir, "fake-mcp-server")); err != nil {
		t.Fatal(err)
	}
	startFake(t, "echo", Hooks{}, func(s *StdioSpec) {
		s.Command = "fake-mcp-server"
		s.Env = append(s.Env, "PATH="+dir)
	})
}

func TestEventsGoToHook(t *testing.T) {
	type event struct {
		method string
		params json.RawMessage
	}
	var mu sync.Mutex
	var events []event
	f := startFake(t, "events", Hooks{Event: func(method string, params json.RawMessage) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, event{method, params})
	}})
	res, err := f.CallTool(context.Background(), "emit", map[string]any{"count": 3, "method": "event/new_email"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "emitted 3" {
		t.Errorf("emit: got %q", got)
	}
	// The events were written before the result, on the same stream.
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 3 {
		t.Fatalf("got %d events, want 3", len(events))
	}
	for i, e := range events {
		if e.method != "event/new_email" {
			t.Errorf("event %d: method %q", i, e.method)
		}
		if want := fmt.Sprintf(`{"n":%d,"title":"event %d"}`, i, i); string(e.params) != want {
			t.Errorf("event %d: params %s, want %s", i, e.params, want)
		}
	}
}

func TestStderrAndLogNotifications(t *testing.T) {
	f := startFake(t, "stderr-log", Hooks{}, withEnv(mcptest.MarkEnv+"=gen2"))
	f.log.Wait(t, "stderr|mark: gen2")
	if _, err := f.CallTool(context.Background(), "echo", map[string]any{"message": "hi"}); err != nil {
		t.Fatal(err)
	}
	f.log.Wait(t, "stderr|echo called: hi")
	f.log.Wait(t, "info|fake: echo: hi")
}

func TestToolsChangedHook(t *testing.T) {
	// The hook re-lists from inside the SDK's notification handler, as the
	// supervisor does: that must not deadlock.
	var sess atomic.Pointer[Session]
	listed := make(chan int, 10)
	f := startFake(t, "changing", Hooks{ToolsChanged: func() {
		tools, err := sess.Load().ListTools(context.Background())
		if err != nil {
			t.Errorf("ListTools in ToolsChanged: %v", err)
		}
		listed <- len(tools)
	}})
	sess.Store(f.Session)
	if n := len(f.Tools()); n != 3 {
		t.Fatalf("%d tools at start, want 3", n)
	}
	if _, err := f.CallTool(context.Background(), "add_tool", map[string]any{"name": "fresh"}); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-listed:
		if n != 4 || len(f.Tools()) != 4 {
			t.Errorf("after add_tool: ListTools %d, Tools %d; want 4", n, len(f.Tools()))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ToolsChanged not called")
	}
}

func TestCloseConcurrentWithDone(t *testing.T) {
	f := startFake(t, "echo", Hooks{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { f.Close() })
	}
	wg.Go(func() { <-f.Done() })
	wg.Wait()
	if f.ExitReason() != "stopped" {
		t.Errorf("reason %q", f.ExitReason())
	}
}

func TestStartWithEndedContext(t *testing.T) {
	spec, _ := fakeSpec("echo")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Start(ctx, spec, Hooks{})
	if err == nil || err.Error() != "not started: context canceled" {
		t.Errorf("error %v", err)
	}
}

func TestLogMessageLine(t *testing.T) {
	for _, tc := range []struct {
		p    sdk.LoggingMessageParams
		want string
	}{
		{sdk.LoggingMessageParams{Data: "plain"}, "plain"},
		{sdk.LoggingMessageParams{Data: "two\nlines", Logger: "db"}, `db: two\nlines`},
		{sdk.LoggingMessageParams{Data: map[string]any{"k": 1}}, `{"k":1}`},
		{sdk.LoggingMessageParams{Data: nil, Logger: "x"}, "x: "},
	} {
		if got := logMessageLine(&tc.p); got != tc.want {
			t.Errorf("logMessageLine(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
	long := strings.Repeat("é", wire.MaxLogLineBytes)
	if got := logMessageLine(&sdk.LoggingMessageParams{Data: long}); len(got) > wire.MaxLogLineBytes+100 || !strings.HasSuffix(got, fmt.Sprintf("(line truncated, %d bytes)", len(long))) {
		t.Errorf("long line not truncated: %d bytes, ends %q", len(got), got[len(got)-40:])
	}
}
