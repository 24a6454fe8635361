package testdaemon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testkeyring"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
)

// Main runs one mcptray command line in-process and returns the exit code
// (cli.Main, with or without a desktop UI). The test binary's TestMain
// sets it.
var Main func(args []string, stdout, stderr io.Writer) int

// CLI runs one command line in-process and returns exit code and output.
func CLI(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// Instance is a `mcptray daemon` subprocess on temp dirs.
type Instance struct {
	T          testing.TB
	Cmd        *exec.Cmd
	Config     string
	Data       string
	Stderr     *SyncBuffer
	Exited     chan struct{}
	FlagsFirst []string
	Env        []string // KEY=VALUE over the test's environment
	Bin        string   // a built mcptray; "" for the test binary as mcptray
}

// FakeEntry is a config entry for the fake server mode (mcptest), with
// env given as KEY, VALUE pairs.
func FakeEntry(t testing.TB, mode string, env ...string) map[string]any {
	exe, _ := os.Executable()
	e := map[string]string{"MCPTRAY_FAKE_SERVER": mode, "GORACE": "atexit_sleep_ms=0"}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return map[string]any{"command": exe, "env": e}
}

// WriteConfig writes an mcp.json with servers, atomically.
func WriteConfig(t testing.TB, path string, servers map[string]any) {
	t.Helper()
	WriteDoc(t, path, map[string]any{"mcpServers": servers})
}

// WriteDoc writes doc, the whole mcp.json (mcpServers, x-mcptray, …),
// atomically, making its folder.
func WriteDoc(t testing.TB, path string, doc map[string]any) {
	t.Helper()
	b, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// Start starts a daemon on temp dirs with servers (no config file when
// nil) and returns once its socket answers.
func Start(t testing.TB, servers map[string]any) *Instance {
	t.Helper()
	return StartBin(t, "", servers)
}

// StartBin is Start with a built mcptray binary bin ("" for the test
// binary as mcptray).
func StartBin(t testing.TB, bin string, servers map[string]any) *Instance {
	t.Helper()
	in := &Instance{T: t, Bin: bin}
	if servers == nil {
		in.StartConfig(nil)
	} else {
		in.StartConfig(map[string]any{"mcpServers": servers})
	}
	return in
}

// StartConfig starts a daemon on temp dirs with doc as its whole mcp.json
// (mcpServers and top-level settings such as x-mcptray; no file when nil)
// and returns once its socket answers.
func StartConfig(t testing.TB, doc map[string]any) *Instance {
	t.Helper()
	in := &Instance{T: t}
	in.StartConfig(doc)
	return in
}

// StartConfig starts the daemon of an Instance the test filled in part of
// (Bin, Env; Config and Data, else temp paths), with doc as its mcp.json
// (none written when nil) and --config and --data first on its command
// line, unless FlagsFirst is set.
func (in *Instance) StartConfig(doc map[string]any) {
	in.T.Helper()
	if in.Config == "" || in.Data == "" {
		dir := in.T.TempDir()
		if in.Config == "" {
			in.Config = filepath.Join(dir, "mcp.json")
		}
		if in.Data == "" {
			in.Data = filepath.Join(dir, "data")
		}
	}
	if doc != nil {
		WriteDoc(in.T, in.Config, doc)
	}
	if in.FlagsFirst == nil {
		in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
	}
	in.Start()
}

// Start starts the daemon of an Instance the test filled in, and returns
// once its socket answers.
func (in *Instance) Start() {
	t := in.T
	exe := in.Bin
	if exe == "" {
		exe, _ = os.Executable()
	}
	in.Cmd = exec.Command(exe, append([]string{"daemon"}, in.FlagsFirst...)...)
	// Without a terminal (CI) the daemon would read the login shell's
	// PATH; a test that wants that sets MCPTRAY_LOGIN_SHELL in in.Env.
	in.Cmd.Env = append(append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1", "MCPTRAY_LOGIN_SHELL=off"), in.Env...)
	in.Stderr = new(SyncBuffer)
	in.Cmd.Stderr = in.Stderr
	dieWithParent(in.Cmd) // gone with the test binary
	if err := in.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in.Exited = make(chan struct{})
	go func() { in.Cmd.Wait(); close(in.Exited) }()
	t.Cleanup(func() {
		terminate(in.Cmd.Process)
		select {
		case <-in.Exited:
		case <-time.After(30 * time.Second):
			in.Cmd.Process.Kill()
			t.Error("daemon did not exit within 30s of SIGTERM")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := control.Dial(in.Data); err == nil {
			return
		}
		select {
		case <-in.Exited:
			t.Fatalf("daemon exited: %s", in.Stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon socket never appeared: %s", in.Stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop sends SIGTERM (Windows: ends the process) and waits for the
// daemon to exit.
func Stop(t *testing.T, in *Instance) {
	t.Helper()
	terminate(in.Cmd.Process)
	select {
	case <-in.Exited:
	case <-time.After(30 * time.Second):
		t.Fatal("daemon did not exit within 30s of SIGTERM")
	}
}

// Run runs a CLI command against this instance.
func (in *Instance) Run(args ...string) (int, string, string) {
	in.T.Helper()
	return CLI(in.T, append(args, in.FlagsFirst...)...)
}

// StatusJSON is `mcptray status --json`.
type StatusJSON struct {
	Servers []struct {
		Name     string `json:"name"`
		State    string `json:"state"`
		PID      int    `json:"pid"`
		Tools    int    `json:"tools"`
		Restarts int    `json:"restarts"`
		Error    string `json:"error"`
	} `json:"servers"`
	ConfigError     string `json:"configError"`
	Endpoint        string `json:"endpoint"`
	EndpointWarning string `json:"endpointWarning"`
}

// Status runs `mcptray status --json` against this instance.
func (in *Instance) Status() StatusJSON {
	in.T.Helper()
	code, out, errs := in.Run("status", "--json")
	if code != 0 {
		in.T.Fatalf("status --json: exit %d: %s", code, errs)
	}
	var st StatusJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		in.T.Fatalf("status --json is not JSON: %v\n%s", err, out)
	}
	return st
}

// WaitFor polls the status until cond holds, for up to a minute.
func (in *Instance) WaitFor(what string, cond func(StatusJSON) bool) StatusJSON {
	in.T.Helper()
	var st StatusJSON
	if !testkit.Eventually(time.Minute, func() bool { st = in.Status(); return cond(st) }) {
		in.T.Fatalf("timed out waiting for %s: %+v", what, st)
	}
	return st
}

// State returns the state and pid of server name in st.
func State(st StatusJSON, name string) (string, int) {
	for _, s := range st.Servers {
		if s.Name == name {
			return s.State, s.PID
		}
	}
	return "", 0
}

// States is a condition for WaitFor: the servers are in these states, given
// as NAME, STATE pairs.
func States(pairs ...string) func(StatusJSON) bool {
	return func(st StatusJSON) bool {
		for i := 0; i+1 < len(pairs); i += 2 {
			if s, _ := State(st, pairs[i]); s != pairs[i+1] {
				return false
			}
		}
		return true
	}
}

// SyncBuffer is a bytes.Buffer safe for one writer and one reader.
type SyncBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WaitFor polls cond until it holds, for up to a minute.
func WaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.WaitForWithin(t, time.Minute, what, cond)
}

// Keyring gives the test the keyring entry to itself: it saves what is
// there and puts it back afterwards, holding it against the tests of other
// packages meanwhile (testkeyring.Own). Without a keyring the test is
// skipped, except inside `make test`'s desktop session.
func Keyring(t *testing.T, entry string) { testkeyring.Own(t, entry) }

// ProcStatFields returns the fields of /proc/PID/stat after the command
// name (which is in parentheses and may hold spaces): state, ppid, … — so
// utime and stime are f[11] and f[12]. It returns nil for a process that
// is gone.
func ProcStatFields(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	return strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
}

// WatchdogPID finds the daemon's watchdog: its child started with
// MCPTRAY_WATCHDOG=1 (0 when there is none).
func WatchdogPID(parent int) int {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if f := ProcStatFields(pid); len(f) < 2 || f[1] != strconv.Itoa(parent) {
			continue
		}
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			if string(kv) == downstream.WatchdogEnv+"=1" {
				return pid
			}
		}
	}
	return 0
}
