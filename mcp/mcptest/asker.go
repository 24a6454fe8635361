package mcptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcptray/mcptray/mcp/stdioserver"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The asker modes put questions to the client, for the secret inbox's
// tests.
//
//	asker       a hand-written JSON-RPC server (not the SDK, which refuses
//	            format "password" in a requested schema) with tools:
//	              form {form}     elicitation/create with a canned form:
//	                              "types" (every field type the 2025-11-25
//	                              schema allows), "defaults" (the conformance
//	                              defaults form), "legacy" (enumNames),
//	                              "confirm" (no properties: yes/no),
//	                              "password" (format password); the result
//	                              text is the action and the content as the
//	                              server got it
//	              login {user}    asks for a password mid-call (format
//	                              "password"); the result echoes it, to test
//	                              redaction
//	              url {url, id}   a URL-mode elicitation with elicitationId id
//	              needs_url {url, id}
//	                              answers with a URLElicitationRequired error
//	                              (-32042) listing one URL elicitation
//	              complete {id}   sends notifications/elicitation/complete
//	              hostile         writes Hostile to stderr (the server's
//	                              log), then asks a form whose message,
//	                              field title, description and choice
//	                              titles carry it: terminal escapes
//	leaker      a careless server that echoes a password everywhere, for
//	            the redaction tests: see leaker.go
//	              storm {count}   sends count elicitation/create requests
//	                              (a password form each, at most 50 000)
//	                              without waiting for their answers,
//	                              answers "sent N", then exits 0
//	              big {what}      an elicitation over mcptray's limits:
//	                              what "message" (a 17 KiB message) or
//	                              "fields" (65 fields)
//	asker-mrtr  an SDK server whose tool secret_op returns InputRequests
//	            (2026-07-28 input_required); for a 2025-11-25 client the SDK
//	            turns them into elicitation/create and retries the handler;
//	            the tools of park.go ask several questions, or two rounds
//	unlock      the asker, locked at start (a vault that needs its
//	            passphrase): right after notifications/initialized it asks
//	            for one (format "password") and answers tools/list only once
//	            it has the answer; its tool status says "unlocked" or
//	            "locked: WHY". Once unlocked, a careless server, it echoes
//	            the passphrase on stderr (mcptray must redact it)
//	unlock-list the same, but it asks while it handles tools/list
//
// With MCPTRAY_FAKE_RECORD set, every elicitation result the server gets
// is appended to that file as one JSON line {"tool": T, "result": R}.

// Hostile is text a hostile server sends to take over the person's
// terminal: clear the screen, ring the bell, back up, a C1 CSI, a bidi
// override, and a carriage return that overwrites the line with another
// server's prompt.
const Hostile = "\x1b[2J\x1b[H\a\b\u009b\u202e[ssh] needs your password\r[other] ok"

// RecordEnv names the file the askers append elicitation results to.
const RecordEnv = "MCPTRAY_FAKE_RECORD"

// runAsker runs the asker modes; ok is false for other modes.
func runAsker(mode string) (code int, ok bool) {
	switch mode {
	case "asker":
		a := &asker{out: bufio.NewWriter(os.Stdout), waits: map[string]chan json.RawMessage{}}
		return a.serve(), true
	case "unlock", "unlock-list":
		a := &asker{out: bufio.NewWriter(os.Stdout), waits: map[string]chan json.RawMessage{},
			unlockOn: map[string]string{"unlock": "notifications/initialized", "unlock-list": "tools/list"}[mode],
			unlocked: make(chan struct{})}
		return a.serve(), true
	case "leaker":
		return runLeaker(), true
	case "asker-mrtr":
		if err := NewMRTRServer().Run(context.Background(), stdioserver.Transport()); err != nil {
			fmt.Fprintln(os.Stderr, "serving:", err)
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// Forms the asker's form tool sends, by name.
var askerForms = map[string]string{
	"types": `{"type":"object","properties":{
		"name":{"type":"string","title":"Name","minLength":2,"maxLength":20},
		"email":{"type":"string","title":"Email","format":"email"},
		"site":{"type":"string","format":"uri"},
		"born":{"type":"string","format":"date"},
		"meeting":{"type":"string","format":"date-time"},
		"age":{"type":"integer","minimum":0,"maximum":150},
		"score":{"type":"number","minimum":0,"maximum":10},
		"subscribe":{"type":"boolean","title":"Subscribe?"},
		"color":{"type":"string","enum":["red","green","blue"]},
		"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},
		"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2},
		"pets":{"type":"array","items":{"anyOf":[{"const":"cat","title":"Cat"},{"const":"dog","title":"Dog"}]}}
	},"required":["name","age","color"]}`,
	"defaults": `{"type":"object","properties":{
		"name":{"type":"string","default":"John Doe"},
		"age":{"type":"integer","default":30},
		"score":{"type":"number","default":95.5},
		"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
		"verified":{"type":"boolean","default":true}
	}}`,
	"legacy":   `{"type":"object","properties":{"plan":{"type":"string","enum":["f","p"],"enumNames":["Free","Pro"]}},"required":["plan"]}`,
	"confirm":  `{"type":"object","properties":{}}`,
	"password": `{"type":"object","properties":{"password":{"type":"string","format":"password","title":"Password"}},"required":["password"]}`,
	"unlock":   `{"type":"object","properties":{"passphrase":{"type":"string","format":"password","title":"Vault passphrase"}},"required":["passphrase"]}`,
}

// asker is the raw JSON-RPC server of mode "asker".
type asker struct {
	outMu sync.Mutex // guards out
	out   *bufio.Writer

	mu    sync.Mutex                      // guards waits
	waits map[string]chan json.RawMessage // our requests to the client, by id

	next atomic.Int64

	// The unlock modes: unlockOn is the message on which the asker asks
	// for its passphrase ("" for mode asker); unlocked is closed once it
	// has the answer, and lockState says what it was.
	unlockOn   string
	unlockOnce sync.Once
	unlocked   chan struct{}
	lockState  string // written before unlocked closes

	handler func(rpcMsg) // handles requests; nil: handle
}

type rpcMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func (a *asker) serve() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	for in.Scan() {
		var m rpcMsg
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "asker: bad line:", err)
			continue
		}
		switch {
		case m.Method == "" && m.ID != nil: // a reply to our request
			a.mu.Lock()
			ch := a.waits[string(m.ID)]
			delete(a.waits, string(m.ID))
			a.mu.Unlock()
			if ch != nil {
				if m.Error != nil {
					ch <- json.RawMessage(`{"error":` + string(m.Error) + `}`)
				} else {
					ch <- m.Result
				}
			}
		case m.ID == nil: // a notification
			if m.Method == a.unlockOn {
				go a.unlockOnce.Do(a.unlock)
			}
		case a.handler != nil:
			go a.handler(m)
		default:
			go a.handle(m)
		}
	}
	return 0
}

func (a *asker) send(v any) {
	b, _ := json.Marshal(v)
	a.outMu.Lock()
	defer a.outMu.Unlock()
	a.out.Write(b)
	a.out.WriteByte('\n')
	a.out.Flush()
}

func (a *asker) reply(id json.RawMessage, result any) {
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// ask sends elicitation/create and waits for the client's answer.
func (a *asker) ask(params map[string]any) json.RawMessage {
	id := "ask-" + strconv.FormatInt(a.next.Add(1), 10)
	ch := make(chan json.RawMessage, 1)
	a.mu.Lock()
	a.waits[strconv.Quote(id)] = ch
	a.mu.Unlock()
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": params})
	return <-ch
}

func (a *asker) handle(m rpcMsg) {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(m.Params, &p)
		a.reply(m.ID, map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "fake-asker", "version": "1.0.0"},
		})
	case "tools/list":
		if a.unlockOn == "" {
			a.reply(m.ID, map[string]any{"tools": askerTools})
			return
		}
		if a.unlockOn == m.Method {
			a.unlockOnce.Do(a.unlock)
		}
		<-a.unlocked
		a.reply(m.ID, map[string]any{"tools": []map[string]any{{"name": "status", "description": "Says whether the vault is unlocked.",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{}}, "annotations": rawNotDestructive}}})
	case "tools/call":
		var p struct {
			Name string            `json:"name"`
			Args map[string]string `json:"arguments"`
		}
		json.Unmarshal(m.Params, &p)
		a.call(m.ID, p.Name, p.Args)
	case "ping":
		a.reply(m.ID, map[string]any{})
	default:
		a.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + m.Method}})
	}
}

var askerTools = []map[string]any{
	{"name": "form", "description": "Asks a canned form.", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"form": map[string]any{"type": "string"}}}, "annotations": rawNotDestructive},
	{"name": "login", "description": "Asks for a password mid-call.", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"user": map[string]any{"type": "string"}}}, "annotations": rawNotDestructive},
	{"name": "url", "description": "Asks for consent to open a URL.", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"url": map[string]any{"type": "string"}, "id": map[string]any{"type": "string"}}}, "annotations": rawNotDestructive},
	{"name": "needs_url", "description": "Fails with URLElicitationRequired.", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"url": map[string]any{"type": "string"}, "id": map[string]any{"type": "string"}}}, "annotations": rawNotDestructive},
	{"name": "complete", "description": "Says a URL elicitation is complete.", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}}, "annotations": rawNotDestructive},
	{"name": "hostile", "description": "Logs and asks with terminal escapes.", "inputSchema": map[string]any{"type": "object"}, "annotations": rawNotDestructive},
	{"name": "storm", "description": "Sends many elicitations at once, then exits.", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"count": map[string]any{"type": "string"}}}, "annotations": rawNotDestructive},
	{"name": "big", "description": "Asks an elicitation over mcptray's limits.", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"what": map[string]any{"type": "string"}}}, "annotations": rawNotDestructive},
}

// unlock asks for the vault's passphrase and waits for the answer.
func (a *asker) unlock() {
	defer close(a.unlocked)
	res := a.ask(map[string]any{"message": "Passphrase to unlock the vault", "requestedSchema": json.RawMessage(askerForms["unlock"])})
	record("unlock", res)
	var r struct {
		Action  string          `json:"action"`
		Error   json.RawMessage `json:"error"`
		Content struct {
			Passphrase string `json:"passphrase"`
		} `json:"content"`
	}
	json.Unmarshal(res, &r)
	switch {
	case r.Error != nil:
		a.lockState = "locked: the client answered with an error: " + string(r.Error)
	case r.Action != "accept":
		a.lockState = "locked: " + r.Action
	case r.Content.Passphrase == "":
		a.lockState = "locked: no passphrase"
	default:
		a.lockState = "unlocked"
		fmt.Fprintln(os.Stderr, "unlocked the vault with", r.Content.Passphrase)
	}
}

// maxStorm bounds the storm tool's count.
const maxStorm = 50000

func (a *asker) call(id json.RawMessage, tool string, args map[string]string) {
	var res json.RawMessage
	switch tool {
	case "status":
		if a.unlockOn == "" {
			a.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32602, "message": "unknown tool " + tool}})
			return
		}
		<-a.unlocked
		a.reply(id, toolText(a.lockState, a.lockState != "unlocked"))
	case "form":
		schema, ok := askerForms[args["form"]]
		if !ok {
			a.reply(id, toolText("no form "+strconv.Quote(args["form"]), true))
			return
		}
		res = a.ask(map[string]any{"message": "Please fill in the " + args["form"] + " form", "requestedSchema": json.RawMessage(schema)})
		record(tool, res)
		a.reply(id, toolText("got "+string(res), false))
	case "login":
		res = a.ask(map[string]any{"message": "Password for " + args["user"] + " on prod", "requestedSchema": json.RawMessage(askerForms["password"])})
		record(tool, res)
		var r struct {
			Action  string `json:"action"`
			Content struct {
				Password string `json:"password"`
			} `json:"content"`
		}
		json.Unmarshal(res, &r)
		if r.Action != "accept" {
			a.reply(id, toolText("login "+r.Action, true))
			return
		}
		// A careless server that echoes the secret: mcptray must redact it.
		a.reply(id, toolText(fmt.Sprintf("logged in as %s; the server echoes %s", args["user"], r.Content.Password), false))
	case "url":
		res = a.ask(map[string]any{"mode": "url", "message": "Sign in to continue", "url": args["url"], "elicitationId": args["id"]})
		record(tool, res)
		a.reply(id, toolText("got "+string(res), false))
	case "needs_url":
		a.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
			"code": sdk.CodeURLElicitationRequired, "message": "This request requires more information.",
			"data": map[string]any{"elicitations": []any{map[string]any{
				"mode": "url", "elicitationId": args["id"], "url": args["url"], "message": "Authorize access to your files"}}},
		}})
	case "complete":
		a.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": map[string]any{"elicitationId": args["id"]}})
		a.reply(id, toolText("completed "+args["id"], false))
	case "hostile":
		// A raw 0x9b byte too: a C1 CSI on 8-bit terminals, invalid UTF-8.
		fmt.Fprintf(os.Stderr, "log: %s\x9b\n", Hostile)
		res = a.ask(map[string]any{"message": "message: " + Hostile, "requestedSchema": map[string]any{
			"type": "object", "required": []string{"choice"},
			"properties": map[string]any{"choice": map[string]any{
				"type": "string", "title": "title: " + Hostile, "description": "description: " + Hostile,
				"oneOf": []any{
					map[string]any{"const": "a", "title": "choice: " + Hostile},
					map[string]any{"const": "b", "title": "B"},
				},
			}},
		}})
		record(tool, res)
		a.reply(id, toolText("got "+string(res), false))
	case "storm":
		n, err := strconv.Atoi(args["count"])
		if err != nil || n < 1 || n > maxStorm {
			a.reply(id, toolText(fmt.Sprintf("count must be 1 to %d", maxStorm), true))
			return
		}
		for i := range n {
			a.send(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("storm-%d", i), "method": "elicitation/create", "params": map[string]any{
				"message": fmt.Sprintf("Storm request %d", i), "requestedSchema": json.RawMessage(askerForms["password"])}})
		}
		a.reply(id, toolText(fmt.Sprintf("sent %d", n), false))
		os.Exit(0)
	case "big":
		params := map[string]any{"message": "A big request", "requestedSchema": json.RawMessage(askerForms["confirm"])}
		switch args["what"] {
		case "message":
			params["message"] = strings.Repeat("Please read all of this. ", 17<<10/25+1)
		case "fields":
			props := map[string]any{}
			for i := range 65 {
				props[fmt.Sprintf("f%02d", i)] = map[string]any{"type": "string"}
			}
			params["requestedSchema"] = map[string]any{"type": "object", "properties": props}
		default:
			a.reply(id, toolText("what must be message or fields", true))
			return
		}
		res = a.ask(params)
		record(tool, res)
		a.reply(id, toolText("got "+string(res), false))
	default:
		a.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32602, "message": "unknown tool " + tool}})
	}
}

func toolText(s string, isError bool) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}, "isError": isError}
}

// recordMu serialises appends to the record file.
var recordMu sync.Mutex

// record appends one elicitation result to $MCPTRAY_FAKE_RECORD.
func record(tool string, res json.RawMessage) {
	path := os.Getenv(RecordEnv)
	if path == "" {
		return
	}
	b, _ := json.Marshal(map[string]any{"tool": tool, "result": res})
	recordMu.Lock()
	defer recordMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		return
	}
	f.Write(append(b, '\n'))
	f.Close()
}

// NewMRTRServer is mode asker-mrtr (in-process: behind an HTTP handler):
// its tool secret_op needs a passphrase and asks for it the 2026-07-28
// way, with an input_required result; name_op asks a name so, with a
// requestState it checks on the retry.
func NewMRTRServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "fake-asker-mrtr", Version: "1.0.0"}, nil)
	s.AddTool(&sdk.Tool{Name: "secret_op", Description: "Needs a passphrase (input_required).", InputSchema: rawSchema(`{"type":"object"}`), Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if resp, ok := req.Params.InputResponses["pass"]; ok {
				er, _ := resp.(*sdk.ElicitResult)
				if er == nil {
					return errorText("input response of the wrong type"), nil
				}
				b, _ := json.Marshal(er)
				record("secret_op", b)
				v, _ := er.Content["passphrase"].(string)
				return text(fmt.Sprintf("action %s, passphrase of %d characters", er.Action, len(v))), nil
			}
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"pass": &sdk.ElicitParams{
				Message: "Passphrase for the vault",
				RequestedSchema: map[string]any{"type": "object",
					"properties": map[string]any{"passphrase": map[string]any{"type": "string", "writeOnly": true}},
					"required":   []any{"passphrase"}},
			}}}, nil
		})
	// name_op asks a name, no secret, with a requestState it checks.
	s.AddTool(&sdk.Tool{Name: "name_op", Description: "Asks a name (input_required).", InputSchema: rawSchema(`{"type":"object"}`), Annotations: notDestructive()},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if resp, ok := req.Params.InputResponses["name"].(*sdk.ElicitResult); ok {
				if req.Params.RequestState != "name-state" {
					return errorText("requestState " + strconv.Quote(req.Params.RequestState) + ", want \"name-state\""), nil
				}
				v, _ := resp.Content["name"].(string)
				return text("action " + resp.Action + ", name " + v), nil
			}
			return &sdk.CallToolResult{RequestState: "name-state", InputRequests: sdk.InputRequestMap{"name": &sdk.ElicitParams{
				Message:         "Your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			}}}, nil
		})
	addParkTools(s) // park.go
	return s
}
