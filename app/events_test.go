package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/store"
)

// recordingNotifier keeps what it was asked to show (app/events has its
// own, for the coalescer's tests).
type recordingNotifier struct {
	mu    sync.Mutex
	notes []events.Notification // guarded by mu
	added chan struct{}         // gets a value per notification (cap 100)
}

func newRecordingNotifier() *recordingNotifier {
	return &recordingNotifier{added: make(chan struct{}, 100)}
}

func (r *recordingNotifier) Notify(n events.Notification) {
	r.mu.Lock()
	r.notes = append(r.notes, n)
	r.mu.Unlock()
	select {
	case r.added <- struct{}{}:
	default:
	}
}

func (r *recordingNotifier) all() []events.Notification {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.Notification(nil), r.notes...)
}

// eventsList is what mcptray__events and mcptray://events return, as an
// assistant reads it.
type eventsList struct {
	Events []events.Event `json:"events"`
	More   bool           `json:"more"`
}

// waitEvents polls the store until f selects at least n events.
func (h *harness) waitEvents(n int, f events.Filter) []events.Event {
	h.t.Helper()
	var evs []events.Event
	var err error
	if !testkit.Eventually(60*time.Second, func() bool {
		evs, err = h.core.Events(f)
		return err != nil || len(evs) >= n
	}) {
		h.t.Fatalf("%d events stored, want %d", len(evs), n)
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return evs
}

// toolText is the text of a tools/call result's first content block.
func toolText(t *testing.T, res json.RawMessage) (string, bool) {
	t.Helper()
	var r struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("not a tool result: %s", res)
	}
	return r.Content[0].Text, r.IsError
}

// openEvents opens a gateway session once it lists names: a server's
// state turns ready a moment before the gateway shows its tools.
func openEvents(t *testing.T, h *harness, names ...string) *rpc {
	t.Helper()
	c := openRPC(t, h, "", "")
	testkit.WaitFor(t, fmt.Sprintf("tools %v", names), func() bool {
		got := listedNames(t, c.call("tools/list", map[string]any{}))
		for _, n := range names {
			if !slices.Contains(got, n) {
				return false
			}
		}
		return true
	})
	// The gateway lists a tool a moment before it routes calls to it:
	// call each server's echo until it answers.
	for _, n := range names {
		server, _, _ := strings.Cut(n, "__")
		testkit.WaitFor(t, server+"__echo to answer", func() bool { return tryCall(c, server+"__echo", map[string]any{"message": "probe"}) })
	}
	return c
}

// tryCall calls a tool and reports whether it answered without a
// JSON-RPC error.
func tryCall(c *rpc, name string, args any) bool {
	c.t.Helper()
	c.id++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	if _, err := c.rw.Write(append(msg, '\n')); err != nil {
		c.t.Fatal(err)
	}
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("reading reply: %v", err)
		}
		var resp struct {
			ID    *int            `json:"id"`
			Error json.RawMessage `json:"error"`
		}
		json.Unmarshal(line, &resp)
		if resp.ID != nil && *resp.ID == c.id {
			return resp.Error == nil
		}
	}
}

func callTool(c *rpc, name string, args any) json.RawMessage {
	return c.call("tools/call", map[string]any{"name": name, "arguments": args})
}

// TestEventBurst: a real server writes 10 000 events as fast as it can
// while tool calls go to it; every event is stored, in order, and the
// calls are answered meanwhile.
func TestEventBurst(t *testing.T) {
	h := startCore(t, servers("ev", fake(t, "events")))
	h.wait("ev ready", stateIs("ev", control.StateReady))
	c := openEvents(t, h, "ev__emit_async")
	const total = 10000
	t0 := time.Now()
	if text, _ := toolText(t, callTool(c, "ev__emit_async", map[string]any{"count": total})); text != "emitting 10000" {
		t.Fatalf("emit_async: %s", text)
	}
	calls, during := 0, 0
	for {
		n, err := h.core.UnackedEvents()
		if err != nil {
			t.Fatal(err)
		}
		if n >= total {
			break
		}
		if time.Since(t0) > 60*time.Second {
			t.Fatalf("only %d of %d events stored after 60 s", n, total)
		}
		c0 := time.Now()
		msg := fmt.Sprintf("call %d", calls)
		if text, _ := toolText(t, callTool(c, "ev__echo", map[string]any{"message": msg})); text != msg {
			t.Fatalf("echo during the burst = %q", text)
		}
		if d := time.Since(c0); d > 5*time.Second {
			t.Errorf("a call during the burst took %s", d)
		}
		calls++
		if n > 0 {
			during++
		}
	}
	elapsed := time.Since(t0)
	t.Logf("%d events stored in %s (%.0f/s); %d calls answered, %d while events were arriving", total, elapsed, total/elapsed.Seconds(), calls, during)

	evs, err := h.core.Events(events.Filter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != total {
		t.Fatalf("%d events stored, want %d", len(evs), total)
	}
	for i, e := range evs {
		var p struct{ N int }
		json.Unmarshal(e.Params, &p)
		if p.N != i || e.Server != "ev" || e.Method != "event/test" || (i > 0 && e.ID <= evs[i-1].ID) {
			t.Fatalf("event %d = %+v (params %s); want n=%d in id order", i, e, e.Params, i)
		}
	}
	// The server kept running throughout.
	if s := h.server("ev"); s.State != control.StateReady || s.Restarts != 0 {
		t.Errorf("server after the burst: %+v", s)
	}
}

// TestEventsMalformed: bad notifications are logged and skipped; the
// session goes on and later events are stored.
func TestEventsMalformed(t *testing.T) {
	h := startCore(t, servers("ev", fake(t, "events")))
	h.wait("ev ready", stateIs("ev", control.StateReady))
	pid := h.server("ev").PID
	c := openEvents(t, h, "ev__emit_raw")
	for _, line := range []string{
		`{"jsonrpc":"2.0","params":{"title":"no method"}}`,
		`{"jsonrpc":"2.0","method":"event/array","params":[1,2]}`,
		`{"jsonrpc":"2.0","method":"event/string","params":"hello"}`,
		`{"jsonrpc":"2.0","method":"event/number","params":42}`,
		`{"jsonrpc":"2.0","method":"event/broken","params":{"a":`,
		`{"jsonrpc":"2.0","method":"","params":{}}`,
		`{"jsonrpc":"2.0","method":"` + strings.Repeat("m", 300) + `"}`,
		`not json at all`,
	} {
		callTool(c, "ev__emit_raw", map[string]any{"line": line})
	}
	callTool(c, "ev__emit_big", map[string]any{"bytes": 10 << 20})
	callTool(c, "ev__emit_raw", map[string]any{"line": `{"jsonrpc":"2.0","method":"event/bare"}`})
	callTool(c, "ev__emit_raw", map[string]any{"line": `{"jsonrpc":"2.0","method":"event/null","params":null}`})
	callTool(c, "ev__emit", map[string]any{"count": 1, "method": "event/good"})

	evs := h.waitEvents(3, events.Filter{})
	var got []string
	for _, e := range evs {
		got = append(got, e.Method+" "+string(e.Params))
	}
	if want := `event/bare {}|event/null {}|event/good {"n":0,"title":"event 0"}`; strings.Join(got, "|") != want {
		t.Errorf("stored:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	log := h.waitLog("ev", "event/big")
	for _, want := range []string{
		`[stdout] {"jsonrpc":"2.0","params":{"title":"no method"}}`,
		`[event] event "event/array" skipped: params must be a JSON object, got an array`,
		`[event] event "event/string" skipped: params must be a JSON object, got a string`,
		`[event] event "event/number" skipped: params must be a JSON object, got a number`,
		`[stdout] {"jsonrpc":"2.0","method":"event/broken","params":{"a":`,
		`[event] notification skipped: its method is empty`,
		`[event] notification skipped: its method is 300 bytes long, over the 256-byte limit`,
		`[stdout] not json at all`,
		`[event] event "event/big" skipped: its params are 10485771 bytes, over the 1 MiB limit`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, tail(log, 2000))
		}
	}
	if s := h.server("ev"); s.State != control.StateReady || s.PID != pid {
		t.Errorf("the session did not survive: %+v", s)
	}
	if text, _ := toolText(t, callTool(c, "ev__echo", map[string]any{"message": "still here"})); text != "still here" {
		t.Errorf("echo after bad events = %q", text)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestEventNotifications: events become notifications with the server's
// name and the event's title and body; x-mcptray.notify false silences a
// server; a bad value is logged and leaves notifications on.
func TestEventNotifications(t *testing.T) {
	rec := newRecordingNotifier()
	quiet := `{"command": ` + mustQuote(testBin(t)) + `, "env": {"MCPTRAY_FAKE_SERVER": "events", "GORACE": "atexit_sleep_ms=0"}, "x-mcptray": {"notify": false}}`
	odd := `{"command": ` + mustQuote(testBin(t)) + `, "env": {"MCPTRAY_FAKE_SERVER": "events", "GORACE": "atexit_sleep_ms=0"}, "x-mcptray": {"notify": "no"}}`
	h := startCore(t, servers("quiet", quiet, "loud", fake(t, "events"), "odd", odd), func(o *Options) { o.Notifier = rec })
	h.wait("ready", stateIs("quiet", control.StateReady, "loud", control.StateReady, "odd", control.StateReady))
	c := openEvents(t, h, "quiet__emit_raw", "loud__emit_raw", "odd__emit")

	callTool(c, "quiet__emit_raw", map[string]any{"line": `{"jsonrpc":"2.0","method":"event/new_email","params":{"subject":"psst"}}`})
	h.waitEvents(1, events.Filter{Server: "quiet"})
	callTool(c, "loud__emit_raw", map[string]any{"line": `{"jsonrpc":"2.0","method":"event/new_email","params":{"subject":"Lunch at noon?","snippet":"Are you free today","from":"ada@example.com"}}`})
	select {
	case <-rec.added:
	case <-time.After(20 * time.Second):
		t.Fatal("no notification")
	}
	want := events.Notification{Server: "loud", Title: "loud: Lunch at noon?", Body: "Are you free today", Events: 1, LastID: 2}
	if got := rec.all(); len(got) != 1 || got[0] != want {
		t.Errorf("notifications = %+v; want only %+v (quiet is silenced)", got, want)
	}
	if log := h.waitLog("odd", "x-mcptray.notify"); !strings.Contains(log, `[lifecycle] x-mcptray.notify must be true or false, got "no": notifications stay on`) {
		t.Errorf("odd's log:\n%s", log)
	}
	callTool(c, "odd__emit", map[string]any{"count": 1})
	select {
	case <-rec.added:
	case <-time.After(20 * time.Second):
		t.Fatal("no notification from the server with a bad notify value")
	}
	if got := rec.all(); got[len(got)-1].Title != "odd: event 0" {
		t.Errorf("last notification = %+v", got[len(got)-1])
	}
}

func mustQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestEventsAPI: the core's API, the control API (the CLI's client), the
// gateway's tools and resource, and the subscriptions agree; bad requests
// get messages a person can act on.
func TestEventsAPI(t *testing.T) {
	h := startCore(t, servers("ev", fake(t, "events"), "ev2", fake(t, "events")))
	h.wait("ready", stateIs("ev", control.StateReady, "ev2", control.StateReady))
	changes, cancel := h.core.SubscribeEvents()
	defer cancel()
	c := openEvents(t, h, "ev__emit", "ev2__emit")
	callTool(c, "ev__emit", map[string]any{"count": 3, "method": "event/new_email"})
	h.waitEvents(3, events.Filter{})
	callTool(c, "ev2__emit", map[string]any{"count": 2})
	h.waitEvents(5, events.Filter{})

	var seen []int64
	for len(seen) < 5 {
		select {
		case ch := <-changes:
			for _, e := range ch.New {
				seen = append(seen, e.ID)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("subscriber saw %v", seen)
		}
	}
	if fmt.Sprint(seen) != "[1 2 3 4 5]" {
		t.Errorf("subscriber saw %v", seen)
	}

	// The gateway's tool: JSON in structuredContent and as text.
	res := callTool(c, "mcptray__events", map[string]any{"server": "ev", "limit": 2})
	var r struct {
		Content           []struct{ Text string } `json:"content"`
		StructuredContent eventsList              `json:"structuredContent"`
		IsError           bool                    `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	sc := r.StructuredContent
	if r.IsError || len(sc.Events) != 2 || !sc.More || sc.Events[0].ID != 1 || sc.Events[0].Method != "event/new_email" || string(sc.Events[1].Params) != `{"n":1,"title":"event 1"}` {
		t.Fatalf("mcptray__events = %s", res)
	}
	var mirror eventsList
	if err := json.Unmarshal([]byte(r.Content[0].Text), &mirror); err != nil || len(mirror.Events) != 2 || mirror.Events[1].ID != 2 {
		t.Errorf("text mirror: %q (%v)", r.Content[0].Text, err)
	}
	res = callTool(c, "mcptray__events", map[string]any{"server": "ev", "since": 2})
	json.Unmarshal(res, &r)
	if len(r.StructuredContent.Events) != 1 || r.StructuredContent.Events[0].ID != 3 || r.StructuredContent.More {
		t.Errorf("since 2: %s", res)
	}
	for args, want := range map[string]string{
		`{"limit": 5000}`:   "limit must be between 1 and 1000, got 5000",
		`{"since": -1}`:     "since must be an event id (0 or more), got -1",
		`{"limit": "many"}`: "argument limit must be an integer",
		`{"sever": "ev"}`:   `arguments: json: unknown field "sever"`,
	} {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		if text, isErr := toolText(t, callTool(c, "mcptray__events", a)); !isErr || text != want {
			t.Errorf("mcptray__events %s = %q (isError %t); want %q", args, text, isErr, want)
		}
	}

	// The resource mirrors the tool.
	read := c.call("resources/read", map[string]any{"uri": events.URI})
	var rr struct {
		Contents []struct{ URI, MimeType, Text string } `json:"contents"`
	}
	json.Unmarshal(read, &rr)
	var fromRes eventsList
	if len(rr.Contents) != 1 || rr.Contents[0].MimeType != "application/json" || json.Unmarshal([]byte(rr.Contents[0].Text), &fromRes) != nil || len(fromRes.Events) != 5 {
		t.Errorf("resources/read %s = %s", events.URI, read)
	}

	// Acks through the gateway.
	if text, isErr := toolText(t, callTool(c, "mcptray__ack_events", map[string]any{"ids": []int64{1, 2}})); isErr || !strings.Contains(text, `"acked": 2`) {
		t.Errorf("ack 1, 2: %s", text)
	}
	for args, want := range map[string]string{
		`{"ids": [99]}`:                "no such event: no event has id 99",
		`{}`:                           "nothing to acknowledge: give event ids or all",
		`{"ids": [3], "all": true}`:    "give event ids or all, not both",
		`{"ids": [3], "server": "ev"}`: "a server narrows all only; give ids alone",
	} {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		if text, isErr := toolText(t, callTool(c, "mcptray__ack_events", a)); !isErr || text != want {
			t.Errorf("mcptray__ack_events %s = %q (isError %t); want %q", args, text, isErr, want)
		}
	}
	select {
	case ch := <-changes:
		if !ch.Acked {
			t.Errorf("change after an ack = %+v", ch)
		}
	case <-time.After(10 * time.Second):
		t.Error("no change after an ack")
	}

	// The control API, as the CLI uses it.
	cl, err := control.Dial(h.data)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	evs, err := cl.Events(ctx, events.Filter{})
	if err != nil || len(evs) != 3 || evs[0].ID != 3 || evs[0].Acked != nil {
		t.Fatalf("client Events = %+v, %v", evs, err)
	}
	all, _ := cl.Events(ctx, events.Filter{All: true, Server: "ev"})
	if len(all) != 3 || all[0].Acked == nil || all[2].Acked != nil {
		t.Errorf("client Events all = %+v", all)
	}
	if page, err := cl.EventPage(ctx, events.Filter{All: true, Server: "ev", Limit: 2, Newest: true}); err != nil || len(page.Events) != 2 ||
		page.Events[1].ID != all[2].ID || page.NotShown != 1 {
		t.Errorf("client control.EventPage newest 2 = %+v, %v", page, err)
	}
	if page, err := cl.EventPage(ctx, events.Filter{All: true, Server: "ev", Limit: 2}); err != nil || len(page.Events) != 2 ||
		page.Events[0].ID != all[0].ID || page.NotShown != 1 {
		t.Errorf("client control.EventPage oldest 2 = %+v, %v", page, err)
	}
	if n, err := cl.AckEvents(ctx, events.AckRequest{All: true, Server: "ev2"}); n != 2 || err != nil {
		t.Errorf("ack all of ev2 = %d, %v", n, err)
	}
	if _, err := cl.AckEvents(ctx, events.AckRequest{IDs: []int64{3, 77, 78}}); err == nil || err.Error() != "no such event: no events have ids 77, 78" {
		t.Errorf("ack unknown ids: %v", err)
	}
	if _, err := cl.AckEvents(ctx, events.AckRequest{}); err == nil || err.Error() != "nothing to acknowledge: give event ids or all" {
		t.Errorf("empty ack: %v", err)
	}
	if n, err := cl.AckEvents(ctx, events.AckRequest{All: true}); n != 1 || err != nil {
		t.Errorf("ack all = %d, %v", n, err)
	}
	if n, _ := h.core.UnackedEvents(); n != 0 {
		t.Errorf("%d unacked after ack all", n)
	}
	for query, want := range map[string]string{
		"since=x":  `since must be an event id (a whole number, 0 or more), got "x"`,
		"limit=-3": `limit must be a number of events (a whole number, 0 or more), got "-3"`,
		"all=yes":  `all must be true or false, got "yes"`,
		"newest=2": `newest must be true or false, got "2"`,
	} {
		if code, msg := controlGet(t, h.data, "/v1/events?"+query); code != http.StatusBadRequest || msg != want {
			t.Errorf("GET /v1/events?%s: %d %q; want 400 %q", query, code, msg, want)
		}
	}
}

// TestToolCallHistory: the gateway's calls are recorded (no arguments) and
// listed newest first.
func TestToolCallHistory(t *testing.T) {
	h := startCore(t, servers("ev", fake(t, "events")))
	h.wait("ready", stateIs("ev", control.StateReady))
	c := openEvents(t, h, "ev__echo", "ev__add")
	callTool(c, "ev__echo", map[string]any{"message": "secret-argument"})
	callTool(c, "ev__add", map[string]any{"a": 1, "b": 2})
	callTool(c, "ev__add", map[string]any{"a": "not a number"})
	cl, err := control.Dial(h.data)
	if err != nil {
		t.Fatal(err)
	}
	var calls []control.ToolCall
	testkit.WaitFor(t, "the calls in the history", func() bool {
		calls, err = cl.History(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(calls) >= 4 && calls[0].Tool == "add" && calls[0].Outcome == "error"
	})
	calls = calls[:3] // before them: openEvents's probes
	var got []string
	for _, c := range calls {
		if c.Server != "ev" || c.Started.IsZero() || c.DurationMS <= 0 {
			t.Errorf("call %+v", c)
		}
		got = append(got, c.Tool+" "+c.Outcome)
	}
	if strings.Join(got, ", ") != "add error, add ok, echo ok" {
		t.Errorf("history = %s", strings.Join(got, ", "))
	}
	b, _ := json.Marshal(calls)
	if strings.Contains(string(b), "secret-argument") {
		t.Errorf("history holds an argument: %s", b)
	}
	if last, _ := cl.History(context.Background(), 1); len(last) != 1 || last[0].Tool != "add" {
		t.Errorf("History(1) = %+v", last)
	}
}

// TestEventRetention: acknowledged events older than the retention period
// go at start-up and when the setting changes; unacknowledged ones stay.
func TestEventRetention(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	st, err := store.Open(dbPath(data))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	day := 24 * time.Hour
	old := []store.Event{
		{Server: "a", Method: "event/40d-acked", Params: json.RawMessage(`{}`), Received: time.Now().Add(-40 * day)},
		{Server: "a", Method: "event/40d-unacked", Params: json.RawMessage(`{}`), Received: time.Now().Add(-40 * day)},
		{Server: "a", Method: "event/10d-acked", Params: json.RawMessage(`{}`), Received: time.Now().Add(-10 * day)},
		{Server: "a", Method: "event/1d-acked", Params: json.RawMessage(`{}`), Received: time.Now().Add(-day)},
	}
	if err := st.AddEvents(ctx, old); err != nil {
		t.Fatal(err)
	}
	st.AckEvents(ctx, []int64{1, 3, 4}, time.Now())
	st.AddToolCalls(ctx, []store.ToolCall{{Server: "a", Tool: "t", Started: time.Now().Add(-40 * day), Outcome: "ok"}})
	st.Close()

	h := startCore(t, servers("e", fake(t, "echo")), func(o *Options) { o.DataDir = data })
	h.wait("ready", stateIs("e", control.StateReady))
	methods := func() string {
		evs, _ := h.core.Events(events.Filter{All: true})
		var m []string
		for _, e := range evs {
			m = append(m, strings.TrimPrefix(e.Method, "event/"))
		}
		return strings.Join(m, " ")
	}
	testkit.WaitFor(t, "start-up pruning", func() bool { return methods() == "40d-unacked 10d-acked 1d-acked" })
	if calls, _ := h.core.History(0); len(calls) != 0 {
		t.Errorf("old tool calls kept: %+v", calls)
	}
	h.write(`{"mcpServers": {"e": ` + fake(t, "echo") + `}, "x-mcptray": {"eventRetentionDays": 7}}`)
	testkit.WaitFor(t, "pruning after the setting changed", func() bool { return methods() == "40d-unacked 1d-acked" })
}

// TestEventsResourceUpdated: a session subscribed to mcptray://events
// hears of new events.
func TestEventsResourceUpdated(t *testing.T) {
	h := startCore(t, servers("ev", fake(t, "events")))
	h.wait("ready", stateIs("ev", control.StateReady))
	c := openEvents(t, h, "ev__emit")
	sub := openRPC(t, h, "", "")
	sub.call("resources/subscribe", map[string]any{"uri": events.URI})
	callTool(c, "ev__emit", map[string]any{"count": 1})
	got := make(chan string, 1)
	go func() {
		for {
			line, err := sub.r.ReadBytes('\n')
			if err != nil {
				got <- err.Error()
				return
			}
			if strings.Contains(string(line), `"notifications/resources/updated"`) {
				got <- string(line)
				return
			}
		}
	}()
	select {
	case line := <-got:
		if !strings.Contains(line, `"uri":"mcptray://events"`) {
			t.Errorf("got %s", line)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no notifications/resources/updated")
	}
}
