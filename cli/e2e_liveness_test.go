package cli

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestAssistantThatNeverReads: an assistant sends calls through `mcptray
// connect` as fast as it can and never reads its stdout, each answer 256
// KiB. The daemon's memory stays bounded: it stops reading that
// assistant's requests, or ends its session, and says so in its log;
// another assistant's calls are answered meanwhile.
func TestAssistantThatNeverReads(t *testing.T) {
	in := startDaemon(t, map[string]any{"lag": fakeEntry(t, "laggard")})
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
