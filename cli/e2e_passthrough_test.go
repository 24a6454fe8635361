//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/inbox"
)

// aisdk runs testdata/aisdk-client.mjs: the Vercel AI SDK's MCP client
// (@ai-sdk/mcp, default options) connects, lists the tools and calls one.
// It returns the script's one JSON line, decoded.
func aisdk(t *testing.T, peers string, env []string, args ...string) map[string]any {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join("testdata", "aisdk-client.mjs"))
	cmd := exec.Command("node", append([]string{script, peers}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("aisdk-client %v: %v\n%s", args, err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("aisdk-client %v hung\n%s", args, stderr.String())
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("aisdk-client %v printed %q: %v\n%s", args, stdout.String(), err, stderr.String())
	}
	return out
}

// The Vercel AI SDK first sends server/discover (2026-07-28), which
// mcptray serves (docs/protocol.md): its calls work through `mcptray
// connect` and through the HTTP endpoint (/mcp and /mcp/NAME) alike.
func TestAISDKClientThroughConnectAndHTTP(t *testing.T) {
	peers := npmPeers(t)
	everything := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	in := startDaemon(t, map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{everything, "stdio"}},
	})
	in.WaitFor("everything ready", states("everything", "ready"))
	exe, _ := os.Executable()
	asMcptray := []string{"MCPTRAY_TEST_AS_MCPTRAY=1"}
	echo := `{"message":"hi there"}`

	check := func(how string, out map[string]any, tool string) {
		t.Helper()
		if e, ok := out["error"]; ok {
			t.Errorf("AI SDK through %s: %v (code %v)", how, e, out["code"])
			return
		}
		b, _ := json.Marshal(out["result"])
		if !strings.Contains(string(b), "hi there") {
			t.Errorf("AI SDK through %s: %s(%s) = %s", how, tool, echo, b)
		}
		if tools, _ := out["tools"].([]any); len(tools) < 5 {
			t.Errorf("AI SDK through %s lists %d tools", how, len(tools))
		}
	}
	direct := aisdk(t, peers, nil, "stdio", "echo", echo, "node", everything, "stdio")
	check("nothing (direct)", direct, "echo")
	check("connect", aisdk(t, peers, asMcptray, "stdio", "everything__echo", echo, exe, "connect", "--data", in.Data, "--config", in.Config), "everything__echo")
	check("connect --server", aisdk(t, peers, asMcptray, "stdio", "echo", echo, exe, "connect", "--server", "everything", "--data", in.Data, "--config", in.Config), "echo")

	ep, err := app.ReadEndpoint(in.Data)
	if err != nil && os.Getenv("MCPTRAY_TEST_SESSION") != "1" {
		t.Skipf("no HTTP endpoint outside the desktop session (no keyring for the token): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	code, token, errs := cli(t, "token")
	if code != 0 {
		t.Fatalf("token: %s", errs)
	}
	auth := "Bearer " + strings.TrimSpace(token)
	check("HTTP /mcp", aisdk(t, peers, nil, "http", "everything__echo", echo, ep.URL, auth), "everything__echo")
	check("HTTP /mcp/everything", aisdk(t, peers, nil, "http", "echo", echo, ep.URL+"/everything", auth), "echo")
}

// rpcPeer is a bare JSON-RPC client on a subprocess's stdio (an MCP server,
// or `mcptray connect`): no SDK between the test and the bytes.
type rpcPeer struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan []byte
	next  int
	init  []byte         // the reply to initialize
	seen  map[string]int // notifications call skipped, by method
	// elicit, when set, is the content call accepts an elicitation/create
	// with (else the request is left unanswered).
	elicit string
}

func startPeer(t *testing.T, env []string, name string, args ...string) *rpcPeer {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &rpcPeer{t: t, stdin: stdin, lines: make(chan []byte, 64)}
	go func() {
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				p.lines <- line
			}
			if err != nil {
				close(p.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	// The capabilities mcptray declares to its servers, so that a server
	// met directly offers the same tools.
	p.init = p.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"passthrough-test","version":"1"}}`)
	p.notify("notifications/initialized", `{}`)
	return p
}

func (p *rpcPeer) notify(method, params string) {
	fmt.Fprintf(p.stdin, `{"jsonrpc":"2.0","method":%q,"params":%s}`+"\n", method, params)
}

// call sends a request and returns its whole reply line, skipping
// notifications and other ids.
func (p *rpcPeer) call(method, params string) []byte {
	p.t.Helper()
	return p.wait(method, p.send(method, params))
}

// send sends a request and returns its id.
func (p *rpcPeer) send(method, params string) string {
	p.next++
	id := fmt.Sprint(p.next)
	fmt.Fprintf(p.stdin, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`+"\n", id, method, params)
	return id
}

// wait returns the reply line to the request with id.
func (p *rpcPeer) wait(method, id string) []byte {
	p.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("%s: the peer ended before answering", method)
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if err := json.Unmarshal(line, &m); err != nil {
				p.t.Fatalf("%s: a line that is not one JSON-RPC message: %q", method, line)
			}
			if string(m.ID) == id {
				return line
			}
			if m.Method == "elicitation/create" && m.ID != nil && p.elicit != "" {
				fmt.Fprintf(p.stdin, `{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":%s}}`+"\n", m.ID, p.elicit)
				continue
			}
			if m.Method != "" && m.ID == nil {
				if p.seen == nil {
					p.seen = map[string]int{}
				}
				p.seen[m.Method]++
			}
		case <-timeout:
			p.t.Fatalf("%s: no answer", method)
		}
	}
}

// result is call's result, failing on an error reply.
func (p *rpcPeer) result(method, params string) json.RawMessage {
	p.t.Helper()
	line := p.call(method, params)
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil || m.Result == nil {
		p.t.Fatalf("%s: %s", method, line)
	}
	return m.Result
}

// tools lists every page of tools/list, each entry as sent.
func (p *rpcPeer) tools() []json.RawMessage {
	p.t.Helper()
	var out []json.RawMessage
	params := `{}`
	for {
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(p.result("tools/list", params), &res); err != nil {
			p.t.Fatal(err)
		}
		out = append(out, res.Tools...)
		if res.NextCursor == "" {
			return out
		}
		c, _ := json.Marshal(map[string]string{"cursor": res.NextCursor})
		params = string(c)
	}
}

// byName decodes tool entries by name, with the name cut to the server's
// own (prefix removed).
func byName(t *testing.T, entries []json.RawMessage, prefix string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, e := range entries {
		var m map[string]any
		if err := json.Unmarshal(e, &m); err != nil {
			t.Fatal(err)
		}
		name, _ := m["name"].(string)
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		m["name"] = strings.TrimPrefix(name, prefix)
		out[m["name"].(string)] = m
	}
	return out
}

// sameTools reports every difference between the tools a server lists
// itself and those listed through mcptray, field by field.
func sameTools(t *testing.T, how string, direct, via map[string]map[string]any) {
	t.Helper()
	if len(direct) == 0 {
		t.Fatalf("%s: the server lists no tools", how)
	}
	for name, d := range direct {
		v, ok := via[name]
		if !ok {
			t.Errorf("%s: tool %s missing", how, name)
			continue
		}
		for k := range d {
			if !reflect.DeepEqual(d[k], v[k]) {
				a, _ := json.Marshal(d[k])
				b, _ := json.Marshal(v[k])
				t.Errorf("%s: tool %s field %q:\n direct: %s\n    via: %s", how, name, k, a, b)
			}
		}
		for k := range v {
			if _, ok := d[k]; !ok {
				b, _ := json.Marshal(v[k])
				t.Errorf("%s: tool %s gained field %q: %s", how, name, k, b)
			}
		}
	}
	for name := range via {
		if _, ok := direct[name]; !ok {
			t.Errorf("%s: tool %s is not the server's", how, name)
		}
	}
}

// Tool definitions pass through mcptray as the server sent them, apart
// from the name's prefix: server-everything (execution.taskSupport,
// annotations without idempotentHint), server-filesystem and
// server-memory, listed directly and through `mcptray connect` (all
// servers, one server, and stable mode from the store's cache).
func TestToolDefinitionsPassThrough(t *testing.T) {
	peers := npmPeers(t)
	mods := filepath.Join(peers, "node_modules", "@modelcontextprotocol")
	root := t.TempDir()
	memory := filepath.Join(t.TempDir(), "memory.jsonl")
	servers := map[string][]string{
		"everything": {filepath.Join(mods, "server-everything", "dist", "index.js"), "stdio"},
		"filesystem": {filepath.Join(mods, "server-filesystem", "dist", "index.js"), root},
		"memory":     {filepath.Join(mods, "server-memory", "dist", "index.js")},
	}
	memEnv := []string{"MEMORY_FILE_PATH=" + memory}
	config := map[string]any{}
	for name, args := range servers {
		entry := map[string]any{"command": "node", "args": args}
		if name == "memory" {
			entry["env"] = map[string]string{"MEMORY_FILE_PATH": memory}
		}
		config[name] = entry
	}
	in := startDaemon(t, config)
	in.WaitFor("all ready", states("everything", "ready", "filesystem", "ready", "memory", "ready"))
	exe, _ := os.Executable()
	asMcptray := []string{"MCPTRAY_TEST_AS_MCPTRAY=1"}
	connect := func(extra ...string) *rpcPeer {
		return startPeer(t, asMcptray, exe, append([]string{"connect", "--data", in.Data, "--config", in.Config}, extra...)...)
	}

	direct := map[string]map[string]map[string]any{}
	for name, args := range servers {
		direct[name] = byName(t, startPeer(t, memEnv, "node", args...).tools(), "")
	}
	if ex := direct["everything"]["simulate-research-query"]; ex == nil || ex["execution"] == nil {
		t.Fatalf("server-everything's simulate-research-query has no execution field: %v", ex)
	}

	all := connect().tools()
	for name := range servers {
		sameTools(t, "connect, "+name, direct[name], byName(t, all, name+"__"))
		sameTools(t, "connect --server "+name, direct[name], byName(t, connect("--server", name).tools(), ""))
	}

	// Stable mode lists a server that is off as last seen, and after a
	// restart from the store's cache.
	if code, _, errs := in.Run("toggle", "memory", "off"); code != 0 {
		t.Fatal(errs)
	}
	in.WaitFor("memory off", states("memory", "disabled"))
	sameTools(t, "connect --tools stable, memory off", direct["memory"], byName(t, connect("--tools", "stable").tools(), "memory__"))
	stopInstance(t, in)
	in = startDaemonAt(t, in.Config, in.Data)
	in.WaitFor("restarted, memory off", states("everything", "ready", "memory", "disabled"))
	sameTools(t, "connect --tools stable, memory off, after a restart", direct["memory"], byName(t, connect("--tools", "stable").tools(), "memory__"))

	// Dynamic mode describes a tool as the server sent it.
	dyn := connect("--tools", "dynamic")
	res := dyn.result("tools/call", `{"name":"mcptray__describe_tool","arguments":{"server":"everything","tool":"simulate-research-query"}}`)
	var described struct {
		StructuredContent map[string]any `json:"structuredContent"`
	}
	json.Unmarshal(res, &described)
	sameTools(t, "dynamic describe", map[string]map[string]any{"simulate-research-query": direct["everything"]["simulate-research-query"]},
		map[string]map[string]any{"simulate-research-query": described.StructuredContent})
}

// A task-augmented tools/call (MCP 2025-11-25 tasks) through mcptray: the
// server's CreateTaskResult comes back, and tasks/get, tasks/result,
// tasks/list and tasks/cancel reach the server that made the task.
// server-everything's simulate-research-query requires a task.
func TestTasksRelayed(t *testing.T) {
	peers := npmPeers(t)
	everything := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	in := startDaemon(t, map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{everything, "stdio"}},
		"echo":       fakeEntry(t, "echo"),
	})
	in.WaitFor("ready", states("everything", "ready", "echo", "ready"))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("daemon log:\n%s", in.Stderr)
		}
	})
	exe, _ := os.Executable()
	p := startPeer(t, []string{"MCPTRAY_TEST_AS_MCPTRAY=1"}, exe, "connect", "--data", in.Data, "--config", in.Config)

	var init struct {
		Result struct {
			Capabilities struct {
				Tasks struct {
					Requests struct {
						Tools struct {
							Call any `json:"call"`
						} `json:"tools"`
					} `json:"requests"`
				} `json:"tasks"`
			} `json:"capabilities"`
		} `json:"result"`
	}
	json.Unmarshal(p.init, &init)
	if init.Result.Capabilities.Tasks.Requests.Tools.Call == nil {
		t.Errorf("initialize does not declare tasks for tools/call")
	}

	type task struct {
		TaskID        string `json:"taskId"`
		Status        string `json:"status"`
		StatusMessage string `json:"statusMessage"`
	}
	start := func() string {
		t.Helper()
		var res struct {
			Task task `json:"task"`
		}
		b := p.result("tools/call", `{"name":"everything__simulate-research-query","arguments":{"topic":"gateways"},"task":{"ttl":60000}}`)
		if err := json.Unmarshal(b, &res); err != nil || res.Task.TaskID == "" || res.Task.Status != "working" {
			t.Fatalf("task-augmented tools/call: %s", b)
		}
		return res.Task.TaskID
	}
	id := start()
	idJSON, _ := json.Marshal(map[string]string{"taskId": id})

	var got task
	if b := p.result("tasks/get", string(idJSON)); json.Unmarshal(b, &got) != nil || got.TaskID != id {
		t.Errorf("tasks/get: %s", b)
	}
	if b := p.call("tasks/result", string(idJSON)); !strings.Contains(string(b), "Research Report") {
		t.Errorf("tasks/result: %s\n%s", b, in.Stderr)
	}
	if b := p.result("tasks/get", string(idJSON)); json.Unmarshal(b, &got) != nil || got.Status != "completed" {
		t.Errorf("tasks/get after tasks/result: %s", b)
	}
	if p.seen["notifications/tasks/status"] == 0 {
		t.Errorf("no notifications/tasks/status came through (saw %v)", p.seen)
	}
	if b := p.result("tasks/list", `{}`); !strings.Contains(string(b), id) {
		t.Errorf("tasks/list lacks %s: %s", id, b)
	}

	second := start()
	secondJSON, _ := json.Marshal(map[string]string{"taskId": second})
	if b := p.result("tasks/cancel", string(secondJSON)); json.Unmarshal(b, &got) != nil || got.TaskID != second || got.Status != "cancelled" {
		t.Errorf("tasks/cancel: %s", b)
	}

	// A task that needs input (input_required): the server's elicitation
	// reaches the assistant waiting on tasks/result, and its answer the
	// server.
	p.elicit = `{"interpretation":"historical"}`
	var res struct {
		Task task `json:"task"`
	}
	b := p.result("tools/call", `{"name":"everything__simulate-research-query","arguments":{"topic":"gateways","ambiguous":true},"task":{"ttl":60000}}`)
	if err := json.Unmarshal(b, &res); err != nil || res.Task.TaskID == "" {
		t.Fatalf("task-augmented tools/call, ambiguous: %s", b)
	}
	ambJSON, _ := json.Marshal(map[string]string{"taskId": res.Task.TaskID})
	if b := p.result("tasks/result", string(ambJSON)); !strings.Contains(string(b), "Clarification**: historical") {
		t.Errorf("tasks/result of a task that asked for input: %s", b)
	}

	// Another assistant session cannot reach the task.
	other := startPeer(t, []string{"MCPTRAY_TEST_AS_MCPTRAY=1"}, exe, "connect", "--data", in.Data, "--config", in.Config)
	if line := other.call("tasks/get", string(idJSON)); !strings.Contains(string(line), `"error"`) || !strings.Contains(string(line), "unknown task") {
		t.Errorf("tasks/get of another session's task: %s", line)
	}
	if b := other.result("tasks/list", `{}`); strings.Contains(string(b), id) {
		t.Errorf("tasks/list of another session lists %s: %s", id, b)
	}

	// A task id nobody made: a clear error, and the session goes on.
	line := p.call("tasks/get", `{"taskId":"no-such-task"}`)
	if !strings.Contains(string(line), `"error"`) || !strings.Contains(string(line), "no-such-task") {
		t.Errorf("tasks/get of an unknown task: %s", line)
	}
	if b := p.result("tools/call", `{"name":"echo__echo","arguments":{"message":"still here"}}`); !strings.Contains(string(b), "still here") {
		t.Errorf("echo after the tasks: %s", b)
	}
}

// The same over the HTTP endpoint, for a session that declared elicitation
// (its plain calls go through the SDK): a task-augmented call and the
// tasks/* requests still reach the server.
func TestTasksRelayedOverHTTP(t *testing.T) {
	peers := npmPeers(t)
	everything := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	in := startDaemon(t, map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{everything, "stdio"}},
	})
	in.WaitFor("ready", states("everything", "ready"))
	ep, err := app.ReadEndpoint(in.Data)
	if err != nil && os.Getenv("MCPTRAY_TEST_SESSION") != "1" {
		t.Skipf("no HTTP endpoint outside the desktop session (no keyring for the token): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	code, token, errs := cli(t, "token")
	if code != 0 {
		t.Fatalf("token: %s", errs)
	}
	c := newHTTPClient(ep.URL, strings.TrimSpace(token))
	t.Cleanup(c.close)
	if _, err := c.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"tasks-http","version":"1"}}`); err != nil {
		t.Fatal(err)
	}
	if err := c.notify("notifications/initialized"); err != nil {
		t.Fatal(err)
	}
	b, err := c.call("tools/call", `{"name":"everything__simulate-research-query","arguments":{"topic":"http"},"task":{"ttl":60000}}`)
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	if err != nil || json.Unmarshal(b, &created) != nil || created.Task.TaskID == "" {
		t.Fatalf("task-augmented tools/call over HTTP: %s, %v", b, err)
	}
	idJSON, _ := json.Marshal(map[string]string{"taskId": created.Task.TaskID})
	if b, err := c.call("tasks/get", string(idJSON)); err != nil || !strings.Contains(string(b), created.Task.TaskID) {
		t.Errorf("tasks/get over HTTP: %s, %v", b, err)
	}
	if b, err := c.call("tasks/result", string(idJSON)); err != nil || !strings.Contains(string(b), "Research Report") {
		t.Errorf("tasks/result over HTTP: %s, %v", b, err)
	}
	if b, err := c.call("tasks/list", `{}`); err != nil || !strings.Contains(string(b), created.Task.TaskID) {
		t.Errorf("tasks/list over HTTP: %s, %v", b, err)
	}
}

// A task-augmented call of a tool that waits for the person's approval
// still reaches the server as a task once allowed, and a declined one gets
// the refusal; the session's other calls go on meanwhile.
func TestTaskWaitsForApproval(t *testing.T) {
	peers := npmPeers(t)
	everything := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	in := startDaemon(t, map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{everything, "stdio"}, "x-mcptray": map[string]any{"approve": "all"}},
		"echo":       fakeEntry(t, "echo"),
	})
	in.WaitFor("ready", states("everything", "ready", "echo", "ready"))
	w := watchInbox(t, in.Data)
	exe, _ := os.Executable()
	p := startPeer(t, []string{"MCPTRAY_TEST_AS_MCPTRAY=1"}, exe, "connect", "--data", in.Data, "--config", in.Config)
	const call = `{"name":"everything__simulate-research-query","arguments":{"topic":"approvals"},"task":{"ttl":60000}}`

	id := p.send("tools/call", call)
	req := w.next(inbox.KindApproval)
	if req.Tool != "simulate-research-query" {
		t.Errorf("approval request for %q", req.Tool)
	}
	if b := p.result("tools/call", `{"name":"echo__echo","arguments":{"message":"meanwhile"}}`); !strings.Contains(string(b), "meanwhile") {
		t.Errorf("a call while the task waits for approval: %s", b)
	}
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--yes"); code != 0 {
		t.Fatal(errs)
	}
	var created struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	line := p.wait("tools/call", id)
	if json.Unmarshal(line, &created) != nil || created.Result.Task.TaskID == "" {
		t.Fatalf("allowed task-augmented call: %s", line)
	}
	idJSON, _ := json.Marshal(map[string]string{"taskId": created.Result.Task.TaskID})
	if b := p.result("tasks/result", string(idJSON)); !strings.Contains(string(b), "Research Report") {
		t.Errorf("tasks/result after approval: %s", b)
	}

	id = p.send("tools/call", call)
	req = w.next(inbox.KindApproval)
	if code, _, errs := in.Run("inbox", "answer", req.ID, "--decline"); code != 0 {
		t.Fatal(errs)
	}
	if line := p.wait("tools/call", id); !strings.Contains(string(line), "The person declined this call.") {
		t.Errorf("declined task-augmented call: %s", line)
	}
}
