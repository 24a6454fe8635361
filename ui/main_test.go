package ui

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/remote"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// Environment of the test binary when the desktop-session tests re-execute
// it as the real app: the real core on these paths and ui.Run (GL driver,
// tray over D-Bus), like `mcptray run --config F --data D`.
const (
	childEnv       = "MCPTRAY_UI_TEST_CHILD" // "1": be the app
	childDozeEnv   = "MCPTRAY_UI_TEST_DOZE"  // "as-shipped": the app's doze keeps its real limit
	childConfigEnv = "MCPTRAY_UI_TEST_CONFIG"
	childDataEnv   = "MCPTRAY_UI_TEST_DATA"
	childBusyEnv   = "MCPTRAY_UI_TEST_BUSY_MAIN" // "1": a goroutine queues for the main goroutine without pause
	// "1": the window and the popup in the app's own process, as before
	// issue 31 (BenchmarkWindowOpen compares).
	childInProcessEnv = "MCPTRAY_UI_TEST_IN_PROCESS"
)

// childDone is what the child prints once Run has returned.
const childDone = "ui.Run returned: "

// startEnv is the environment the tests started with, before TestMain
// moved HOME: a go command run by a test finds the build and module
// caches there.
var startEnv []string

// TestMain makes this test binary, besides the tests: the watchdog and the
// fake MCP servers the real core starts, and (childEnv) the app itself.
func TestMain(m *testing.M) {
	downstream.RunWatchdogIfRequested()
	mcptest.Main()
	if os.Getenv(childEnv) == "1" {
		if len(os.Args) > 1 && (os.Args[1] == "window" || os.Args[1] == "popup") {
			os.Exit(runWindowChild(os.Args[1], os.Args[2:]))
		}
		os.Exit(runChild())
	}
	startEnv = os.Environ()
	// Fyne writes preferences and font caches under HOME.
	home, err := os.MkdirTemp("", "mcptray-ui-test-home")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"} {
		os.Unsetenv(v)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// runChild runs the real core and ui.Run on the main goroutine, as
// main.cmdRun does.
func runChild() int {
	downstream.ReleaseHugeCodeMappings() // as main does for the tray app
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1) // as main does for run (cli/lean.go)
	}
	// A doze that nothing of ours ends lasts the whole test: a path that
	// needs the main goroutine and forgets to wake Fyne's loop hangs.
	if os.Getenv(childDozeEnv) != "as-shipped" {
		dozeMax = time.Hour
	}
	reportDozing()
	notes := NewNotifier()
	core, err := app.New(app.Options{ConfigPath: os.Getenv(childConfigEnv), DataDir: os.Getenv(childDataEnv), Notifier: notes})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer core.Close()
	// As main does: SIGTERM and SIGINT end the core and, through ctx, the UI.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- core.Run(ctx) }()
	ran := make(chan struct{})
	if os.Getenv(childBusyEnv) == "1" {
		// As a flood of updates would: queueing for the main goroutine
		// while the app quits must not race Fyne's loop ending. Each
		// goroutine queues its next function as soon as the last one has
		// run: the queue is never empty, yet never grows (Fyne's is
		// unbounded: queued without pause, a slow machine piled up more
		// than the loop could run before the quit, queued behind them).
		for range 4 {
			go func() {
				for {
					done := make(chan struct{})
					onMain(func() { close(done) })
					select {
					case <-done:
					case <-ran:
						return
					}
				}
			}()
		}
	}
	// The window and the popup are this test binary again (TestMain:
	// runWindowChild), as they are mcptray's window and popup commands.
	children := func(kind string, args ...string) *exec.Cmd {
		return exec.Command(os.Args[0], append([]string{kind}, args...)...)
	}
	o := RunOptions{Notes: notes, Children: children, Raise: core.RaiseWindow, Own: core.OwnWindowProcess}
	if os.Getenv(childInProcessEnv) == "1" {
		o.Children, o.SSH = nil, &fakeSSH{list: []SSHAlias{prodAlias()}}
	}
	err = Run(ctx, core, o)
	close(ran)
	cancel()
	coreErr := <-done
	fmt.Printf("%s%v\n", childDone, err)
	if err != nil || coreErr != nil {
		fmt.Fprintln(os.Stderr, "core:", coreErr)
		return 1
	}
	return 0
}

// runWindowChild is the child's window or popup (kind), as `mcptray
// window ARGS` and `mcptray popup` run them, over the child's core.
func runWindowChild(kind string, args []string) int {
	f := flag.NewFlagSet(kind, flag.ContinueOnError)
	var o WindowOptions
	f.StringVar(&o.Tab, "tab", "", "")
	f.StringVar(&o.NeedAccount, "need-account", "", "")
	f.StringVar(&o.NoTray, "no-tray", "", "")
	wait := f.Duration("wait", 0, "")
	if err := f.Parse(args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	var core *remote.Core
	var err error
	for deadline := time.Now().Add(*wait); ; time.Sleep(50 * time.Millisecond) { // as cli's dialWait
		core, err = remote.Dial(ctx, os.Getenv(childConfigEnv), os.Getenv(childDataEnv), slog.Default())
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, kind+":", err)
		return 1
	}
	defer core.Close()
	if kind == "popup" {
		err = RunPopup(ctx, core)
	} else {
		o.SSH = &fakeSSH{list: []SSHAlias{prodAlias()}} // the SSH tab shows one alias
		err = RunWindow(ctx, core, o)
	}
	fmt.Printf("%s returned: %v\n", kind, err)

	if err != nil {
		return 1
	}
	return 0
}
