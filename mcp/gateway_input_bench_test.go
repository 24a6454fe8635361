//go:build linux || windows

package mcp

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The gateway's benchmarks compare a call through the gateway with a
// direct call to the same kind of server, both on the same revision:
// go-sdk v1.8's server costs more per call on 2026-07-28 (it decodes
// every request's _meta and adds its serverInfo to every result), and
// that cost is the server's, not the gateway's. gateway_bench_test.go's
// servers are on 2025-11-25, as their direct client is (a server that
// serves both gets initialize: downstream.Start); the ratio below puts
// both sides on 2026-07-28.

// BenchmarkGatewayRatioNewWire is BenchmarkGatewayRatio with the server
// on 2026-07-28 both ways: directly, and behind the gateway, which
// splices the revision's _meta into each call and takes the server's
// resultType and serverInfo out of each result for its 2025-11-25
// assistant.
func BenchmarkGatewayRatioNewWire(b *testing.B) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = mcptest.Env("echo")
	client := sdk.NewClient(&sdk.Implementation{Name: "test-direct", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	direct, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: downstream.NewWireVersion})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { direct.Close() })
	g, _ := newTestGateway(b, GatewayOptions{})
	if f := addServer(b, g, "e", "echo", func(s *downstream.StdioSpec) { s.DiscoverFirst = true }); !f.NewWire() {
		b.Fatalf("the server speaks %s", f.ProtocolVersion())
	}
	via := connectStream(b, g, UpstreamOptions{}, nil)
	bg := context.Background()
	dp, vp := echoParams(), echoParams()
	vp.Name = "e__echo"
	for range 50 {
		direct.CallTool(bg, dp)
		via.CallTool(bg, vp)
	}
	var dl, vl []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := direct.CallTool(bg, dp); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := via.CallTool(bg, vp); err != nil {
			b.Fatal(err)
		}
		dl, vl = append(dl, t1.Sub(t0)), append(vl, time.Since(t1))
	}
	dm, vm := median(dl), median(vl)
	b.ReportMetric(float64(dm.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64(vm.Microseconds()), "gateway-p50-µs")
	b.ReportMetric(float64(vm)/float64(dm), "ratio")
}
