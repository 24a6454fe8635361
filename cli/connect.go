package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/mcp/exitwait"
)

// startWait is how long `connect` waits for an instance it started.
const startWait = 10 * time.Second

// cmdConnect is what an assistant launches: a stdio MCP server that pipes
// its stdin and stdout to the running instance's gateway, starting the tray
// app (or the daemon, without a display) first if none runs.
//
// SIGTERM or SIGINT (ctx ending) is how an assistant stops a stdio server:
// a normal shutdown, so connect then exits 0 with nothing on stderr.
func cmdConnect(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	err := connect(ctx, args, stdin, stdout)
	if err != nil && ctx.Err() != nil {
		return nil
	}
	return err
}

// connect is cmdConnect but for how a stop by signal ends.
func connect(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	f := newFlags("connect")
	server := f.String("server", "", "`NAME` expose one server, with its own tool names")
	tools := f.String("tools", "", "`live|stable|dynamic` the tool-list mode (default: x-mcptray.tools)")
	if err := parse(f, args, 0); err != nil {
		return err
	}
	switch *tools {
	case "", "live", "stable", "dynamic":
	default:
		return usageError{fmt.Sprintf("--tools must be live, stable or dynamic, got %q", *tools)}
	}
	_, data, err := f.paths()
	if err != nil {
		return err
	}
	cl, err := control.Dial(data)
	if errors.Is(err, control.ErrNotRunning) {
		cl, err = startInstance(ctx, f, data)
	}
	if err != nil {
		return err
	}
	// Hand our stdin and stdout to the instance when we can, so the
	// assistant's pipes lead straight into the gateway; relay otherwise.
	inFile, okIn := stdin.(*os.File)
	outFile, okOut := stdout.(*os.File)
	if okIn && okOut {
		return cl.ServeStdio(ctx, *server, *tools, inFile, outFile)
	}
	conn, err := cl.OpenMCP(ctx, *server, *tools)
	if err != nil {
		return err
	}
	defer conn.Close()
	go func() {
		io.Copy(conn, stdin)
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		} else {
			conn.Close()
		}
	}()
	_, err = io.Copy(stdout, conn)
	return err
}

// startInstance starts mcptray detached (its own session, so it outlives the
// assistant) and waits for its control socket.
func startInstance(ctx context.Context, f *flags, data string) (*control.Client, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	mode := "run"
	if !hasDisplay() {
		mode = "daemon"
	}
	logPath := filepath.Join(data, "mcptray.log")
	args := []string{mode, "--data", data, "--log", logPath}
	if f.config != "" {
		args = append(args, "--config", f.config)
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, err
	}
	// The instance logs to mcptray.log itself, rotating it (--log); its
	// stdout and stderr go there too from the start, for what it prints
	// before it reads its flags.
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting mcptray: %w", err)
	}
	exited := make(chan struct{})
	go func() { exitwait.Wait(cmd); close(exited) }()
	deadline := time.NewTimer(startWait)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if cl, err := control.Dial(data); err == nil {
			return cl, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			return nil, fmt.Errorf("started mcptray, but it did not answer within %s; see %s", startWait, logPath)
		case <-exited:
			exited = nil // it may have lost a race to another instance; keep looking
		case <-tick.C:
		}
	}
}

// cmdToken prints the HTTP endpoint's bearer token (creating it on first use).
func cmdToken(args []string, stdout io.Writer) error {
	f := newFlags("token")
	if err := parse(f, args, 0); err != nil {
		return err
	}
	tok, err := app.Token()
	if err != nil {
		return fmt.Errorf("reading the HTTP token: %w", err)
	}
	fmt.Fprintln(stdout, tok)
	return nil
}
