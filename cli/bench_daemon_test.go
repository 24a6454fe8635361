//go:build linux

package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testdaemon"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// benchInstance is a `mcptray daemon` subprocess (the tests' instance)
// with every server ready.
type benchInstance struct {
	*instance
	ready control.Status // the status when every server was ready
}

// echoServers returns n config entries for the echo fake: "echo" when n is
// 1, else echo01 … echoNN.
func echoServers(n int) map[string]any {
	exe, _ := os.Executable()
	servers := map[string]any{}
	for i := 1; i <= n; i++ {
		name := "echo"
		if n > 1 {
			name = fmt.Sprintf("echo%02d", i)
		}
		servers[name] = map[string]any{"command": exe, "env": map[string]string{
			mcptest.ModeEnv: "echo", "GORACE": "atexit_sleep_ms=0",
		}}
	}
	return servers
}

// startBenchDaemon starts the daemon on temp dirs with servers and waits
// until every one of them is ready.
func startBenchDaemon(b testing.TB, servers map[string]any) *benchInstance {
	b.Helper()
	return startBenchBinary(b, "", servers)
}

// startBenchBinary is startBenchDaemon with a built mcptray binary bin (""
// for this test binary as mcptray).
func startBenchBinary(b testing.TB, bin string, servers map[string]any) *benchInstance {
	b.Helper()
	in := &instance{testdaemon.StartBin(b, bin, servers)}
	return &benchInstance{instance: in, ready: waitReady(b, in, len(servers))}
}

// waitReady polls the status until n servers are ready and the HTTP
// endpoint is either up or off with a reason.
func waitReady(b testing.TB, in *instance, n int) control.Status {
	b.Helper()
	deadline := time.Now().Add(90 * time.Second)
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	var last control.Status
	for {
		if cl, err := control.Dial(in.Data); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			st, err := cl.Status(ctx)
			cancel()
			if err == nil {
				last = st
				ready := 0
				for _, s := range st.Servers {
					if s.State == control.StateReady {
						ready++
					}
				}
				if ready == n && (st.Endpoint != "" || st.EndpointError != "") {
					return st
				}
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("servers not ready within 90s: %+v\n%s", last, in.Stderr)
		}
		select {
		case <-in.Exited:
			b.Fatalf("daemon exited: %s", in.Stderr)
		case <-tick.C:
		}
	}
}

// connect starts `mcptray connect` against the instance and initializes
// an MCP session through it.
func (in *benchInstance) connect(b testing.TB) *streamClient {
	b.Helper()
	return in.connectWith(b, initialize)
}

// connectWith is connect for a client that opens its session with open
// (initialize, or discover for the 2026-07-28 wire).
func (in *benchInstance) connectWith(b testing.TB, open func(rpcClient) error) *streamClient {
	b.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "connect", "--data", in.Data, "--config", in.Config)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return startSessionWith(b, cmd, open)
}

// socket opens an MCP session on the daemon's control socket, as
// `mcptray connect` does, but without the connect process in between.
func (in *benchInstance) socket(b testing.TB) *streamClient {
	b.Helper()
	cl, err := control.Dial(in.Data)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := cl.OpenMCP(ctx, "", "")
	if err != nil {
		b.Fatal(err)
	}
	c := newStreamClient(conn, conn, nil)
	b.Cleanup(c.close)
	if err := initialize(c); err != nil {
		b.Fatalf("through the control socket: %v", err)
	}
	return c
}

// skipBench skips the benchmark, saying why on stdout too: go test shows
// a skipped benchmark's reason only with -v.
func skipBench(b testing.TB, why string) {
	b.Helper()
	summary(b, "%s", why)
	b.Skip(why)
}

// httpEndpoint returns the instance's /mcp URL and the bearer token; it
// skips the benchmark when there are none.
func (in *benchInstance) httpEndpoint(b testing.TB) (url, token string) {
	b.Helper()
	url, token, why := in.httpEndpointOr(b)
	if why != "" {
		skipBench(b, "HTTP not measured: "+why)
	}
	return url, token
}

// httpEndpointOr is httpEndpoint, saying why there is none instead of
// skipping.
func (in *benchInstance) httpEndpointOr(b testing.TB) (url, token, why string) {
	b.Helper()
	const hint = "; run the benchmarks inside scripts/desktop-session.sh, as make bench does"
	if in.ready.Endpoint == "" {
		return "", "", "the HTTP endpoint is off (" + in.ready.EndpointError + ")" + hint
	}
	ep, err := app.ReadEndpoint(in.Data)
	if err != nil {
		b.Fatalf("reading endpoint.json: %v", err)
	}
	tok, err := app.Token()
	if err != nil {
		return "", "", fmt.Sprintf("no bearer token from the keyring (%v)%s", err, hint)
	}
	return ep.URL, tok, ""
}

// startSession starts cmd as a stdio MCP server and initializes a session.
func startSession(b testing.TB, cmd *exec.Cmd) *streamClient {
	b.Helper()
	return startSessionWith(b, cmd, initialize)
}

// startSessionWith is startSession with open in place of initialize.
func startSessionWith(b testing.TB, cmd *exec.Cmd, open func(rpcClient) error) *streamClient {
	b.Helper()
	var stderr syncBuffer
	c, err := startStdio(cmd, &stderr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.close)
	if err := open(c); err != nil {
		b.Fatalf("%v\n%s", err, stderr.String())
	}
	return c
}

// directEcho starts the echo fake and initializes a session with it.
func directEcho(b testing.TB) *streamClient {
	b.Helper()
	return directEchoWith(b, initialize)
}

// directEchoWith is directEcho with open in place of initialize.
func directEchoWith(b testing.TB, open func(rpcClient) error) *streamClient {
	b.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = mcptest.Env("echo")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return startSessionWith(b, cmd, open)
}

// memory is a process's resident memory, from /proc/PID/status.
type memory struct {
	rssKB  int // VmRSS: everything resident
	anonKB int // RssAnon: the process's own (heap, stacks)
	fileKB int // RssFile: mapped files, mostly the binary's own pages
}

func (m memory) MB() float64 { return float64(m.rssKB) / 1024 }

func (m memory) String() string {
	return fmt.Sprintf("%.1f MB (anon %.1f MB, file-backed %.1f MB)", m.MB(), float64(m.anonKB)/1024, float64(m.fileKB)/1024)
}

func readMemory(pid int) (memory, error) {
	var m memory
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m, err
	}
	fields := map[string]*int{"VmRSS:": &m.rssKB, "RssAnon:": &m.anonKB, "RssFile:": &m.fileKB}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && fields[f[0]] != nil {
			*fields[f[0]], _ = strconv.Atoi(f[1])
		}
	}
	if m.rssKB == 0 {
		return m, fmt.Errorf("no VmRSS for pid %d", pid)
	}
	return m, nil
}

// processCPU is the CPU time pid has used so far (user and system, every
// thread), or 0 for pid 0 or a process that is gone.
func processCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	f := procStatFields(pid)
	if len(f) < 13 {
		return 0
	}
	ticks := 0
	for _, v := range f[11:13] {
		n, _ := strconv.Atoi(v)
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's times:
// 100 on every Linux architecture Go supports.
const clockTicks = 100
