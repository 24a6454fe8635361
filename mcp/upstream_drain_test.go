//go:build linux

package mcp

import (
	"bufio"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/mcptest"
	"github.com/mcptray/mcptray/mcp/wire"
)

// TestStreamAnswersAfterInputEnds: an assistant that ends its input (a
// half-closed socket) still gets the answers to what it sent — a
// fast-path call and one the SDK serves — and then the session ends.
func TestStreamAnswersAfterInputEnds(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	r := connectRaw(t, g, UpstreamOptions{})
	r.initialize(t)
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r__slow","arguments":{"steps":3,"ms":100}}}`)
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"r__slow","arguments":{"steps":100,"ms":100}}}`)
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`) // no answer due
	if err := r.conn.(*net.UnixConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for range 2 {
		line := r.recv(t)
		switch {
		case strings.HasPrefix(line, `{"jsonrpc":"2.0","id":1,`):
			got["call"] = line
		case strings.Contains(line, `"id":2`):
			got["list"] = line
		default:
			t.Fatalf("unexpected line: %s", line)
		}
	}
	if !strings.Contains(got["call"], `done after 3 steps`) || !strings.Contains(got["list"], `"r__slow"`) {
		t.Fatalf("answers after the input ended: %v", got)
	}
	r.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, _, err := r.lr.Next(); err == nil {
		t.Fatalf("after the answers: %s, want the end of the stream", line)
	}
}

// TestStdioStreamDrainsUnlessHungUp runs the handed-over stdio of
// `mcptray connect` (two pipes): with the input ended and the output still
// read, the call is answered; with the output's reader gone as well, the
// call is cancelled downstream at once.
func TestStdioStreamDrainsUnlessHungUp(t *testing.T) {
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich", withEnv(mcptest.CancelFileEnv+"="+cancelFile))

	session := func() (in *os.File, out *bufio.Reader, outR *os.File, done chan error) {
		inR, inW, outR, outW := twoPipes(t)
		t.Cleanup(func() { inW.Close(); outR.Close() })
		done = make(chan error, 1)
		go func() { done <- g.ServeStream(context.Background(), wire.StdioStream(inR, outW), UpstreamOptions{}) }()
		out = bufio.NewReader(outR)
		inW.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n")
		if line, err := out.ReadString('\n'); err != nil || !strings.Contains(line, `"protocolVersion"`) {
			t.Fatalf("initialize: %q, %v", line, err)
		}
		inW.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		return inW, out, outR, done
	}
	ended := func(what string, done chan error) {
		t.Helper()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("ServeStream did not return %s", what)
		}
	}

	in, out, _, done := session()
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r__slow","arguments":{"steps":3,"ms":100}}}` + "\n")
	in.Close()
	for {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer after the input ended: %v", err)
		}
		if strings.HasPrefix(line, `{"jsonrpc":"2.0","id":1,`) {
			if !strings.Contains(line, "done after 3 steps") {
				t.Fatalf("answer: %s", line)
			}
			break
		}
	}
	ended("after the last answer", done)

	in, _, outR, done := session()
	os.Remove(cancelFile) // the first call's notes
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r__slow","arguments":{"steps":100,"ms":100}}}` + "\n")
	testkit.WaitFor(t, "the server to start the call", func() bool { return fileHas(cancelFile, "started slow") })
	outR.Close()
	in.Close()
	testkit.WaitFor(t, "the server to see the cancellation", func() bool { return fileHas(cancelFile, "cancelled slow") })
	ended("when the assistant hung up", done)
}
