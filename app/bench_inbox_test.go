package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
)

// BenchmarkInboxArrival measures how long a server's elicitation takes to
// show in `mcptray inbox --json` (GET /v1/inbox over the control socket):
// from the assistant's tools/call to the request being listed. The target
// is ≤ 100 ms. Each iteration then answers it and waits for the tool's
// result. Reported: ms/visible (mean) and p99-ms.
func BenchmarkInboxArrival(b *testing.B) {
	core, _, stop := benchCore(b, servers("ask", fake(b, "asker")))
	defer stop()
	waitCore(b, core, allReady(1))
	ctx := context.Background()
	cl, err := control.Dial(core.opts.DataDir)
	if err != nil {
		b.Fatal(err)
	}
	rw, err := cl.OpenMCP(ctx, "", "")
	if err != nil {
		b.Fatal(err)
	}
	defer rw.Close()
	r := bufio.NewReader(rw)
	send := func(id int, method string, params any) {
		m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
		if id > 0 {
			m["id"] = id
		}
		msg, _ := json.Marshal(m)
		rw.Write(append(msg, '\n'))
	}
	await := func(id int) {
		want := fmt.Sprintf(`"id":%d`, id)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.Contains(line, want) {
				return
			}
		}
	}
	send(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "1"}})
	await(1)
	send(0, "notifications/initialized", nil)

	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		id := i + 2
		start := time.Now()
		send(id, "tools/call", map[string]any{"name": "ask__form", "arguments": map[string]any{"form": "confirm"}})
		var reqs []inbox.Request
		for len(reqs) == 0 {
			if reqs, err = cl.Inbox(ctx); err != nil {
				b.Fatal(err)
			}
			if time.Since(start) > 30*time.Second {
				b.Fatal("the request never showed in the inbox")
			}
		}
		lat = append(lat, time.Since(start))
		if err := cl.Answer(ctx, reqs[0].ID, inbox.Answer{Action: inbox.ActionAccept}); err != nil {
			b.Fatal(err)
		}
		await(id)
	}
	b.StopTimer()
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	slices.Sort(lat)
	b.ReportMetric(float64(sum.Microseconds())/float64(len(lat))/1000, "ms/visible")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
