//go:build unix

package stdioserver

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// childEnv makes the test binary a server on Transport (TestMain).
const childEnv = "STDIOSERVER_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "serve":
		os.Exit(serveChild())
	case "probe":
		r := stdin()
		fmt.Printf("nonblocking=%v os.Stdin=%v\n", nonBlocking(), r == os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveChild serves one tool, "state", which reports whether stdin is
// non-blocking and every goroutine's stack, taken once the SDK's stdin
// reader has gone back to waiting (or after 5 s): right after it handed
// over the call, the reader may still be running or runnable.
func serveChild() int {
	s := sdk.NewServer(&sdk.Implementation{Name: "child", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "state"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		var stacks string
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			buf := make([]byte, 1<<20)
			stacks = string(buf[:runtime.Stack(buf, true)])
			if s := readerState(stacks); (s != "running" && s != "runnable") || time.Now().After(deadline) {
				break
			}
		}
		text := fmt.Sprintf("nonblocking=%v\n%s", nonBlocking(), stacks)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil, nil
	})
	if err := s.Run(context.Background(), Transport()); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// readerState is the state ("IO wait", "syscall", "runnable", …) of the
// goroutine reading the SDK's stdin in a stack dump, or "".
func readerState(stacks string) string {
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "newIOConnLimited") && strings.HasPrefix(g, "goroutine ") {
			state, _, _ := strings.Cut(g[strings.IndexByte(g, '[')+1:], "]")
			state, _, _ = strings.Cut(state, ",")
			return state
		}
	}
	return ""
}

func nonBlocking() bool {
	fl, _, _ := syscall.Syscall(syscall.SYS_FCNTL, 0, syscall.F_GETFL, 0)
	return fl&syscall.O_NONBLOCK != 0
}

const (
	initialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	callState   = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"state","arguments":{}}}`
)

func child(t *testing.T, mode string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestPipeStdinWaitsInThePoller: over a pipe, stdin is made non-blocking
// and the SDK's reader waits parked in the poller ("IO wait"), not inside
// a read(2) system call — where a garbage collection could deadlock
// against it.
func TestPipeStdinWaitsInThePoller(t *testing.T) {
	cmd := child(t, "serve")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	br := bufio.NewReader(out)
	fmt.Fprintln(in, initialize)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(in, initialized)
	fmt.Fprintln(in, callState)
	reply, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reply, `nonblocking=true`) {
		t.Fatalf("stdin is still blocking over a pipe: %.300s", reply)
	}
	if !strings.Contains(reply, `[IO wait`) {
		t.Errorf("no goroutine waits in the poller: %s", reply)
	}
	if strings.Contains(reply, `[syscall`) {
		t.Errorf("a goroutine waits inside a system call: %s", reply)
	}
}

// TestFileStdinLeftAlone: stdin that is a file (or a terminal) is read as
// the SDK reads it, os.Stdin, and left blocking.
func TestFileStdinLeftAlone(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "requests")
	if err != nil {
		t.Fatal(err)
	}
	cmd := child(t, "probe")
	cmd.Stdin = f
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "nonblocking=false os.Stdin=true" {
		t.Errorf("a file on stdin: %s, want it left blocking and read as os.Stdin", got)
	}
}
