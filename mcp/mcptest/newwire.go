package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The modes of protocol 2026-07-28's probe and input_required, for the
// client side of mcptray (mcp/downstream's probe, the gateway's input
// loop). All are written by hand, so they can send what the SDK never
// would:
//
//	new-wire    a server on 2026-07-28 only: answers server/discover,
//	            refuses initialize ("method not found") and any request
//	            whose _meta lacks io.modelcontextprotocol/protocolVersion
//	            or clientCapabilities. Its tools answer input_required:
//	              echo {message}  no question: answers the message
//	              login {user}    asks a password (format "password",
//	                              requestState "login:USER"); the
//	                              result echoes it, to test redaction
//	              ask             asks a name (not a secret)
//	              sample          asks for sampling/createMessage
//	              roots           asks for roots/list
//	              nostate         asks without a requestState (it is
//	                              optional), and answers a retry with none
//	              badstate        asks with a requestState that is a number
//	              unknown         asks with method "magic/wand"
//	              forever         asks again on every retry
//	              busy            input_required with no question
//	              many            asks 40 questions at once
//	              log {message, level}  sends notifications/message at
//	                              level, when the request's _meta asks
//	                              for that level or a more verbose one
//	            A retry whose requestState is not the one it gave gets a
//	            tool error naming both.
//	new-strict  new-wire, but it exits with code 2 on initialize, without
//	            an answer (as some servers do on a method they do not know)
//	old-strict  a 2025-11-25 server that exits with code 2 when its first
//	            request is not initialize (as some do on server/discover)
//	old-wire    a 2025-11-25 server that answers server/discover "method
//	            not found"
//
// Both old ones have the echo tool.

// runNewWire runs the modes above; ok is false for another mode.
func runNewWire(mode string) (code int, ok bool) {
	switch mode {
	case "new-wire":
		return serveNewWire(false), true
	case "new-strict":
		return serveNewWire(true), true
	case "old-strict":
		return serveOldStrict(), true
	case "old-wire":
		return serveRaw(stdoutLine(), "fake-old-wire", `{"tools":{}}`, oldTools), true
	}
	return 0, false
}

func stdoutLine() func(string) {
	out := bufio.NewWriter(os.Stdout)
	return func(s string) {
		out.WriteString(s)
		out.WriteByte('\n')
		out.Flush()
	}
}

const echoToolJSON = `{"name":"echo","description":"Echoes its message.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}},"annotations":{"destructiveHint":false}}`

// oldTools answers tools/list and tools/call of echo for the old modes.
func oldTools(msg rawMessage, _ []byte) bool {
	write := stdoutLine()
	id := string(msg.ID)
	switch msg.Method {
	case "tools/list":
		write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[` + echoToolJSON + `]}}`)
	case "tools/call":
		var p struct {
			Arguments struct {
				Message string `json:"message"`
			} `json:"arguments"`
		}
		json.Unmarshal(msg.Params, &p)
		write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":` + strconv.Quote(p.Arguments.Message) + `}]}}`)
	default:
		return false
	}
	return true
}

func serveOldStrict() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 16<<20)
	if !in.Scan() {
		return 0
	}
	var first rawMessage
	json.Unmarshal(in.Bytes(), &first)
	if first.Method != "initialize" {
		fmt.Fprintf(os.Stderr, "fatal: expected initialize, got %q\n", first.Method)
		return 2
	}
	write := stdoutLine()
	write(`{"jsonrpc":"2.0","id":` + string(first.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake-old-strict","version":"1.0.0"}}}`)
	return serveRaw(write, "fake-old-strict", `{"tools":{}}`, oldTools)
}

// newWireTools are the new-wire mode's tools.
var newWireTools = []string{
	echoToolJSON,
	`{"name":"login","description":"Asks a password.","inputSchema":{"type":"object","properties":{"user":{"type":"string"}}},"annotations":{"destructiveHint":false}}`,
	`{"name":"ask","description":"Asks a name.","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}`,
	`{"name":"sample","description":"Asks the model.","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}`,
	`{"name":"roots","description":"Asks the roots.","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}`,
	`{"name":"nostate","description":"Asks without a requestState.","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}`,
	`{"name":"badstate","description":"Asks with a bad requestState.","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}`,
	`{"name":"unknown","description":"Asks something unknown.","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}`,
	`{"name":"forever","description":"Asks without end.","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}`,
	`{"name":"busy","description":"Asks nothing.","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}`,
	`{"name":"many","description":"Asks 40 questions.","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}`,
	`{"name":"log","description":"Logs a message.","inputSchema":{"type":"object","properties":{"message":{"type":"string"},"level":{"type":"string"}}},"annotations":{"destructiveHint":false}}`,
}

// logLevels are the spec's log levels, most verbose first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func serveNewWire(strict bool) int {
	write := stdoutLine()
	return serveRaw(write, "fake-new-wire", `{"tools":{}}`, func(msg rawMessage, _ []byte) bool {
		id := string(msg.ID)
		reply := func(result string) { write(`{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`) }
		fail := func(code int, text string) {
			write(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + strconv.Itoa(code) + `,"message":` + strconv.Quote(text) + `}}`)
		}
		if msg.Method == "initialize" && strict {
			fmt.Fprintln(os.Stderr, "fatal: unknown method initialize")
			os.Exit(2)
		}
		if msg.Method == "initialize" {
			fail(-32601, "initialize is not supported: this server speaks 2026-07-28 only (server/discover)")
			return true
		}
		if msg.Method == "server/discover" {
			reply(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake-new-wire","version":"1.0.0"}}}`)
			return true
		}
		var p struct {
			Meta           map[string]json.RawMessage `json:"_meta"`
			Name           string                     `json:"name"`
			Arguments      map[string]any             `json:"arguments"`
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
			RequestState   *string                    `json:"requestState"`
		}
		json.Unmarshal(msg.Params, &p)
		if p.Meta["io.modelcontextprotocol/protocolVersion"] == nil || p.Meta["io.modelcontextprotocol/clientCapabilities"] == nil {
			fail(-32602, "missing _meta protocolVersion or clientCapabilities")
			return true
		}
		switch msg.Method {
		case "tools/list":
			reply(`{"tools":[` + strings.Join(newWireTools, ",") + `]}`)
			return true
		case "tools/call":
		default:
			return false
		}
		text := func(s string, isError bool) {
			reply(`{"content":[{"type":"text","text":` + strconv.Quote(s) + `}],"isError":` + strconv.FormatBool(isError) + `,"resultType":"complete"}`)
		}
		ask := func(requests, state string) {
			r := `{"resultType":"input_required","inputRequests":` + requests
			if state != "" {
				r += `,"requestState":` + strconv.Quote(state)
			}
			reply(r + `}`)
		}
		answered := p.InputResponses != nil
		checkState := func(want string) bool {
			if p.RequestState == nil || *p.RequestState != want {
				got := "none"
				if p.RequestState != nil {
					got = strconv.Quote(*p.RequestState)
				}
				text("requestState "+got+", want "+strconv.Quote(want), true)
				return false
			}
			return true
		}
		switch p.Name {
		case "echo":
			msg, _ := p.Arguments["message"].(string)
			text(msg, false)
		case "login":
			user, _ := p.Arguments["user"].(string)
			state := "login:" + user
			if !answered {
				ask(`{"pw":{"method":"elicitation/create","params":{"mode":"form","message":"Password for `+user+`","requestedSchema":{"type":"object","properties":{"password":{"type":"string","format":"password","title":"Password"}},"required":["password"]}}}}`, state)
				return true
			}
			if !checkState(state) {
				return true
			}
			var r struct {
				Action  string            `json:"action"`
				Content map[string]string `json:"content"`
			}
			json.Unmarshal(p.InputResponses["pw"], &r)
			text("action "+r.Action+", logged in "+user+" with "+r.Content["password"], false)
		case "ask":
			if !answered {
				ask(`{"name":{"method":"elicitation/create","params":{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}`, "ask")
				return true
			}
			if checkState("ask") {
				text("answer "+string(p.InputResponses["name"]), false)
			}
		case "sample":
			if !answered {
				ask(`{"s":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}}`, "sample")
				return true
			}
			if checkState("sample") {
				text("answer "+string(p.InputResponses["s"]), false)
			}
		case "roots":
			if !answered {
				ask(`{"r":{"method":"roots/list","params":{}}}`, "roots")
				return true
			}
			if checkState("roots") {
				text("answer "+string(p.InputResponses["r"]), false)
			}
		case "nostate":
			if !answered {
				ask(`{"n":{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{}}}}}`, "")
				return true
			}
			if p.RequestState != nil {
				text("requestState "+strconv.Quote(*p.RequestState)+", want none", true)
				return true
			}
			text("answered without a requestState", false)
		case "badstate":
			reply(`{"resultType":"input_required","inputRequests":{"n":{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":42}`)
		case "unknown":
			ask(`{"w":{"method":"magic/wand","params":{}}}`, "unknown")
		case "forever":
			round := 0
			if p.RequestState != nil {
				round, _ = strconv.Atoi(strings.TrimPrefix(*p.RequestState, "round-"))
			}
			ask(`{"c":{"method":"elicitation/create","params":{"mode":"form","message":"Again?","requestedSchema":{"type":"object","properties":{}}}}}`, "round-"+strconv.Itoa(round+1))
		case "busy":
			ask(`{}`, "busy")
		case "log":
			msg, _ := p.Arguments["message"].(string)
			level, _ := p.Arguments["level"].(string)
			var asked string
			json.Unmarshal(p.Meta["io.modelcontextprotocol/logLevel"], &asked)
			if a, l := slices.Index(logLevels, asked), slices.Index(logLevels, level); a >= 0 && l >= a {
				write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":` + strconv.Quote(level) + `,"logger":"fake-new-wire","data":` + strconv.Quote(msg) + `}}`)
			}
			text("logged", false)
		case "many":
			qs := make([]string, 40)
			for i := range qs {
				qs[i] = `"q` + strconv.Itoa(i) + `":{"method":"roots/list","params":{}}`
			}
			ask(`{`+strings.Join(qs, ",")+`}`, "many")
		default:
			fail(-32602, "unknown tool "+p.Name)
		}
		return true
	})
}
