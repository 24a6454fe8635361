//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testdaemon"
)

// TestDeafServerFreesHTTPConnections: 300 calls over HTTP, more than the
// endpoint's 256 connections, go to a server that stopped reading its
// stdin. Once it has read nothing for x-mcptray.inputTimeout they fail,
// saying why, and free their connections: a call to another server over
// HTTP is answered (without the fix they hold the connections for the
// call timeout, 5 min, and it waits behind them).
func TestDeafServerFreesHTTPConnections(t *testing.T) {
	dir := t.TempDir()
	in := &instance{&testdaemon.Instance{T: t, Config: filepath.Join(dir, "mcp.json"), Data: filepath.Join(dir, "data")}}
	cfg, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"deaf": fakeEntry(t, "laggard"), "ok": fakeEntry(t, "echo")},
		// The laggard's tools carry no annotations; a port of its own keeps
		// another test's (or another run's) 300 connections off this one's cap.
		"x-mcptray": map[string]any{"inputTimeout": "1s", "approve": "off", "listen": "127.0.0.1:0"},
	})
	if err := os.WriteFile(in.Config, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
	in.Start()
	in.WaitFor("both ready", states("deaf", "ready", "ok", "ready"))
	base, token := in.endpointAndToken(t)
	c := newHTTPClient(base, token)
	defer c.close()
	if err := initialize(c); err != nil {
		t.Fatal(err)
	}
	if res, err := c.call("tools/call", `{"name":"deaf__deaf","arguments":{}}`); err != nil || !strings.Contains(string(res), `"deaf"`) {
		t.Fatalf("deaf: %s %v", res, err)
	}

	const n = 300
	var wrote sync.WaitGroup
	wrote.Add(n)
	answers := make(chan string, n)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // a failed test's calls end with it
	for i := range n {
		go func() {
			var once sync.Once
			written := func() { once.Do(wrote.Done) }
			tctx := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { written() }})
			resp, err := c.post(tctx, request(int64(1000+i), "tools/call", `{"name":"deaf__echo","arguments":{"message":"unread"}}`))
			written()
			if err != nil {
				answers <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answers <- string(b)
		}()
	}
	allWritten := make(chan struct{})
	go func() { wrote.Wait(); close(allWritten) }()
	select {
	case <-allWritten:
	case <-time.After(2 * time.Minute):
		t.Fatal("the calls to the deaf server were not all sent")
	}

	type result struct {
		res json.RawMessage
		err error
	}
	other := make(chan result, 1)
	go func() {
		res, err := c.call("tools/call", `{"name":"ok__echo","arguments":{"message":"still here"}}`)
		other <- result{res, err}
	}()
	select {
	case r := <-other:
		if r.err != nil || !strings.Contains(string(r.res), "still here") {
			t.Fatalf("the call to the other server: %s %v", r.res, r.err)
		}
	case <-time.After(2 * time.Minute): // a failure's bound: without a fix, nothing comes for the call timeout
		t.Fatal("the call to the other server was not answered: the deaf server's calls hold the endpoint's connections")
	}
	notReading := 0
	for range n {
		select {
		case a := <-answers:
			switch {
			case strings.Contains(a, `server \"deaf\" is not reading its input (it read nothing for 1s); the call was`):
				notReading++
			case strings.Contains(a, "HTTP 503 Service Unavailable: too many connections waiting to send their request header"),
				strings.Contains(a, "readLoopPeekFailLocked"):
				// Under load, a connection of the 300 that has not sent its
				// header 100 ms after it was accepted, at the cap, gives way
				// (the endpoint's slow-header rule). When the 503 comes
				// before Go's client has written its request, the client
				// says "Unsolicited response received on idle HTTP
				// channel" and fails the request with readLoopPeekFailLocked.
			default:
				t.Fatalf("a call to the deaf server: %.300s", a)
			}
		case <-time.After(2 * time.Minute):
			t.Fatal("calls to the deaf server still wait")
		}
	}
	if notReading == 0 {
		t.Error("no call to the deaf server failed saying it is not reading its input")
	}
	if _, out, _ := in.Run("status"); !strings.Contains(out, "deaf: not reading its input; its calls fail until it reads again") {
		t.Errorf("mcptray status does not say it:\n%s", out)
	}
	if _, log, _ := in.Run("logs", "deaf"); !strings.Contains(log, "[stdin] not reading its input: nothing read for 1s") {
		t.Errorf("the deaf server's log does not say it:\n%.2000s", log)
	}
}
