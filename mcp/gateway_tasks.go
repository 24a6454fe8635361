package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tasks (MCP 2025-11-25, experimental): an assistant may send tools/call
// with params.task; the server then answers at once with a
// CreateTaskResult ({"task":{"taskId":…}}) and the assistant asks for the
// task with tasks/get, tasks/result, tasks/cancel and tasks/list. Task ids
// are the server's. The gateway relays all of it as bytes, on the fast
// path (stdio servers): a task-augmented tools/call goes to the server
// with its "task" (fastCall; over HTTP also when the session could take a
// stream, since the call answers at once), and the taskId of its reply is
// remembered for the assistant session that made it (taskTable), so that
// its tasks/* requests go to that server (relayTask) and no other session
// can reach the task. tasks/list asks the servers that hold tasks of the
// session, page by page, and lists that session's tasks only.
// notifications/tasks/status from a server go to the stream session that
// owns the task. The SDK's server knows none of this: its initialize
// result gains the "tasks" capability (tasksInit).

// Task methods relayed to the server that owns the task.
const (
	methodTasksGet    = "tasks/get"
	methodTasksResult = "tasks/result"
	methodTasksCancel = "tasks/cancel"
	methodTasksList   = "tasks/list"
)

// taskOwner is where a task lives.
type taskOwner struct {
	server string
	sess   *downstream.Session
}

// taskTable maps the tasks each upstream session made to their servers.
type taskTable struct {
	mu sync.Mutex
	m  map[*upstream]map[string]taskOwner // guarded by mu
}

func (t *taskTable) add(up *upstream, id string, o taskOwner) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[*upstream]map[string]taskOwner{}
	}
	if t.m[up] == nil {
		t.m[up] = map[string]taskOwner{}
	}
	t.m[up][id] = o
}

func (t *taskTable) owner(up *upstream, id string) (taskOwner, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	o, ok := t.m[up][id]
	return o, ok
}

// taskHolder is a server session that holds tasks of one upstream.
type taskHolder struct {
	server string
	sess   *downstream.Session
	ids    map[string]bool
}

// of returns the sessions that hold up's tasks, in the order tasks/list
// pages through them: by server name.
func (t *taskTable) of(up *upstream) []taskHolder {
	t.mu.Lock()
	by := map[*downstream.Session]*taskHolder{}
	for id, o := range t.m[up] {
		h := by[o.sess]
		if h == nil {
			h = &taskHolder{server: o.server, sess: o.sess, ids: map[string]bool{}}
			by[o.sess] = h
		}
		h.ids[id] = true
	}
	t.mu.Unlock()
	out := make([]taskHolder, 0, len(by))
	for _, h := range by {
		if h.sess.Context().Err() == nil { // a server that stopped holds none now
			out = append(out, *h)
		}
	}
	slices.SortFunc(out, func(a, b taskHolder) int { return strings.Compare(a.server, b.server) })
	return out
}

// owners returns the upstream sessions that made task id on sess.
func (t *taskTable) owners(sess *downstream.Session, id string) []*upstream {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*upstream
	for up, tasks := range t.m {
		if o, ok := tasks[id]; ok && o.sess == sess {
			out = append(out, up)
		}
	}
	return out
}

func (t *taskTable) drop(up *upstream) {
	t.mu.Lock()
	delete(t.m, up)
	t.mu.Unlock()
}

// hasTask reports whether a tools/call's params ask for a task.
func hasTask(params []byte) bool {
	sp := wire.Field(params, "task")
	return sp.OK() && !sp.Is(params, "null")
}

// isTaskMethod reports whether the message t is a request of the tasks
// utility the gateway relays.
func isTaskMethod(t []byte, p *wire.Peek) (string, bool) {
	for _, m := range [...]string{methodTasksGet, methodTasksResult, methodTasksCancel, methodTasksList} {
		if p.Method.Is(t, `"`+m+`"`) {
			return m, true
		}
	}
	return "", false
}

// taskCreated remembers the task a task-augmented call's reply created.
func (g *Gateway) taskCreated(c *call, line []byte, p *wire.Peek) {
	if !p.Result.OK() {
		return
	}
	res := p.Result.Of(line)
	task := wire.Field(res, "task")
	if !task.OK() {
		return
	}
	tb := task.Of(res)
	id, ok := wire.RawString(wire.Field(tb, "taskId").Of(tb))
	if !ok || id == "" {
		return
	}
	g.tasks.add(c.up, id, taskOwner{c.server, c.sess})
}

// answer sends line to the assistant: on its stream, or as hw's response.
func (up *upstream) answer(hw *httpReply, line []byte) {
	if hw != nil {
		hw.deliver(line)
		return
	}
	up.send(line)
}

// relayTask takes a tasks/* request: tasks/list is answered by the
// gateway (listTasks), the others go to the server that owns the task. It
// reports false when the SDK should answer (a session not yet
// initialized, an id already in flight on HTTP).
func (up *upstream) relayTask(line []byte, p *wire.Peek, method string, hw *httpReply) bool {
	if !up.ready.Load() {
		if up.ss.InitializeParams() == nil {
			return false
		}
		up.ready.Store(true)
	}
	upID := bytes.Clone(p.ID.Of(line))
	var params []byte
	if p.Params.OK() {
		params = p.Params.Of(line)
	}
	if method == methodTasksList {
		if hw != nil {
			up.answer(hw, up.g.listTasks(context.Background(), up, upID, params))
			return true
		}
		up.answering.Add(1) // drain waits for it
		go func() {
			defer up.answering.Add(-1)
			up.send(up.g.listTasks(context.Background(), up, upID, params))
		}()
		return true
	}
	id, ok := wire.RawString(wire.Field(params, "taskId").Of(params))
	if !ok || id == "" {
		up.answer(hw, wire.ErrorLine(upID, jsonrpc.CodeInvalidParams, method+`: params.taskId must be a string`))
		return true
	}
	o, known := up.g.tasks.owner(up, id)
	if !known {
		up.answer(hw, wire.ErrorLine(upID, jsonrpc.CodeInvalidParams, fmt.Sprintf("%s: unknown task %q: no task of this session has that id", method, id)))
		return true
	}
	if o.sess.Context().Err() != nil {
		up.answer(hw, wire.ErrorLine(upID, codeInternal, fmt.Sprintf("%s: task %q is gone: server %q stopped since it made the task", method, id, o.server)))
		return true
	}
	g := up.g
	c := &call{n: g.nextID.Add(1), up: up, server: o.server, tool: method, method: method, sess: o.sess, upID: upID, hw: hw, started: time.Now()}
	out := wire.Splice(line, wire.Edit{Start: p.ID.Start, End: p.ID.End, Repl: wire.AppendGWID(make([]byte, 0, 24), c.n)})
	up.mu.Lock()
	if up.closed || (hw != nil && up.raw[string(upID)] != nil) {
		up.mu.Unlock()
		return hw == nil
	}
	if hw != nil {
		hw.c = c
	}
	up.raw[string(upID)] = c
	up.mu.Unlock()
	g.calls.add(c)
	c.dl.Start(g.timeout(), func() { g.expire(c) })
	if _, _, err := o.sess.WriteCall(c.n, out); err != nil && g.calls.take(c.n) != nil {
		c.dl.Stop()
		c.finish(wire.ErrorLine(upID, codeInternal, unsentText(o.server, err)))
	}
	return true
}

// tasks/list pages as the servers do: a page of the gateway's is a page
// of one server's tasks/list, with the tasks of other assistant sessions
// left out, and its cursor (taskCursor) names the server and that
// server's cursor. Servers are taken in name order; one that stopped since
// is skipped. A page holds at least one task unless there are none left,
// asking at most maxTaskPages of a server's pages for it.

// taskCursor is what a tasks/list cursor of the gateway's holds.
type taskCursor struct {
	Server string `json:"s"`           // the server whose page comes next
	Cursor string `json:"c,omitempty"` // that server's cursor; "" for its first page
}

// maxTaskPages bounds the server pages one tasks/list page asks for.
const maxTaskPages = 16

func (c taskCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeTaskCursor(s string) (taskCursor, bool) {
	var c taskCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Server == "" {
		return c, false
	}
	return c, true
}

// listTasks is the answer to an upstream's tasks/list with params: one
// page of the tasks it made, as their servers list them.
func (g *Gateway) listTasks(ctx context.Context, up *upstream, upID, params []byte) []byte {
	ctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	holders := g.tasks.of(up)
	at, cursor := 0, ""
	if raw, ok := wire.RawString(wire.Field(params, "cursor").Of(params)); ok && raw != "" {
		c, ok := decodeTaskCursor(raw)
		if !ok {
			return wire.ErrorLine(upID, jsonrpc.CodeInvalidParams, "tasks/list: params.cursor is not a cursor mcptray gave")
		}
		at = len(holders)
		for i, h := range holders {
			if h.server == c.Server {
				at, cursor = i, c.Cursor
				break
			}
			if h.server > c.Server { // that server stopped: go on with the next
				at = i
				break
			}
		}
	}
	var list bytes.Buffer
	list.WriteByte('[')
	n, next := 0, ""
	for asked := 0; at < len(holders) && asked < maxTaskPages; asked++ {
		h := holders[at]
		p := []byte(`{}`)
		if cursor != "" {
			p, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		reply, err := g.rawRequest(ctx, h.sess, methodTasksList, p)
		if err != nil {
			return wire.ErrorLine(upID, codeInternal, "tasks/list: "+h.server+": "+err.Error())
		}
		var res struct {
			Tasks      []json.RawMessage `json:"tasks"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(reply, &res); err != nil {
			return wire.ErrorLine(upID, codeInternal, "tasks/list: "+h.server+": unreadable answer: "+err.Error())
		}
		for _, t := range res.Tasks {
			var head struct {
				TaskID string `json:"taskId"`
			}
			if json.Unmarshal(t, &head) == nil && h.ids[head.TaskID] {
				if n > 0 {
					list.WriteByte(',')
				}
				list.Write(t)
				n++
			}
		}
		if res.NextCursor != "" && res.NextCursor != cursor {
			cursor = res.NextCursor
		} else {
			at, cursor = at+1, ""
		}
		next = ""
		if at < len(holders) {
			next = taskCursor{Server: holders[at].server, Cursor: cursor}.encode()
		}
		if n > 0 {
			break
		}
	}
	list.WriteByte(']')
	out := make([]byte, 0, list.Len()+len(next)+80)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, upID...)
	out = append(out, `,"result":{"tasks":`...)
	out = append(out, list.Bytes()...)
	if next != "" {
		out = append(out, `,"nextCursor":`...)
		out = append(out, wire.QuoteJSON(next)...)
	}
	return append(out, "}}\n"...)
}

// rawRequest sends one request of the gateway's own to a stdio server and
// returns the result of its reply (redacted).
func (g *Gateway) rawRequest(ctx context.Context, sess *downstream.Session, method string, params []byte) (json.RawMessage, error) {
	c := &call{n: g.nextID.Add(1), method: method, tool: method, sess: sess, reply: make(chan []byte, 1)}
	line := make([]byte, 0, len(params)+64)
	line = append(line, `{"jsonrpc":"2.0","id":"`...)
	line = append(line, wire.GWIDPrefix+strconv.FormatUint(c.n, 10)...)
	line = append(line, `","method":`...)
	line = append(line, wire.QuoteJSON(method)...)
	line = append(line, `,"params":`...)
	line = append(line, params...)
	line = append(line, "}\n"...)
	g.calls.add(c)
	if err := sess.WriteLine(line); err != nil {
		g.calls.take(c.n)
		return nil, err
	}
	select {
	case reply := <-c.reply:
		res, err := replyResult(sess.RedactJSON(reply))
		if err != nil {
			return nil, err
		}
		return res.(*rawResult).raw, nil
	case <-ctx.Done():
		if g.calls.take(c.n) != nil {
			g.cancelDownstream(sess, c.n, "timed out in mcptray")
		}
		return nil, fmt.Errorf("the server did not answer: %w", ctx.Err())
	case <-sess.Done():
		g.calls.take(c.n)
		return nil, fmt.Errorf("the server stopped")
	}
}

// taskStatus passes a server's notifications/tasks/status to the stream
// sessions that own the task; it reports whether line was one.
func (g *Gateway) taskStatus(s *downstream.Session, line []byte, p *wire.Peek) bool {
	if !p.Method.Is(line, `"notifications/tasks/status"`) || p.ID.OK() || !p.Params.OK() {
		return false
	}
	params := p.Params.Of(line)
	id, ok := wire.RawString(wire.Field(params, "taskId").Of(params))
	if !ok {
		return true
	}
	var out []byte
	for _, up := range g.tasks.owners(s, id) {
		if out == nil {
			out = append(s.RedactJSON(bytes.Clone(line)), '\n')
		}
		up.send(out) // HTTP sessions poll with tasks/get
	}
	return true
}

// tasksInit is the SDK's initialize result with the tasks capability.
type tasksInit struct{ *sdk.InitializeResult }

// tasksCapability is what the gateway relays: task-augmented tools/call,
// tasks/list and tasks/cancel.
var tasksCapability = []byte(`"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)

func (r tasksInit) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.InitializeResult)
	if err != nil {
		return nil, err
	}
	sp := wire.Field(b, "capabilities")
	if !sp.OK() || b[sp.Start] != '{' {
		return b, nil
	}
	repl := make([]byte, 0, len(tasksCapability)+1)
	repl = append(repl, tasksCapability...)
	if i := wire.SkipWS(b, sp.Start+1); b[i] != '}' {
		repl = append(repl, ',')
	}
	return spliced(b, wire.Edit{Start: sp.Start + 1, End: sp.Start + 1, Repl: repl}), nil
}

// lifeContext is a context that ends with the upstream session.
func (up *upstream) lifeContext() context.Context {
	up.lifeOnce.Do(func() { up.life, up.endLife = context.WithCancel(context.Background()) })
	return up.life
}

// metaOf decodes a request's params._meta; nil if none.
func metaOf(params []byte) sdk.Meta {
	sp := wire.Field(params, "_meta")
	if !sp.OK() {
		return nil
	}
	var m sdk.Meta
	if json.Unmarshal(sp.Of(params), &m) != nil {
		return nil
	}
	return m
}

// approveThenSend asks the person about a task-augmented call to a tool
// that needs approval, then sends it as fastCall would, or answers with
// the refusal. It runs on its own goroutine, so the session's other
// messages go on meanwhile; fastCall counted it in up.answering.
func (up *upstream) approveThenSend(c *call, out []byte, r *route, args json.RawMessage, meta sdk.Meta) {
	defer up.answering.Add(-1) // (sendFast has put the call in up.raw by then)
	ctx := up.lifeContext()
	if c.hw != nil {
		ctx = c.hw.ctx // an HTTP request: until its client goes away
	}
	if res := up.g.approve(ctx, up, r.server, r.tool, r.ann, args, meta); res != nil {
		b, err := json.Marshal(res)
		if err != nil {
			b = []byte(`{"content":[],"isError":true}`)
		}
		line := make([]byte, 0, len(b)+64)
		line = append(line, `{"jsonrpc":"2.0","id":`...)
		line = append(line, c.upID...)
		line = append(line, `,"result":`...)
		line = append(line, b...)
		up.answer(c.hw, append(line, "}\n"...))
		return
	}
	if !up.sendFast(c, out, r) && c.hw != nil { // its id came into use meanwhile
		c.hw.deliver(wire.ErrorLine(c.upID, jsonrpc.CodeInvalidRequest, "tools/call: a request with this id is already in flight"))
	}
}
