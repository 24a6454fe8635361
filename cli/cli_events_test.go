//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/store"
)

// gatewayConn is an assistant's MCP session with an instance, over its
// control socket (what `mcptray connect` does).
type gatewayConn struct {
	t     *testing.T
	rw    io.ReadWriteCloser
	r     *bufio.Reader
	id    int
	notes []string // the methods of the notifications read so far
}

func openGateway(t *testing.T, data string) *gatewayConn {
	t.Helper()
	return openGatewayWith(t, data, map[string]any{})
}

// openGatewayWith opens a session whose assistant declares capabilities.
func openGatewayWith(t *testing.T, data string, capabilities map[string]any) *gatewayConn {
	t.Helper()
	cl, err := control.Dial(data)
	if err != nil {
		t.Fatal(err)
	}
	rw, err := cl.OpenMCP(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rw.Close() })
	g := &gatewayConn{t: t, rw: rw, r: bufio.NewReader(rw)}
	g.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": map[string]any{"name": "test", "version": "1"}})
	rw.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	return g
}

// call sends a request and returns its result, or "" and the error.
func (g *gatewayConn) call(method string, params any) (json.RawMessage, string) {
	g.t.Helper()
	g.id++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": g.id, "method": method, "params": params})
	if _, err := g.rw.Write(append(msg, '\n')); err != nil {
		g.t.Fatal(err)
	}
	for {
		line, err := g.r.ReadBytes('\n')
		if err != nil {
			g.t.Fatalf("%s: %v", method, err)
		}
		var resp struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		json.Unmarshal(line, &resp)
		if resp.Method != "" {
			g.notes = append(g.notes, resp.Method) // a notification, or a request to the assistant
			continue
		}
		if resp.ID != nil && *resp.ID == g.id {
			return resp.Result, string(resp.Error)
		}
	}
}

// tool calls a tool once the gateway routes it (a server turns ready a
// moment before its tools are routed).
func (g *gatewayConn) tool(name string, args any) json.RawMessage {
	g.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, errText := g.call("tools/call", map[string]any{"name": name, "arguments": args})
		if errText == "" {
			return res
		}
		if !strings.Contains(errText, "unknown tool") || time.Now().After(deadline) {
			g.t.Fatalf("%s: %s", name, errText)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type eventsJSON struct {
	Events []struct {
		ID       int64           `json:"id"`
		Server   string          `json:"server"`
		Method   string          `json:"method"`
		Params   json.RawMessage `json:"params"`
		Received *time.Time      `json:"received"`
		Acked    *time.Time      `json:"acked"`
	} `json:"events"`
}

func (in *instance) events(args ...string) eventsJSON {
	in.T.Helper()
	code, out, errs := in.Run(append([]string{"events", "--json"}, args...)...)
	if code != 0 {
		in.T.Fatalf("events --json: exit %d: %s", code, errs)
	}
	var ev eventsJSON
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		in.T.Fatalf("events --json is not JSON: %v\n%s", err, out)
	}
	return ev
}

// allEvents reads every event, acknowledged too, a page of 10000 at a
// time with --since.
func (in *instance) allEvents() eventsJSON {
	in.T.Helper()
	var all eventsJSON
	for {
		var since int64
		if n := len(all.Events); n > 0 {
			since = all.Events[n-1].ID
		}
		page := in.events("--all", "--limit", "10000", "--since", strconv.FormatInt(since, 10))
		all.Events = append(all.Events, page.Events...)
		if len(page.Events) < 10000 {
			return all
		}
	}
}

// TestCLIEvents: a server's event/new_email shows up in `mcptray events`
// (text and JSON, DESIGN.md §12) and through the gateway's
// mcptray__events; `events ack` and `history` work; bad command lines say
// what is wrong.
func TestCLIEvents(t *testing.T) {
	in := startDaemon(t, map[string]any{"mail": fakeEntry(t, "events")})
	in.WaitFor("ready", states("mail", "ready"))
	g := openGateway(t, in.Data)

	if code, out, _ := in.Run("events"); code != 0 || out != "no unacknowledged events\n" {
		t.Errorf("events before any: %d %q", code, out)
	}
	if ev := in.events(); ev.Events == nil || len(ev.Events) != 0 {
		t.Errorf("events --json before any: %+v (want an empty array)", ev)
	}
	g.tool("mail__emit_raw", map[string]any{"line": `{"jsonrpc":"2.0","method":"event/new_email","params":{"subject":"Lunch?","from":"ada@example.com","id":"m1"}}`})
	g.tool("mail__emit", map[string]any{"count": 2, "method": "event/new_calendar_event"})
	waitFor(t, "3 events", func() bool { return len(in.events().Events) == 3 })

	ev := in.events()
	e := ev.Events[0]
	var params bytes.Buffer
	json.Compact(&params, e.Params)
	if e.ID != 1 || e.Server != "mail" || e.Method != "event/new_email" || params.String() != `{"subject":"Lunch?","from":"ada@example.com","id":"m1"}` || e.Received == nil || e.Acked != nil {
		t.Errorf("events --json [0] = %+v", e)
	}
	code, out, _ := in.Run("events")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[1], "mail") || !strings.Contains(lines[1], "event/new_email") || !strings.HasSuffix(lines[1], "Lunch?") || !strings.HasSuffix(lines[3], "event 1") {
		t.Errorf("events:\n%s", out)
	}

	res := g.tool("mcptray__events", map[string]any{})
	var r struct {
		StructuredContent struct {
			Events []struct {
				ID     int64  `json:"id"`
				Method string `json:"method"`
			} `json:"events"`
		} `json:"structuredContent"`
	}
	json.Unmarshal(res, &r)
	if len(r.StructuredContent.Events) != 3 || r.StructuredContent.Events[0].Method != "event/new_email" {
		t.Errorf("mcptray__events = %s", res)
	}

	if code, out, errs := in.Run("events", "ack", "1"); code != 0 || out != "1 event acknowledged\n" {
		t.Errorf("events ack 1: %d %q %q", code, out, errs)
	}
	if ev := in.events(); len(ev.Events) != 2 || ev.Events[0].ID != 2 {
		t.Errorf("after ack: %+v", ev)
	}
	if ev := in.events("--all", "--server", "mail", "--since", "0"); len(ev.Events) != 3 || ev.Events[0].Acked == nil {
		t.Errorf("--all: %+v", ev)
	}
	if ev := in.events("--since", "2"); len(ev.Events) != 1 || ev.Events[0].ID != 3 {
		t.Errorf("--since 2: %+v", ev)
	}
	if ev := in.events("--server", "other"); len(ev.Events) != 0 {
		t.Errorf("--server other: %+v", ev)
	}
	if code, out, _ := in.Run("events", "--all"); code != 0 || !strings.Contains(strings.Split(out, "\n")[0], "ACKED") {
		t.Errorf("events --all:\n%s", out)
	}

	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"events", "ack", "99"}, 1, "mcptray: no such event: no event has id 99\n"},
		{[]string{"events", "ack"}, 2, "mcptray: events ack takes event ids or --all\n"},
		{[]string{"events", "ack", "x1"}, 2, "mcptray: events ack takes event ids (numbers, as `mcptray events` shows them), got \"x1\"\n"},
		{[]string{"events", "ack", "2", "--all"}, 2, "mcptray: events ack takes event ids or --all, not both\n"},
		{[]string{"events", "ack", "2", "--server", "mail"}, 2, "mcptray: --server goes with --all\n"},
		{[]string{"events", "--since", "-4"}, 2, "mcptray: --since takes an event id (0 or more), got -4\n"},
		{[]string{"events", "--since", "soon"}, 2, "mcptray: invalid value \"soon\" for flag -since: parse error\n"},
		{[]string{"events", "extra"}, 2, "mcptray: events takes 0 argument(s), got 1\n"},
		{[]string{"history", "--limit", "0"}, 2, "mcptray: --limit takes a number of calls (1 or more), got 0\n"},
	} {
		code, _, errs := in.Run(c.args...)
		first := errs
		if i := strings.Index(errs, "run 'mcptray "); i >= 0 && c.code == 2 {
			first = errs[:i] // the pointer to the usage: help_test.go
		}
		if code != c.code || first != c.err {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, code, first, c.code, c.err)
		}
	}
	if code, out, _ := in.Run("events", "ack", "--all", "--server", "mail"); code != 0 || out != "2 events acknowledged\n" {
		t.Errorf("events ack --all: %d %q", code, out)
	}

	code, out, _ = in.Run("history", "--json")
	var h struct {
		Calls []struct {
			Server, Tool, Outcome string
			DurationMS            float64 `json:"durationMs"`
		} `json:"calls"`
	}
	if err := json.Unmarshal([]byte(out), &h); code != 0 || err != nil || len(h.Calls) < 2 || h.Calls[0].Tool != "emit" || h.Calls[0].Server != "mail" || h.Calls[0].Outcome != "ok" {
		t.Errorf("history --json: %d %v\n%s", code, err, out)
	}
	if code, out, _ := in.Run("history"); code != 0 || !strings.HasPrefix(out, "STARTED") || !strings.Contains(out, "emit_raw") {
		t.Errorf("history:\n%s", out)
	}
}

// TestEventsSurviveKill9: mcptray is killed with SIGKILL in the middle of
// a burst; after a restart, every event committed before the kill is
// there, in order, with no gap and no duplicate.
func TestEventsSurviveKill9(t *testing.T) {
	in := startDaemon(t, map[string]any{"burst": fakeEntry(t, "events")})
	in.WaitFor("ready", states("burst", "ready"))
	g := openGateway(t, in.Data)
	// Opened before the burst: opening takes the write lock for a moment,
	// which a burst may keep busy for longer than the busy timeout.
	st, err := store.Open(filepath.Join(in.Data, "mcptray.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const total = 200000
	g.tool("burst__emit_async", map[string]any{"count": total})
	var committed int
	waitFor(t, "a part of the burst to be stored", func() bool {
		committed, err = st.UnackedEvents(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return committed >= 5000
	})
	in.Cmd.Process.Signal(syscall.SIGKILL)
	<-in.Exited
	if committed >= total {
		t.Fatalf("the burst was over before the kill (%d events); make it longer", committed)
	}

	in.Start()
	ev := in.allEvents()
	if len(ev.Events) < committed {
		t.Fatalf("%d events after the restart, %d were committed before the kill", len(ev.Events), committed)
	}
	for i, e := range ev.Events {
		var p struct{ N int }
		json.Unmarshal(e.Params, &p)
		if p.N != i || e.ID != int64(i+1) {
			t.Fatalf("event %d after the restart: id %d, params %s", i, e.ID, e.Params)
		}
	}
	t.Logf("killed with %d of %d events committed; %d stored after the restart", committed, total, len(ev.Events))

}

// TestCLIEventsLimit: with 5000 events, `mcptray events` prints the newest
// 100 and a line saying how many more there are and how to see them;
// --limit and --since page; --json follows the same limit and says how
// many it left out; bad --limit values are usage errors.
func TestCLIEventsLimit(t *testing.T) {
	in := startDaemon(t, map[string]any{"many": fakeEntry(t, "events")})
	in.WaitFor("ready", states("many", "ready"))
	st, err := store.Open(filepath.Join(in.Data, "mcptray.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const total = 5000
	openGateway(t, in.Data).tool("many__emit", map[string]any{"count": total})
	waitFor(t, "5000 events stored", func() bool {
		n, err := st.UnackedEvents(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n == total
	})

	// rows runs events and returns the ids it lists and its last line.
	rows := func(args ...string) (ids []int64, last string, size int) {
		t.Helper()
		code, out, errs := in.Run(append([]string{"events"}, args...)...)
		if code != 0 {
			t.Fatalf("events %v: exit %d: %s", args, code, errs)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for _, l := range lines[1:] {
			var id int64
			if _, err := fmt.Sscan(l, &id); err == nil && strings.Contains(l, " many ") {
				ids = append(ids, id)
			}
		}
		return ids, lines[len(lines)-1], len(out)
	}
	span := func(ids []int64) string {
		if len(ids) == 0 {
			return "none"
		}
		return fmt.Sprintf("%d×[%d…%d]", len(ids), ids[0], ids[len(ids)-1])
	}

	ids, last, size := rows()
	if span(ids) != "100×[4901…5000]" || last != "4900 older events not shown: --limit N shows more (up to 10000), --since 0 lists from the oldest" || size > 20000 {
		t.Errorf("events: %s, %d bytes, last line %q", span(ids), size, last)
	}
	if ids, last, _ := rows("--limit", "10", "--all"); span(ids) != "10×[4991…5000]" || !strings.HasPrefix(last, "4990 older events not shown") {
		t.Errorf("events --limit 10 --all: %s, last line %q", span(ids), last)
	}
	if ids, last, _ := rows("--since", "0", "--limit", "10"); span(ids) != "10×[1…10]" || last != "4990 more events after these: --since 10 lists the next ones" {
		t.Errorf("events --since 0 --limit 10: %s, last line %q", span(ids), last)
	}
	if ids, last, _ := rows("--since", "4990", "--server", "many"); span(ids) != "10×[4991…5000]" || !strings.HasPrefix(last, "5000 ") {
		t.Errorf("events --since 4990: %s, last line %q", span(ids), last)
	}
	if ids, _, _ := rows("--limit", "10000"); span(ids) != "5000×[1…5000]" {
		t.Errorf("events --limit 10000: %s", span(ids))
	}

	code, out, errs := in.Run("events", "--json")
	var page struct {
		Events   []struct{ ID int64 } `json:"events"`
		NotShown *int                 `json:"notShown"`
	}
	if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Events) != 100 || page.Events[0].ID != 4901 || page.NotShown == nil || *page.NotShown != 4900 {
		t.Errorf("events --json: exit %d %v %s, %d events, notShown %v", code, err, errs, len(page.Events), page.NotShown)
	}
	if ev := in.events("--since", "4990"); len(ev.Events) != 10 || ev.Events[0].ID != 4991 {
		t.Errorf("events --json --since 4990: %d events", len(ev.Events))
	}

	for _, c := range []struct{ limit, err string }{
		{"0", "mcptray: --limit takes a number of events (1 to 10000), got 0\n"},
		{"-1", "mcptray: --limit takes a number of events (1 to 10000), got -1\n"},
		{"10001", "mcptray: --limit takes a number of events (1 to 10000), got 10001\n"},
		{"abc", "mcptray: invalid value \"abc\" for flag -limit: parse error\n"},
	} {
		code, _, errs := in.Run("events", "--limit", c.limit)
		if i := strings.Index(errs, "run 'mcptray "); i >= 0 {
			errs = errs[:i] // the pointer to the usage: help_test.go
		}
		if code != 2 || errs != c.err {
			t.Errorf("events --limit %s: exit %d, stderr %q; want 2, %q", c.limit, code, errs, c.err)
		}
	}
}
