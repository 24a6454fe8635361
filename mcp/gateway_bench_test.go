//go:build linux || windows

package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/mcptest"
	"github.com/mcptray/mcptray/mcp/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The benchmarks compare one echo call made directly with the same call
// through the gateway, with the go-sdk client on the assistant's side:
//
//	go test -run '^$' -bench 'Call|Ratio' -benchtime 2000x ./mcp
//
// Each reports the median latency (p50-µs); BenchmarkGatewayRatio
// interleaves direct and gateway calls and reports their ratio.

func echoParams() *sdk.CallToolParams {
	return &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}}
}

// timeCalls makes b.N calls and reports their median.
func timeCalls(b *testing.B, cs *sdk.ClientSession, name string) {
	b.Helper()
	p := echoParams()
	p.Name = name
	ctx := context.Background()
	for range 50 { // warm up
		if _, err := cs.CallTool(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, err := cs.CallTool(ctx, p); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.ReportMetric(float64(median(lat).Microseconds()), "p50-µs")
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func BenchmarkCallDirect(b *testing.B) {
	c := connectDirect(b, "echo", nil)
	timeCalls(b, c.ClientSession, "echo")
}

func BenchmarkCallViaGateway(b *testing.B) {
	g, _ := newTestGateway(b, GatewayOptions{})
	addServer(b, g, "e", "echo")
	c := connectStream(b, g, UpstreamOptions{}, nil)
	timeCalls(b, c.ClientSession, "e__echo")
}

func BenchmarkCallDirectHTTP(b *testing.B) {
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.NewServer("echo") }, nil))
	b.Cleanup(srv.Close)
	c := connectHTTP(b, srv.URL, "", nil)
	timeCalls(b, c.ClientSession, "echo")
}

func BenchmarkCallViaHTTP(b *testing.B) {
	g, _ := newTestGateway(b, GatewayOptions{})
	addServer(b, g, "e", "echo")
	c := connectHTTP(b, httpGateway(b, g, "tok").URL+"/mcp", "tok", nil)
	timeCalls(b, c.ClientSession, "e__echo")
}

// The 2026-07-28 wire over HTTP: a stateless server direct, and the
// gateway's stateless handling.
func BenchmarkCallDirectHTTP2026(b *testing.B) {
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.NewServer("echo") }, &sdk.StreamableHTTPOptions{Stateless: true}))
	b.Cleanup(srv.Close)
	c := connectHTTPWire(b, srv.URL, "", nil, protocol2026)
	timeCalls(b, c.ClientSession, "echo")
}

func BenchmarkCallViaHTTP2026(b *testing.B) {
	g, _ := newTestGateway(b, GatewayOptions{})
	addServer(b, g, "e", "echo")
	c := connectHTTPWire(b, httpGateway(b, g, "tok").URL+"/mcp", "tok", nil, protocol2026)
	timeCalls(b, c.ClientSession, "e__echo")
}

// BenchmarkGatewayRatio alternates a direct call and a gateway (stream)
// call to the same kind of server, so both see the same machine load.
func BenchmarkGatewayRatio(b *testing.B) { gatewayRatio(b, oldWire) }

// BenchmarkGatewayRatio2026 is BenchmarkGatewayRatio for a client of the
// 2026-07-28 wire, direct and through the gateway alike.
func BenchmarkGatewayRatio2026(b *testing.B) { gatewayRatio(b, protocol2026) }

func gatewayRatio(b *testing.B, version string) {
	direct := connectDirectWire(b, "echo", nil, version)
	g, _ := newTestGateway(b, GatewayOptions{})
	addServer(b, g, "e", "echo")
	via := connectStreamWire(b, g, UpstreamOptions{}, nil, version)
	ctx := context.Background()
	dp, vp := echoParams(), echoParams()
	vp.Name = "e__echo"
	for range 50 {
		direct.CallTool(ctx, dp)
		via.CallTool(ctx, vp)
	}
	var dl, vl []time.Duration
	b.ResetTimer()
	start := time.Now()
	var viaTotal time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := direct.CallTool(ctx, dp); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := via.CallTool(ctx, vp); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		dl, vl = append(dl, t1.Sub(t0)), append(vl, t2.Sub(t1))
		viaTotal += t2.Sub(t1)
	}
	total := time.Since(start)
	dm, vm := median(dl), median(vl)
	b.ReportMetric(float64(dm.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64(vm.Microseconds()), "gateway-p50-µs")
	b.ReportMetric(float64(vm)/float64(dm), "ratio")
	b.ReportMetric(float64(total-viaTotal)/float64(viaTotal), "throughput-ratio")
}

// The Raw benchmarks drive both sides with bare JSON-RPC lines (no SDK on
// the client), so they show the gateway's own cost per call: the
// difference between BenchmarkRawCallViaGateway and BenchmarkRawCallDirect.

const rawEcho = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":{"message":"hello"}}}`

func rawLoop(b *testing.B, send func(string), recv func() string, tool string) {
	b.Helper()
	for i := range 50 {
		send(fmt.Sprintf(rawEcho, i+1000000, tool))
		recv()
	}
	lat := make([]time.Duration, 0, b.N)
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		t0 := time.Now()
		send(fmt.Sprintf(rawEcho, i, tool))
		if got := recv(); !strings.Contains(got, `"text":"hello"`) {
			b.Fatalf("reply %s", got)
		}
		lat = append(lat, time.Since(t0))
	}
	b.ReportMetric(float64(median(lat).Microseconds()), "p50-µs")
}

func BenchmarkRawCallDirect(b *testing.B) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = mcptest.Env("echo")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); cmd.Wait() })
	lr := wire.NewLineReader(out, wire.MaxLineBytes)
	send := func(s string) { io.WriteString(in, s+"\n") }
	recv := func() string {
		for {
			line, _, err := lr.Next()
			if err != nil {
				b.Fatal(err)
			}
			if !bytes.Contains(line, []byte(`"method"`)) {
				return string(line)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	recv()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	rawLoop(b, send, recv, "echo")
}

func BenchmarkRawCallViaGateway(b *testing.B) {
	g, _ := newTestGateway(b, GatewayOptions{})
	addServer(b, g, "e", "echo")
	r := connectRaw(b, g, UpstreamOptions{})
	r.initialize(b)
	rawLoop(b, func(s string) { r.send(b, s) }, func() string { return r.recv(b) }, "e__echo")
}

// The Throughput benchmarks make calls from 8 goroutines over one session;
// compare their ns/op (lower is more calls per second).
func parallelCalls(b *testing.B, cs *sdk.ClientSession, name string) {
	p := echoParams()
	p.Name = name
	ctx := context.Background()
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := cs.CallTool(ctx, p); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

func BenchmarkThroughputDirect(b *testing.B) {
	c := connectDirect(b, "echo", nil)
	parallelCalls(b, c.ClientSession, "echo")
}

func BenchmarkThroughputViaGateway(b *testing.B) {
	g, _ := newTestGateway(b, GatewayOptions{})
	addServer(b, g, "e", "echo")
	c := connectStream(b, g, UpstreamOptions{}, nil)
	parallelCalls(b, c.ClientSession, "e__echo")
}
