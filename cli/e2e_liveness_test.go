//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testdaemon"
)

// TestAssistantThatNeverReads: an assistant sends calls through `mcptray
// connect` as fast as it can and never reads its stdout, each answer 256
// KiB. The daemon's memory stays bounded: it stops reading that
// assistant's requests, or ends its session, and says so in its log;
// another assistant's calls are answered meanwhile.
func TestAssistantThatNeverReads(t *testing.T) {
	// The laggard reads its stdin between calls, one at a time: under load
	// (-race, CPU hogs) its 256 KB calls can keep it from reading for longer
	// than the default inputTimeout, whose own tests are elsewhere
	// (TestDeafServerFreesHTTPConnections). This test is about the assistant.
	in := &instance{testdaemon.StartConfig(t, map[string]any{
		"mcpServers": map[string]any{"lag": fakeEntry(t, "laggard")},
		"x-mcptray":  map[string]any{"inputTimeout": "10m"},
	})}
	in.WaitFor("lag ready", states("lag", "ready"))
	before, err := readMemory(in.Cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}

	outR, outW, err := os.Pipe() // the assistant's end of connect's stdout: never read
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "connect", "--data", in.Data, "--config", in.Config)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	cmd.Stdout = outW
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	wrote := make(chan struct{})
	go func() { // blocks once the daemon stops reading; ends when stdin is closed
		defer close(wrote)
		stdin.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"deaf-assistant","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
		for id := 1; ; id++ {
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lag__big","arguments":{"size":262144}}}`+"\n", id)
			if _, err := stdin.Write([]byte(line)); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		<-wrote
		cmd.Process.Kill()
		cmd.Wait()
	})

	// Without a bound the daemon grows by hundreds of MB in seconds;
	// with one it holds at most what waits for one assistant (64 MiB).
	const boundKB = 200 << 10
	deadline := time.Now().Add(90 * time.Second)
	peak := before
	for {
		m, err := readMemory(in.Cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if m.rssKB > peak.rssKB {
			peak = m
		}
		if m.rssKB-before.rssKB > boundKB {
			t.Fatalf("the daemon grew from %s to %s for an assistant that reads nothing", before, m)
		}
		log := in.Stderr.String()
		if strings.Contains(log, "assistant is not reading its answers: its next requests wait") ||
			strings.Contains(log, "assistant session ended: it does not read its answers") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 90 s the daemon (%s) neither stopped reading the assistant nor ended its session; log:\n%s", m, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("daemon memory: %s before, peak %s", before, peak)

	c := startLineClient(t, in)
	if line := c.call("tools/call", `{"name":"lag__echo","arguments":{"message":"still here"}}`); !strings.Contains(line, "still here") {
		t.Fatalf("another assistant's call: %s", line)
	}
}

// TestDeafServerThroughConnect: over one `mcptray connect` session, two
// calls with 200 KB arguments go to a server that stopped reading its
// stdin. The session's calls to another server and its tools/list are
// still answered, and the two calls end at the call timeout
// (x-mcptray.callTimeout) with an error that says why.
func TestDeafServerThroughConnect(t *testing.T) {
	in := &instance{testdaemon.StartConfig(t, map[string]any{
		"mcpServers": map[string]any{"deaf": fakeEntry(t, "laggard"), "ok": fakeEntry(t, "laggard")},
		"x-mcptray":  map[string]any{"callTimeout": "3s"},
	})}
	in.WaitFor("both ready", states("deaf", "ready", "ok", "ready"))
	c := startLineClient(t, in)
	if line := c.call("tools/call", `{"name":"deaf__deaf","arguments":{}}`); !strings.Contains(line, `"deaf"`) {
		t.Fatalf("deaf: %s", line)
	}
	big := strings.Repeat("a", 200<<10)
	go func() { // without a fix, these writes block: connect's stdin is no longer read
		c.in.Write([]byte(`{"jsonrpc":"2.0","id":"stuck-1","method":"tools/call","params":{"name":"deaf__echo","arguments":{"message":"` + big + `"}}}` + "\n" +
			`{"jsonrpc":"2.0","id":"stuck-2","method":"tools/call","params":{"name":"deaf__echo","arguments":{"message":"` + big + `"}}}` + "\n" +
			`{"jsonrpc":"2.0","id":"other","method":"tools/call","params":{"name":"ok__echo","arguments":{"message":"still here"}}}` + "\n" +
			`{"jsonrpc":"2.0","id":"list","method":"tools/list","params":{}}` + "\n"))
	}()

	lines := make(chan string)
	go func() { // ends when connect's stdout closes, at the test's end
		for {
			line, err := c.out.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- line
		}
	}()
	got := map[string]string{}
	deadline := time.After(2 * time.Minute) // a failure's bound: without a fix, nothing ever comes
	for len(got) < 4 {
		var line string
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("connect's output ended (have %v)", got)
			}
			line = l
		case <-deadline:
			t.Fatalf("after 2 min, answers only to %v: the session is stalled", keys(got))
		}
		var msg struct {
			ID string `json:"id"`
		}
		json.Unmarshal([]byte(line), &msg)
		if msg.ID != "" {
			if msg.ID == "stuck-1" || msg.ID == "stuck-2" {
				if _, early := got["other"]; !early {
					t.Errorf("%s was answered before the call to the other server: %s", msg.ID, line)
				}
			}
			got[msg.ID] = line
		}
	}
	if !strings.Contains(got["other"], "still here") {
		t.Errorf("the other server's call: %s", got["other"])
	}
	if !strings.Contains(got["list"], `"ok__echo"`) {
		t.Errorf("tools/list: %.300s", got["list"])
	}
	for _, id := range []string{"stuck-1", "stuck-2"} {
		if !strings.Contains(got[id], `server \"deaf\" did not`) || !strings.Contains(got[id], "within 3s") {
			t.Errorf("%s: %s; want the call timeout's error", id, got[id])
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
