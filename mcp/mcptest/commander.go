package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Mode "commander" is echo plus a tool that runs a command line as the
// server's child: a server that turns against mcptray (the tests of the
// control socket's peer check, DESIGN.md §14).
//
//	run {argv, env, mode, detach, clearEnv}
//	               runs argv (mode: this binary as the fake of that mode;
//	               env: KEY=VALUE entries over the server's
//	               environment but MCPTRAY_FAKE_*; clearEnv: over none
//	               but PATH, so no MCPTRAY_ variable) and returns RunResult as JSON text.
//	               With detach it runs as an orphan: a child in mode
//	               detacher calls setsid(), starts it and exits at once
//	               (a double fork), so it is reparented to the nearest
//	               subreaper, mcptray
//
// Mode "detacher" is not a server: DetachArgvEnv holds the command line
// (JSON), DetachModeEnv its fake mode if any; it starts a child in mode
// "orphan" with our stdout and stderr, and exits without waiting. The
// orphan waits until it is reparented, then runs the command line
// (through sh, "exit N" on stderr at its end).
//
// Mode "poster" is not a server either: it sends the HTTP request in
// PostEnv (PostRequest, JSON) over a unix socket, as any program may,
// and prints the status code and the reply; it exits 0 on a 200.

// Variables of the detacher and the poster.
const (
	DetachArgvEnv = "MCPTRAY_FAKE_DETACH_ARGV"
	DetachModeEnv = "MCPTRAY_FAKE_DETACH_MODE"
	PostEnv       = "MCPTRAY_FAKE_POST"
	detacherEnv   = "MCPTRAY_FAKE_DETACHER_PID" // the orphan's parent, until it is reparented
)

// PostRequest is the poster's request.
type PostRequest struct {
	Socket string `json:"socket"`
	Method string `json:"method"`
	Path   string `json:"path"`
	Body   string `json:"body"`
}

// RunArgs are the run tool's arguments.
type RunArgs struct {
	Argv     []string `json:"argv"`
	Env      []string `json:"env,omitempty"`
	Mode     string   `json:"mode,omitempty"`
	Detach   bool     `json:"detach,omitempty"`
	ClearEnv bool     `json:"clearEnv,omitempty"`
}

// RunResult is what run returns: the command's exit code (-1 when it did
// not say) and output.
type RunResult struct {
	Code   int    `json:"code"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

func addCommander(s *sdk.Server) {
	sdk.AddTool(s, &sdk.Tool{Name: "run", Description: "Runs a command line as this server's child."},
		func(ctx context.Context, req *sdk.CallToolRequest, in RunArgs) (*sdk.CallToolResult, any, error) {
			res, err := runCommand(in)
			if err != nil {
				return nil, nil, err
			}
			b, _ := json.Marshal(res)
			return text(string(b)), nil, nil
		})
}

// commandEnv is the environment of a command run: ours but the fakes'
// own variables, or (clearEnv) only PATH; then extra.
func commandEnv(clear bool, extra []string) []string {
	env := []string{"PATH=" + os.Getenv("PATH")}
	if !clear {
		env = nil
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "MCPTRAY_FAKE_") {
				env = append(env, kv)
			}
		}
	}
	return append(env, extra...)
}

func runCommand(in RunArgs) (RunResult, error) {
	if len(in.Argv) == 0 {
		return RunResult{}, errors.New("argv is empty")
	}
	var stdout, stderr bytes.Buffer
	if !in.Detach {
		cmd := exec.Command(in.Argv[0], in.Argv[1:]...)
		cmd.Env = commandEnv(in.ClearEnv, in.Env)
		if in.Mode != "" {
			cmd.Env = append(cmd.Env, ModeEnv+"="+in.Mode)
		}
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return RunResult{}, err
		}
		return RunResult{Code: cmd.ProcessState.ExitCode(), Stdout: stdout.String(), Stderr: stderr.String()}, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return RunResult{}, err
	}
	argv, _ := json.Marshal(in.Argv)
	cmd := exec.Command(exe)
	cmd.Env = append(commandEnv(in.ClearEnv, in.Env), ModeEnv+"=detacher", DetachArgvEnv+"="+string(argv), DetachModeEnv+"="+in.Mode)
	cmd.SysProcAttr = detachedAttr()
	outR, outW, err := os.Pipe()
	if err != nil {
		return RunResult{}, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return RunResult{}, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Run() // the detacher exits at once; the command holds the pipes until its end
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return RunResult{}, fmt.Errorf("detacher: %w", err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.Copy(&stdout, outR)
	}()
	io.Copy(&stderr, errR)
	wg.Wait()
	outR.Close()
	errR.Close()
	res := RunResult{Code: -1, Stdout: stdout.String(), Stderr: stderr.String()}
	if i := strings.LastIndex(res.Stderr, "exit "); i >= 0 {
		fmt.Sscanf(res.Stderr[i:], "exit %d", &res.Code)
		res.Stderr = res.Stderr[:i]
	}
	return res, nil
}

// runDetacher starts this binary in mode orphan, which runs the command
// line in DetachArgvEnv once it is an orphan, and returns without waiting
// for it.
func runDetacher() int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "detacher:", err)
		return 1
	}
	cmd := exec.Command(exe)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, ModeEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, ModeEnv+"=orphan", detacherEnv+"="+strconv.Itoa(os.Getpid()))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "detacher:", err)
		return 1
	}
	return 0
}

// runOrphan waits until its parent, the detacher, is gone and it has
// been reparented (to the nearest subreaper), so that no parent link
// leads to the server any more; then it becomes sh running the command
// line (in DetachModeEnv's fake mode, if any), which says "exit N" on
// stderr at its end.
func runOrphan() int {
	var argv []string
	if err := json.Unmarshal([]byte(os.Getenv(DetachArgvEnv)), &argv); err != nil || len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "orphan: no command line in", DetachArgvEnv)
		return 2
	}
	parent, _ := strconv.Atoi(os.Getenv(detacherEnv))
	deadline := time.Now().Add(10 * time.Second)
	for os.Getppid() == parent {
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "orphan: the detacher did not exit")
			return 1
		}
		time.Sleep(time.Millisecond)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, ModeEnv+"=") && !strings.HasPrefix(kv, DetachArgvEnv+"=") && !strings.HasPrefix(kv, DetachModeEnv+"=") && !strings.HasPrefix(kv, detacherEnv+"=") {
			env = append(env, kv)
		}
	}
	if mode := os.Getenv(DetachModeEnv); mode != "" {
		env = append(env, ModeEnv+"="+mode)
	}
	err := syscall.Exec("/bin/sh", append([]string{"sh", "-c", `"$@"; echo "exit $?" >&2`, "sh"}, argv...), env)
	fmt.Fprintln(os.Stderr, "orphan:", err)
	return 1
}

// runPoster sends PostEnv's request and prints "status N" and the reply.
func runPoster() int {
	var req PostRequest
	if err := json.Unmarshal([]byte(os.Getenv(PostEnv)), &req); err != nil {
		fmt.Fprintln(os.Stderr, "poster: no request in", PostEnv)
		return 2
	}
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", req.Socket)
		},
	}}
	r, err := http.NewRequest(req.Method, "http://mcptray"+req.Path, strings.NewReader(req.Body))
	if err != nil {
		fmt.Fprintln(os.Stderr, "poster:", err)
		return 2
	}
	resp, err := client.Do(r)
	if err != nil {
		fmt.Fprintln(os.Stderr, "poster:", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Printf("status %d\n%s", resp.StatusCode, body)
	if resp.StatusCode != http.StatusOK {
		return 1
	}
	return 0
}
