package app

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/internal/testkit"
)

// waitTools waits until the gateway lists every tool in names.
func (c *rpc) waitTools(names ...string) {
	c.t.Helper()
	if !testkit.Eventually(testkit.Deadline, func() bool {
		var list struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		json.Unmarshal(c.call("tools/list", map[string]any{}), &list)
		for _, n := range names {
			if !slices.ContainsFunc(list.Tools, func(t struct{ Name string }) bool { return t.Name == n }) {
				return false
			}
		}
		return true
	}) {
		c.t.Fatalf("tools %v never listed", names)
	}
}

// stampLatency is, for each new event with params.t (the server's clock
// when it wrote the event), the time until the core published it — that
// is, after its transaction committed and the row was visible.
func stampLatency(evs []events.Event, at time.Time) []time.Duration {
	out := make([]time.Duration, 0, len(evs))
	for _, e := range evs {
		var p struct{ T int64 }
		if json.Unmarshal(e.Params, &p) == nil && p.T > 0 {
			out = append(out, at.Sub(time.Unix(0, p.T)))
		}
	}
	return out
}

func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// BenchmarkEventIngest: a real server writes b.N events as fast as it can;
// events/s is from the first write to the last row visible; the latency
// percentiles are from each event's write to its row being visible (under
// this full load, so they include queueing).
func BenchmarkEventIngest(b *testing.B) {
	core, _, stop := benchCore(b, servers("ev", fake(b, "events")))
	defer stop()
	waitCore(b, core, allReady(1))
	c := dialRPC(b, core.opts.DataDir, "", "")
	c.waitTools("ev__emit_async")
	changes, cancel := core.SubscribeEvents()
	defer cancel()
	b.ResetTimer()
	t0 := time.Now()
	c.call("tools/call", map[string]any{"name": "ev__emit_async", "arguments": map[string]any{"count": b.N}})
	var lat []time.Duration
	got := 0
	for got < b.N {
		select {
		case ch := <-changes:
			if ch.Missed {
				b.Fatal("the benchmark's subscription fell behind")
			}
			lat = append(lat, stampLatency(ch.New, time.Now())...)
			got += len(ch.New)
		case <-time.After(60 * time.Second):
			b.Fatalf("%d of %d events after 60 s", got, b.N)
		}
	}
	elapsed := time.Since(t0)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "ms-p99")
}

// BenchmarkEventLatency: one event at a time; the time from the server's
// write to the row being visible.
func BenchmarkEventLatency(b *testing.B) {
	core, _, stop := benchCore(b, servers("ev", fake(b, "events")))
	defer stop()
	waitCore(b, core, allReady(1))
	c := dialRPC(b, core.opts.DataDir, "", "")
	c.waitTools("ev__emit_async")
	changes, cancel := core.SubscribeEvents()
	defer cancel()
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.call("tools/call", map[string]any{"name": "ev__emit_async", "arguments": map[string]any{"count": 1}})
		select {
		case ch := <-changes:
			lat = append(lat, stampLatency(ch.New, time.Now())...)
		case <-time.After(10 * time.Second):
			b.Fatal("no event")
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "ms-p99")

}
